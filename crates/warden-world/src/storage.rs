//! The SQLite store wired into the core's ports, and where it lives.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use std::os::unix::fs::DirBuilderExt;

use warden_core::ports::{
    Approval, ApprovalError, ApprovalState, ApprovalStore, AuditError, AuditRecord, AuditSink,
    BoxFuture, ConversationStore, ConversationStoreError, Note, NotesError, NotesStore, TurnRecord,
    check_consumable, check_decidable,
};
use warden_protocol::FileBefore;
use warden_store::{PrivateScope, Store, StoreError, StoredNote, UsageRow};

/// Why the database cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot find a data directory: set {0}")]
    NoDataDirectory(&'static str),
    #[error("creating {path}: {source}")]
    CreateDirectory {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The store's own error names the path and the problem.
    #[error(transparent)]
    Store(StoreError),
    #[error("opening {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: StoreError,
    },
}

/// The user's data directory: `$XDG_DATA_HOME/warden`, else
/// `~/.local/share/warden`.
fn user_data_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .map(|data| data.join("warden"))
}

/// `$XDG_DATA_HOME/warden/warden.db`, else `~/.local/share/warden/warden.db`.
pub fn default_database_path() -> Result<PathBuf, OpenError> {
    user_data_dir()
        .map(|dir| dir.join("warden.db"))
        .ok_or(OpenError::NoDataDirectory("--db or WARDEN_DB"))
}

/// Where `warden serve` keeps its data: `--data-dir`, else
/// `$WARDEN_DATA_DIR`, else the user's data directory.
pub fn server_data_dir(flag: Option<PathBuf>) -> Result<PathBuf, OpenError> {
    if let Some(dir) = flag.or_else(|| std::env::var_os("WARDEN_DATA_DIR").map(PathBuf::from)) {
        return Ok(dir);
    }
    user_data_dir().ok_or(OpenError::NoDataDirectory("--data-dir or WARDEN_DATA_DIR"))
}

/// Create `dir` private (0700) if it is missing.
pub fn create_private_dir(dir: &std::path::Path) -> Result<(), OpenError> {
    if dir.exists() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| OpenError::CreateDirectory {
            path: dir.to_path_buf(),
            source,
        })
}

/// Open the database named by `--db`, `$WARDEN_DB` or the config file (its
/// directory must exist: a typo should not scatter databases around), else
/// the default location, whose directory is created private (0700). What
/// earlier releases left readable is made private ([`Store::tightened`]
/// says what): the database's own files, and the whole default directory.
pub fn open(configured: Option<PathBuf>) -> Result<Arc<Store>, OpenError> {
    match configured {
        Some(path) => open_at(&path, PrivateScope::DatabaseFiles),
        None => {
            let path = default_database_path()?;
            match path.parent() {
                Some(dir) => {
                    create_private_dir(dir)?;
                    open_at(&path, PrivateScope::DataDirectory(dir))
                }
                None => open_at(&path, PrivateScope::DatabaseFiles),
            }
        }
    }
}

/// The database of a server's data directory `dir` (created private if
/// missing): `db` when the configuration names one (only its own files are
/// made private), else `warden.db` there (the whole directory is).
pub fn open_in_data_dir(dir: &Path, db: Option<PathBuf>) -> Result<Arc<Store>, OpenError> {
    create_private_dir(dir)?;
    match db {
        Some(db) => open_at(&db, PrivateScope::DatabaseFiles),
        None => open_at(&dir.join("warden.db"), PrivateScope::DataDirectory(dir)),
    }
}

fn open_at(path: &Path, scope: PrivateScope<'_>) -> Result<Arc<Store>, OpenError> {
    let path = path.to_path_buf();
    match Store::open_private(&path, scope) {
        Ok(store) => Ok(Arc::new(store)),
        // These name the path and the problem already.
        Err(
            error @ (StoreError::NotAFile { .. }
            | StoreError::MissingDirectory { .. }
            | StoreError::ReadOnlyDirectory { .. }
            | StoreError::CannotWrite { .. }
            | StoreError::NotADatabase { .. }
            | StoreError::SchemaTooNew { .. }),
        ) => Err(OpenError::Store(error)),
        Err(source) => Err(OpenError::Open { path, source }),
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

    fn keep_file_before(&self, id: &str, before: &FileBefore) -> Result<(), ApprovalError> {
        self.store
            .set_file_before(id, before)
            .map(|_kept| ())
            .map_err(|e| ApprovalError::Store(e.to_string()))
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

/// Conversations and their usage in the store. A turn's messages and usage
/// are written together; under a multi-threaded runtime (the server) on
/// the one store writer thread, so that a thousand turns ending at once
/// neither stall the workers that stream everyone else's tokens nor take a
/// blocking thread each.
pub struct SqliteConversations {
    store: Arc<Store>,
    writer: std::sync::OnceLock<crate::store_writer::StoreWriter>,
}

impl SqliteConversations {
    pub fn new(store: Arc<Store>) -> Self {
        SqliteConversations {
            store,
            writer: std::sync::OnceLock::new(),
        }
    }
}

fn store_error(error: impl std::fmt::Display) -> ConversationStoreError {
    ConversationStoreError(error.to_string())
}

fn save_turn(store: &Store, record: &TurnRecord) -> Result<(), StoreError> {
    store.append_messages(
        &record.session_id,
        &record.messages,
        Some(&record.title),
        record.at_ms,
    )?;
    for usage in &record.usage {
        store.record_usage(&UsageRow {
            session_id: usage.session_id.clone(),
            provider: usage.provider.clone(),
            model: usage.model.clone(),
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cost_usd: usage.cost_usd,
            at_ms: usage.at_ms,
        })?;
    }
    Ok(())
}

impl ConversationStore for SqliteConversations {
    fn create(
        &self,
        session_id: &str,
        title: &str,
        at_ms: u64,
    ) -> Result<(), ConversationStoreError> {
        self.store
            .create_session(session_id, title, at_ms)
            .map_err(store_error)
    }

    fn exists(&self, session_id: &str) -> Result<bool, ConversationStoreError> {
        self.store.session_exists(session_id).map_err(store_error)
    }

    fn messages(&self, session_id: &str) -> Result<Vec<String>, ConversationStoreError> {
        self.store.messages(session_id).map_err(store_error)
    }

    fn tokens_used(&self, session_id: &str) -> Result<u64, ConversationStoreError> {
        self.store.session_tokens(session_id).map_err(store_error)
    }

    fn save_turn(&self, record: TurnRecord) -> BoxFuture<'_, Result<(), ConversationStoreError>> {
        Box::pin(async move {
            match tokio::runtime::Handle::try_current() {
                Ok(handle)
                    if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread =>
                {
                    let writer = self.writer.get_or_init(|| {
                        crate::store_writer::StoreWriter::start(Arc::clone(&self.store))
                    });
                    writer
                        .write(move |store| save_turn(store, &record))
                        .await
                        .map_err(store_error)
                }
                // The CLI's one thread: the terminal is the only client.
                _ => save_turn(&self.store, &record).map_err(store_error),
            }
        })
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
