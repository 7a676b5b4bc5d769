//! The head anchor: how many records the audit log has and the hash of the
//! newest, kept outside the table, in a 0600 file beside the database
//! (`warden.db.audit-head`) and in the process's memory. Deleting the newest
//! records, emptying the table or re-creating the database leaves the
//! anchor naming a record the table no longer has.
//!
//! The file is replaced atomically (temporary file, fsync, rename, fsync of
//! the directory) after a record is committed, while holding the database's
//! write lock, and only ever moves forward, so concurrent writers never move
//! it back. A writer killed between its commit and the anchor update leaves
//! the anchor behind the table; records after the anchor that chain from it
//! are recognised as such ("anchor lag") and the anchor is moved up to them.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::record::GENESIS_HASH;
use crate::{StoreError, StoreResult};

/// The state of the log a writer last committed and anchored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditAnchor {
    /// How many records the log holds.
    pub records: u64,
    /// The sequence number of the newest record (0 when empty).
    pub head_seq: u64,
    /// The hash of the newest record (the genesis hash when empty).
    pub head_hash: String,
}

impl AuditAnchor {
    pub fn empty() -> AuditAnchor {
        AuditAnchor {
            records: 0,
            head_seq: 0,
            head_hash: GENESIS_HASH.to_string(),
        }
    }
}

/// The anchor file as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnchorFile {
    /// The database lives in memory: there is no file.
    NotKept,
    Missing {
        path: PathBuf,
    },
    Unreadable {
        path: PathBuf,
        error: String,
    },
    Present {
        path: PathBuf,
        anchor: AuditAnchor,
    },
}

/// The file's format: the anchor plus a version, one JSON line.
#[derive(Serialize, Deserialize)]
struct AnchorFileV1 {
    version: u32,
    #[serde(flatten)]
    anchor: AuditAnchor,
}

/// `warden.db` → `warden.db.audit-head`.
pub fn anchor_path(database: &Path) -> PathBuf {
    let mut name = database
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".audit-head");
    database.with_file_name(name)
}

/// Where the anchor lives: a file (for a database on disk) and memory.
pub(crate) struct Anchors {
    file: Option<PathBuf>,
    /// The newest anchor this process read or wrote: a lower bound the file
    /// and the table must both still honour.
    memory: Mutex<Option<AuditAnchor>>,
}

impl Anchors {
    pub(crate) fn on_disk(database: &Path) -> Anchors {
        Anchors {
            file: Some(anchor_path(database)),
            memory: Mutex::new(None),
        }
    }

    pub(crate) fn in_memory() -> Anchors {
        Anchors {
            file: None,
            memory: Mutex::new(Some(AuditAnchor::empty())),
        }
    }

    pub(crate) fn read_file(&self) -> AnchorFile {
        let Some(path) = &self.file else {
            return AnchorFile::NotKept;
        };
        let path = path.clone();
        match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str::<AnchorFileV1>(&text) {
                Ok(file) if file.version == 1 => AnchorFile::Present {
                    path,
                    anchor: file.anchor,
                },
                Ok(file) => AnchorFile::Unreadable {
                    path,
                    error: format!("unknown anchor format version {}", file.version),
                },
                Err(error) => AnchorFile::Unreadable {
                    path,
                    error: error.to_string(),
                },
            },
            Err(error) if error.kind() == ErrorKind::NotFound => AnchorFile::Missing { path },
            Err(error) => AnchorFile::Unreadable {
                path,
                error: error.to_string(),
            },
        }
    }

    pub(crate) fn memory(&self) -> StoreResult<Option<AuditAnchor>> {
        self.memory
            .lock()
            .map(|m| m.clone())
            .map_err(|_| StoreError::Poisoned)
    }

    /// Move the memory copy forward (never back).
    pub(crate) fn remember(&self, anchor: &AuditAnchor) -> StoreResult<()> {
        let mut memory = self.memory.lock().map_err(|_| StoreError::Poisoned)?;
        if memory.as_ref().is_none_or(|m| m.head_seq < anchor.head_seq) {
            *memory = Some(anchor.clone());
        }
        Ok(())
    }

    /// Replace the memory copy, backwards too (an operator's re-anchoring).
    pub(crate) fn reset_memory(&self, anchor: &AuditAnchor) -> StoreResult<()> {
        let mut memory = self.memory.lock().map_err(|_| StoreError::Poisoned)?;
        *memory = Some(anchor.clone());
        Ok(())
    }

    /// Write `anchor` to the file unless the file already names a newer
    /// record, or cannot be read (it is evidence, not to be overwritten).
    /// Call with the database's write lock held.
    pub(crate) fn advance_file(&self, anchor: &AuditAnchor) -> StoreResult<()> {
        match self.read_file() {
            AnchorFile::NotKept => Ok(()),
            AnchorFile::Present {
                anchor: current, ..
            } if current.head_seq >= anchor.head_seq => Ok(()),
            AnchorFile::Present { path, .. } | AnchorFile::Missing { path } => {
                write_atomically(&path, anchor)
            }
            AnchorFile::Unreadable { path, error } => Err(StoreError::Anchor {
                path,
                reason: format!("unreadable, left as found: {error}"),
            }),
        }
    }

    /// Write `anchor` whatever the file says. Call with the write lock held.
    pub(crate) fn replace_file(&self, anchor: &AuditAnchor) -> StoreResult<()> {
        match &self.file {
            Some(path) => write_atomically(path, anchor),
            None => Ok(()),
        }
    }
}

fn write_atomically(path: &Path, anchor: &AuditAnchor) -> StoreResult<()> {
    let fail = |reason: String| StoreError::Anchor {
        path: path.to_path_buf(),
        reason,
    };
    let mut text = serde_json::to_string(&AnchorFileV1 {
        version: 1,
        anchor: anchor.clone(),
    })
    .map_err(|e| fail(e.to_string()))?;
    text.push('\n');
    let mut temporary = path.as_os_str().to_os_string();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let write = || -> std::io::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)?;
        // The rename itself must survive a power cut.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    };
    write().map_err(|e| fail(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_file_is_private_and_only_moves_forward() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("warden.db");
        let anchors = Anchors::on_disk(&database);
        let path = dir.path().join("warden.db.audit-head");
        assert_eq!(
            anchors.read_file(),
            AnchorFile::Missing { path: path.clone() }
        );
        let second = AuditAnchor {
            records: 2,
            head_seq: 2,
            head_hash: "b".repeat(64),
        };
        anchors.advance_file(&second).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let first = AuditAnchor {
            records: 1,
            head_seq: 1,
            head_hash: "a".repeat(64),
        };
        anchors.advance_file(&first).unwrap();
        assert_eq!(
            anchors.read_file(),
            AnchorFile::Present {
                path: path.clone(),
                anchor: second.clone()
            }
        );
        anchors.replace_file(&first).unwrap();
        assert_eq!(
            anchors.read_file(),
            AnchorFile::Present {
                path: path.clone(),
                anchor: first
            }
        );

        std::fs::write(&path, "garbage").unwrap();
        assert!(matches!(anchors.read_file(), AnchorFile::Unreadable { .. }));
        assert!(anchors.advance_file(&second).is_err(), "evidence is kept");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "garbage");
    }

    #[test]
    fn memory_moves_forward_unless_reset() {
        let anchors = Anchors::in_memory();
        let later = AuditAnchor {
            records: 5,
            head_seq: 5,
            head_hash: "c".repeat(64),
        };
        anchors.remember(&later).unwrap();
        anchors.remember(&AuditAnchor::empty()).unwrap();
        assert_eq!(anchors.memory().unwrap(), Some(later));
        anchors.reset_memory(&AuditAnchor::empty()).unwrap();
        assert_eq!(anchors.memory().unwrap(), Some(AuditAnchor::empty()));
    }
}
