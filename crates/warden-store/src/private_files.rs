//! Warden's files are private whatever made them. Databases of the first
//! release were 0644 and stayed world-readable after an upgrade; so at
//! every open the database's own files (the file, its `-wal` and `-shm`,
//! the audit head) lose every group and other permission, and a data
//! directory is made 0700 with every file in it (and below it) 0600. What
//! was changed is returned, so the caller can say so.
//!
//! Symbolic links inside a data directory are left alone: their targets
//! are not Warden's to change. A file that cannot be changed is an error
//! (a secret that stays readable by others must not go unnoticed).

use std::fmt;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::{StoreError, StoreResult};

/// The mode of a private directory and of a private file.
pub const PRIVATE_DIR: u32 = 0o700;
pub const PRIVATE_FILE: u32 = 0o600;

/// Group and other bits: what "private" rules out.
const SHARED_BITS: u32 = 0o077;

/// One path whose permissions were tightened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tightened {
    pub path: PathBuf,
    /// The permission bits before (e.g. `0o644`).
    pub was: u32,
    /// The permission bits now.
    pub now: u32,
}

impl fmt::Display for Tightened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} was {:04o}, now {:04o}",
            self.path.display(),
            self.was,
            self.now
        )
    }
}

/// What a database open makes private besides the database's own files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrivateScope<'a> {
    /// Only the database's files: a `--db` of the user's choosing lives in
    /// a directory that is not Warden's.
    DatabaseFiles,
    /// Warden's data directory: the directory and everything in it.
    DataDirectory(&'a Path),
}

/// The mode a path should have, or `None` when it is private already.
/// Pure.
pub fn private_mode(mode: u32, is_dir: bool) -> Option<u32> {
    let bits = mode & 0o7777;
    if bits & SHARED_BITS == 0 {
        return None;
    }
    Some(if is_dir { PRIVATE_DIR } else { PRIVATE_FILE })
}

fn io_error(path: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Make `path` private if it exists and is not (only regular files and
/// directories; `follow` says how links and directories are treated).
fn tighten_one(
    path: &Path,
    follow: Follow,
    changed: &mut Vec<Tightened>,
) -> StoreResult<Option<std::fs::Metadata>> {
    let meta = match follow {
        Follow::Links | Follow::FilesOnly => std::fs::metadata(path),
        Follow::NoLinks => std::fs::symlink_metadata(path),
    };
    let meta = match meta {
        Ok(meta) => meta,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(io_error(path, source)),
    };
    // Links, devices, pipes and sockets are not Warden's files.
    let is_dir = meta.is_dir();
    if !is_dir && !meta.is_file() {
        return Ok(None);
    }
    if follow == Follow::FilesOnly && is_dir {
        return Ok(None);
    }
    let was = meta.permissions().mode() & 0o7777;
    if let Some(now) = private_mode(was, is_dir) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(now))
            .map_err(|source| io_error(path, source))?;
        changed.push(Tightened {
            path: path.to_path_buf(),
            was,
            now,
        });
    }
    Ok(Some(meta))
}

/// How a path is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Follow {
    /// Through a symbolic link (the data directory itself).
    Links,
    /// Not through one: a link is left alone (entries of a data directory).
    NoLinks,
    /// Through a link, and only a regular file is changed (a database
    /// path of the user's choosing: never a directory or a device).
    FilesOnly,
}

/// Deepest directory level walked below a data directory.
const MAX_DEPTH: usize = 8;

fn tighten_tree(dir: &Path, depth: usize, changed: &mut Vec<Tightened>) -> StoreResult<()> {
    let entries = std::fs::read_dir(dir).map_err(|source| io_error(dir, source))?;
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        paths.push(entry.map_err(|source| io_error(dir, source))?.path());
    }
    // A stable order, for the report.
    paths.sort();
    for path in paths {
        let Some(meta) = tighten_one(&path, Follow::NoLinks, changed)? else {
            continue;
        };
        if meta.is_dir() && depth < MAX_DEPTH {
            tighten_tree(&path, depth + 1, changed)?;
        }
    }
    Ok(())
}

/// Make a data directory 0700 and everything in it private (files 0600,
/// directories 0700). A missing directory is left missing.
pub fn tighten_data_dir(dir: &Path) -> StoreResult<Vec<Tightened>> {
    let mut changed = Vec::new();
    match tighten_one(dir, Follow::Links, &mut changed)? {
        Some(meta) if meta.is_dir() => tighten_tree(dir, 0, &mut changed)?,
        Some(_) | None => {}
    }
    Ok(changed)
}

/// The files SQLite and the audit anchor keep for the database at `path`.
pub fn database_files(path: &Path) -> Vec<PathBuf> {
    let with = |suffix: &str| {
        let mut name = path.as_os_str().to_os_string();
        name.push(suffix);
        PathBuf::from(name)
    };
    vec![
        path.to_path_buf(),
        with("-wal"),
        with("-shm"),
        crate::anchor_path(path),
    ]
}

/// Make the database's files private (those that exist).
pub fn tighten_database_files(path: &Path) -> StoreResult<Vec<Tightened>> {
    let mut changed = Vec::new();
    for file in database_files(path) {
        tighten_one(&file, Follow::FilesOnly, &mut changed)?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_shared_bits_make_a_path_change() {
        let table = [
            (0o644, false, Some(0o600)),
            (0o640, false, Some(0o600)),
            (0o604, false, Some(0o600)),
            (0o755, false, Some(0o600)),
            (0o600, false, None),
            (0o400, false, None),
            (0o700, false, None),
            (0o755, true, Some(0o700)),
            (0o750, true, Some(0o700)),
            (0o711, true, Some(0o700)),
            (0o700, true, None),
            (0o2755, true, Some(0o700)),
            (0o1777, true, Some(0o700)),
        ];
        for (mode, is_dir, expected) in table {
            assert_eq!(
                private_mode(mode, is_dir),
                expected,
                "{mode:o} dir={is_dir}"
            );
        }
    }

    #[test]
    fn a_data_directory_is_made_private_and_links_are_left_alone() {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("shared.txt");
        std::fs::write(&target, "x").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();

        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("data");
        std::fs::create_dir(&dir).unwrap();
        std::fs::create_dir(dir.join("tls")).unwrap();
        for (name, mode) in [
            ("warden.db", 0o644),
            ("admin-password", 0o600),
            ("tls/key.pem", 0o640),
        ] {
            std::fs::write(dir.join(name), "x").unwrap();
            std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        std::os::unix::fs::symlink(&target, dir.join("link")).unwrap();
        for d in [&dir, &dir.join("tls")] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }

        let changed = tighten_data_dir(&dir).unwrap();
        let report: Vec<(String, u32, u32)> = changed
            .iter()
            .map(|t| {
                let name = t.path.strip_prefix(&dir).unwrap().display().to_string();
                (name, t.was, t.now)
            })
            .collect();
        assert_eq!(
            report,
            [
                (String::new(), 0o755, 0o700),
                ("tls".to_string(), 0o755, 0o700),
                ("tls/key.pem".to_string(), 0o640, 0o600),
                ("warden.db".to_string(), 0o644, 0o600),
            ]
        );
        let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&target), 0o644, "a link's target is not ours");
        assert!(
            tighten_data_dir(&dir).unwrap().is_empty(),
            "nothing left to do"
        );
        assert!(
            tighten_data_dir(&base.path().join("missing"))
                .unwrap()
                .is_empty()
        );
        assert!(
            changed[0].to_string().ends_with("was 0755, now 0700"),
            "{}",
            changed[0]
        );
    }
}
