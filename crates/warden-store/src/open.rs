//! Opening the database file: refuse what is not a regular file with a
//! message that says what it is, and create a new database private (0600;
//! SQLite gives its `-wal` and `-shm` files the database file's mode).

use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::{StoreError, StoreResult};

/// What a path that should be a database file is instead.
fn kind_of(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else if file_type.is_fifo() {
        Some("a named pipe")
    } else if file_type.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

/// The directory a database path lives in (`.` for a bare file name).
pub(crate) fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Make sure `path` is a regular file, creating it (0600) when missing. The
/// directory must exist: where databases may be created is the caller's
/// decision.
pub(crate) fn prepare_database_file(path: &Path) -> StoreResult<()> {
    match std::fs::metadata(path) {
        Ok(meta) => match kind_of(meta.file_type()) {
            None => Ok(()),
            Some(what) => Err(StoreError::NotAFile {
                path: path.to_path_buf(),
                what,
            }),
        },
        Err(error) if error.kind() == ErrorKind::NotFound => create_private(path),
        Err(source) => Err(StoreError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn create_private(path: &Path) -> StoreResult<()> {
    let dir = directory_of(path);
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(StoreError::NotAFile {
                path: dir,
                what: "not a directory",
            });
        }
        Err(error) if error.kind() == ErrorKind::NotFound => {
            return Err(StoreError::MissingDirectory {
                path: path.to_path_buf(),
                dir,
            });
        }
        Err(source) => return Err(StoreError::Io { path: dir, source }),
    }
    let created = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
    match created {
        Ok(_) => Ok(()),
        // Another process created it first: the same database.
        Err(error) if error.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            Err(StoreError::ReadOnlyDirectory {
                path: path.to_path_buf(),
                dir,
            })
        }
        Err(source) => Err(StoreError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A clearer error for SQLite failing to open or write the file.
pub(crate) fn explain_open_error(path: &Path, error: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    match error.sqlite_error_code() {
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => {
            StoreError::CannotWrite {
                path: path.to_path_buf(),
                dir: directory_of(path),
                detail: error.to_string(),
            }
        }
        Some(ErrorCode::NotADatabase) => StoreError::NotADatabase {
            path: path.to_path_buf(),
        },
        _ => StoreError::Sqlite(error),
    }
}
