//! The SQLite store wired into the core's ports, and where it lives.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use warden_core::ports::{
    Approval, ApprovalError, ApprovalState, ApprovalStore, AuditError, AuditRecord, AuditSink,
    Note, NotesError, NotesStore, check_consumable, check_decidable,
};
use warden_store::{Store, StoredNote};

/// `--db`, else `$WARDEN_DB`, else `$XDG_DATA_HOME/warden/warden.db`, else
/// `~/.local/share/warden/warden.db`.
pub fn database_path(flag: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(path) = flag.or_else(|| std::env::var_os("WARDEN_DB").map(PathBuf::from)) {
        return Ok(path);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .context("cannot find a data directory: set --db or WARDEN_DB")?;
    Ok(data.join("warden").join("warden.db"))
}

pub fn open(flag: Option<PathBuf>) -> Result<Arc<Store>> {
    let path = database_path(flag)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let store = Store::open(&path).with_context(|| format!("opening {}", path.display()))?;
    Ok(Arc::new(store))
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Durable approvals: they survive a restart.
pub struct SqliteApprovals(pub Arc<Store>);

impl SqliteApprovals {
    fn load(&self, id: &str) -> Result<Approval, ApprovalError> {
        self.0
            .approval(id)
            .map_err(|e| ApprovalError::Store(e.to_string()))?
            .ok_or_else(|| ApprovalError::NotFound(id.to_string()))
    }
}

impl ApprovalStore for SqliteApprovals {
    fn create(&self, approval: Approval) -> Result<(), ApprovalError> {
        self.0
            .insert_approval(&approval)
            .map_err(|e| ApprovalError::Store(e.to_string()))
    }

    fn get(&self, id: &str) -> Result<Approval, ApprovalError> {
        self.load(id)
    }

    fn decide(
        &self,
        id: &str,
        state: ApprovalState,
        reason: Option<String>,
        now_ms: u64,
    ) -> Result<Approval, ApprovalError> {
        match self
            .0
            .decide_if_pending(id, state, reason.as_deref(), now_ms)
        {
            Ok(Some(approval)) => Ok(approval),
            Ok(None) => {
                // Say why, from the stored row.
                check_decidable(&self.load(id)?, now_ms)?;
                Err(ApprovalError::Store(format!(
                    "approval {id} changed concurrently"
                )))
            }
            Err(e) => Err(ApprovalError::Store(e.to_string())),
        }
    }

    fn consume(&self, id: &str, now_ms: u64) -> Result<Approval, ApprovalError> {
        match self.0.consume_if_approved(id, now_ms) {
            Ok(Some(approval)) => Ok(approval),
            Ok(None) => {
                check_consumable(&self.load(id)?, now_ms)?;
                Err(ApprovalError::Store(format!(
                    "approval {id} changed concurrently"
                )))
            }
            Err(e) => Err(ApprovalError::Store(e.to_string())),
        }
    }
}

/// The hash-chained audit log.
pub struct SqliteAudit(pub Arc<Store>);

impl AuditSink for SqliteAudit {
    fn append(&self, record: AuditRecord) -> Result<(), AuditError> {
        self.0
            .append_audit(&record, now_ms())
            .map(|_| ())
            .map_err(|e| AuditError(e.to_string()))
    }
}

/// Notes that outlive the session.
pub struct SqliteNotes(pub Arc<Store>);

impl NotesStore for SqliteNotes {
    fn add(&self, note: Note) -> Result<(), NotesError> {
        self.0
            .add_note(&StoredNote {
                target: note.target,
                text: note.text,
                at_ms: note.created_at_ms,
            })
            .map_err(|e| NotesError(e.to_string()))
    }

    fn all(&self) -> Result<Vec<Note>, NotesError> {
        self.0
            .notes()
            .map(|notes| {
                notes
                    .into_iter()
                    .map(|n| Note {
                        target: n.target,
                        text: n.text,
                        created_at_ms: n.at_ms,
                    })
                    .collect()
            })
            .map_err(|e| NotesError(e.to_string()))
    }
}
