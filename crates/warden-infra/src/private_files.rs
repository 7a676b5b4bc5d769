//! Files only the agent may read: the state directory is 0700, every file in
//! it 0600, and files are replaced atomically (written beside, synced, then
//! renamed), so a crash leaves the old version or the new one, never half.

use std::fs::{self, DirBuilder, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("{action} {}: {source}", path.display())]
pub struct PrivateFileError {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: std::io::Error,
}

fn error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> PrivateFileError {
    let path = path.to_path_buf();
    move |source| PrivateFileError {
        action,
        path,
        source,
    }
}

/// Creates `dir` (and its parents) if needed and makes it 0700.
pub fn ensure_private_dir(dir: &Path) -> Result<(), PrivateFileError> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(error("cannot create", dir))?;
    fs::set_permissions(dir, Permissions::from_mode(0o700)).map_err(error("cannot chmod", dir))
}

/// Replaces `path` with `contents`, mode 0600, atomically.
pub fn write_private_file(path: &Path, contents: &[u8]) -> Result<(), PrivateFileError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{file_name}.tmp"));
    // A leftover from a crash would make `create_new` fail.
    match fs::remove_file(&temp) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(error("cannot remove", &temp)(err)),
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)
        .map_err(error("cannot create", &temp))?;
    file.write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(error("cannot write", &temp))?;
    drop(file);
    fs::rename(&temp, path).map_err(error("cannot rename into", path))?;
    if let Some(dir) = path.parent() {
        // The rename is durable once the directory is synced.
        fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(error("cannot sync", dir))?;
    }
    Ok(())
}

/// Appends one line to `path`, creating it 0600.
pub fn append_private_line(path: &Path, line: &str) -> Result<(), PrivateFileError> {
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)
        .map_err(error("cannot open", path))?;
    let mut bytes = line.as_bytes().to_vec();
    bytes.push(b'\n');
    file.write_all(&bytes)
        .map_err(error("cannot append to", path))
}

/// The permission bits of `path` (for checks and tests).
pub fn mode_of(path: &Path) -> Result<u32, PrivateFileError> {
    fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o7777)
        .map_err(error("cannot stat", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_private_and_replaced_whole() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("state/nested");
        ensure_private_dir(&dir).unwrap();
        assert_eq!(mode_of(&dir).unwrap(), 0o700);
        let file = dir.join("identity.json");
        write_private_file(&file, b"one").unwrap();
        write_private_file(&file, b"two").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"two");
        assert_eq!(mode_of(&file).unwrap(), 0o600);
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no temp file left");
    }

    #[test]
    fn a_wide_directory_is_tightened() {
        let temp = tempfile::tempdir().unwrap();
        fs::set_permissions(temp.path(), Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(temp.path()).unwrap();
        assert_eq!(mode_of(temp.path()).unwrap(), 0o700);
    }

    #[test]
    fn lines_are_appended_to_a_private_file() {
        let temp = tempfile::tempdir().unwrap();
        let log = temp.path().join("log.jsonl");
        append_private_line(&log, "a").unwrap();
        append_private_line(&log, "b").unwrap();
        assert_eq!(fs::read_to_string(&log).unwrap(), "a\nb\n");
        assert_eq!(mode_of(&log).unwrap(), 0o600);
    }
}
