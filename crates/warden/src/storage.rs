//! The SQLite store wired into the core's ports, and where it lives.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use std::os::unix::fs::DirBuilderExt;

use anyhow::{Context, Result};
use warden_core::ports::{
    Approval, ApprovalError, ApprovalState, ApprovalStore, AuditError, AuditRecord, AuditSink,
    Note, NotesError, NotesStore, check_consumable, check_decidable,
};
use warden_store::{Store, StoreError, StoredNote};

/// `$XDG_DATA_HOME/warden/warden.db`, else `~/.local/share/warden/warden.db`.
pub fn default_database_path() -> Result<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .context("cannot find a data directory: set --db or WARDEN_DB")?;
    Ok(data.join("warden").join("warden.db"))
}

/// Open the database named by `--db`, `$WARDEN_DB` or the config file (its
/// directory must exist: a typo should not scatter databases around), else
/// the default location, whose directory is created private (0700).
pub fn open(configured: Option<PathBuf>) -> Result<Arc<Store>> {
    let path = match configured {
        Some(path) => path,
        None => {
            let path = default_database_path()?;
            if let Some(dir) = path.parent() {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            path
        }
    };
    match Store::open(&path) {
        Ok(store) => Ok(Arc::new(store)),
        // These name the path and the problem already.
        Err(
            error @ (StoreError::NotAFile { .. }
            | StoreError::MissingDirectory { .. }
            | StoreError::ReadOnlyDirectory { .. }
            | StoreError::CannotWrite { .. }
            | StoreError::NotADatabase { .. }
            | StoreError::SchemaTooNew { .. }),
        ) => Err(error.into()),
        Err(error) => Err(anyhow::Error::new(error).context(format!("opening {}", path.display()))),
    }
}

/// Who decides at this terminal: `user:$USER` (until Warden has accounts),
/// else the name `/etc/passwd` gives the process's uid, else `uid:N`.
pub fn local_operator() -> String {
    let from_env = ["USER", "LOGNAME"]
        .iter()
        .filter_map(|var| std::env::var(var).ok())
        .find(|name| !name.trim().is_empty());
    if let Some(name) = from_env {
        return format!("user:{name}");
    }
    let uid = rustix::process::getuid().as_raw();
    match user_name(uid) {
        Some(name) => format!("user:{name}"),
        None => format!("uid:{uid}"),
    }
}

/// The login name of `uid` in `/etc/passwd` (`name:x:uid:...`).
fn user_name(uid: u32) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        let uid_field = fields.nth(1)?;
        (uid_field.parse() == Ok(uid) && !name.is_empty()).then(|| name.to_string())
    })
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Durable approvals: they survive a restart. Decisions made at this
/// terminal are recorded as the local operator's.
pub struct SqliteApprovals {
    store: Arc<Store>,
    operator: String,
}

impl SqliteApprovals {
    pub fn new(store: Arc<Store>) -> SqliteApprovals {
        SqliteApprovals::with_operator(store, local_operator())
    }

    /// Decisions recorded as `operator`'s (replays name their script).
    pub fn with_operator(store: Arc<Store>, operator: impl Into<String>) -> SqliteApprovals {
        SqliteApprovals {
            store,
            operator: operator.into(),
        }
    }

    fn load(&self, id: &str) -> Result<Approval, ApprovalError> {
        self.store
            .approval(id)
            .map_err(|e| ApprovalError::Store(e.to_string()))?
            .ok_or_else(|| ApprovalError::NotFound(id.to_string()))
    }
}

impl ApprovalStore for SqliteApprovals {
    fn create(&self, approval: Approval) -> Result<(), ApprovalError> {
        self.store
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
        self.decide_as(id, state, &self.operator, reason, now_ms)
    }

    fn decide_as(
        &self,
        id: &str,
        state: ApprovalState,
        decided_by: &str,
        reason: Option<String>,
        now_ms: u64,
    ) -> Result<Approval, ApprovalError> {
        match self
            .store
            .decide_if_pending(id, state, decided_by, reason.as_deref(), now_ms)
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
        match self.store.consume_if_approved(id, now_ms) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_superuser_has_a_name() {
        assert_eq!(user_name(0).as_deref(), Some("root"));
        assert_eq!(user_name(u32::MAX - 7), None);
    }
}
