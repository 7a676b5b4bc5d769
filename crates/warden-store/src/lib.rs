//! Warden's persistence: one SQLite database (WAL mode, synchronous FULL)
//! with migrations, holding durable approvals, the hash-chained audit log
//! (anchored by a file beside the database), conversation history, token
//! usage and notes. Writes happen in transactions, so a process killed
//! mid-write leaves the previous state. Every open makes the database's
//! files private, and a data directory 0700 with every file 0600 when
//! asked ([`PrivateScope`]), whatever made them; [`Store::tightened`] says
//! what changed.
//!
//! Databases written by earlier releases' own binaries are kept in
//! `tests/fixtures/upgrade/` (see its README); `tests/store/upgrade/` checks that
//! each opens with everything after the migrations.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::Connection;

mod agents;
mod api_tokens;
mod approvals;
mod audit;
mod conversations;
mod login_sessions;
mod notes;
mod open;
mod private_files;
mod schema;
mod server_views;
mod usage;
mod users;

pub use agents::{EnrollError, EnrollOutcome, EnrolledAgent, Enrollment, NewEnrollmentToken};
pub use api_tokens::{ApiToken, NewApiToken};
pub use audit::{
    AnchorFile, AnchorSource, AuditAnchor, AuditEntry, AuditProblem, AuditVerification,
    ExportSummary, GENESIS_HASH, anchor_path, format_at, verify_audit_export,
};
pub use conversations::SessionSummary;
pub use login_sessions::LoginSession;
pub use notes::StoredNote;
pub use private_files::{
    PRIVATE_DIR, PRIVATE_FILE, PrivateScope, Tightened, database_files, private_mode,
    tighten_data_dir, tighten_database_files,
};
pub use server_views::{ApprovalFilter, ApprovalPeople, StoredMessage};
pub use usage::{UsageRow, UsageTotals};
pub use users::{PasswordChange, User};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database migration to schema version {version}: {source}")]
    Migration {
        version: usize,
        source: rusqlite::Error,
    },
    #[error(
        "the database has schema version {found}, newer than this Warden supports ({supported}): upgrade Warden"
    )]
    SchemaTooNew { found: u32, supported: u32 },
    #[error("{} is {what}, not a database file", path.display())]
    NotAFile { path: PathBuf, what: &'static str },
    #[error(
        "cannot create the database {}: the directory {} does not exist",
        path.display(),
        dir.display()
    )]
    MissingDirectory { path: PathBuf, dir: PathBuf },
    #[error(
        "cannot create the database {}: the directory {} is not writable",
        path.display(),
        dir.display()
    )]
    ReadOnlyDirectory { path: PathBuf, dir: PathBuf },
    #[error(
        "cannot open the database {} for writing ({detail}); Warden writes the file and creates its -wal and -shm files beside it, so {} must be writable",
        path.display(),
        dir.display()
    )]
    CannotWrite {
        path: PathBuf,
        dir: PathBuf,
        detail: String,
    },
    #[error("{} is not a Warden database (not an SQLite file)", path.display())]
    NotADatabase { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing the audit export: {0}")]
    Export(std::io::Error),
    #[error("audit head anchor {}: {reason}", path.display())]
    Anchor { path: PathBuf, reason: String },
    #[error(
        "the audit log does not match its head anchor, so nothing more is appended: {0}. Run `warden audit verify`; once the cause is known, `warden audit reanchor --reason TEXT` accepts the log as it is"
    )]
    AuditTampered(AuditProblem),
    #[error("`{0}` is not a decision: an approval is approved or denied")]
    NotADecision(warden_protocol::ApprovalState),
    #[error("time {0} ms cannot be written as a date")]
    BadTime(i64),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("the store lock is poisoned")]
    Poisoned,
}

pub type StoreResult<T> = Result<T, StoreError>;

/// SQLite integers are signed: counts and millisecond times past
/// `i64::MAX` (never in practice) saturate instead of wrapping.
pub(crate) fn sql_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// How long a writer waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The database. Cheap to share behind an `Arc`.
pub struct Store {
    conn: Mutex<Connection>,
    anchors: audit::Anchors,
    /// What opening made private (files earlier releases left readable).
    tightened: Vec<Tightened>,
}

impl Store {
    /// Open (creating if needed, 0600) and migrate the database at `path`.
    /// Its directory must exist. Any number of processes may open the same
    /// new database at once; one migrates, the others wait. The database's
    /// files are made private first ([`Store::tightened`] says what changed).
    pub fn open(path: &Path) -> StoreResult<Store> {
        Store::open_private(path, PrivateScope::DatabaseFiles)
    }

    /// [`Store::open`], making `scope` private first: the database's files,
    /// or the whole data directory they live in.
    pub fn open_private(path: &Path, scope: PrivateScope<'_>) -> StoreResult<Store> {
        let mut tightened = match scope {
            PrivateScope::DatabaseFiles => Vec::new(),
            PrivateScope::DataDirectory(dir) => tighten_data_dir(dir)?,
        };
        open::prepare_database_file(path)?;
        tightened.extend(tighten_database_files(path)?);
        let mut conn = Connection::open(path).map_err(|e| open::explain_open_error(path, e))?;
        // Before anything that may wait for another process.
        conn.busy_timeout(BUSY_TIMEOUT)?;
        set_wal(&conn).map_err(|e| open::explain_open_error(path, e))?;
        // A committed audit record must be on disk before its anchor is.
        conn.pragma_update(None, "synchronous", "FULL")?;
        let anchors = audit::Anchors::on_disk(path);
        schema::migrate(&mut conn, |tx, found| {
            audit::adopt_anchor(tx, &anchors, found)
        })
        .map_err(|e| match e {
            StoreError::Sqlite(inner) => open::explain_open_error(path, inner),
            other => other,
        })?;
        anchors.load_memory()?;
        Ok(Store {
            conn: Mutex::new(conn),
            anchors,
            tightened,
        })
    }

    /// The files and directories this open made private, with their modes
    /// before and after (empty when everything was private already).
    pub fn tightened(&self) -> &[Tightened] {
        &self.tightened
    }

    /// A private in-memory database (tests, one-shot runs); its audit head
    /// anchor lives in memory only.
    pub fn open_in_memory() -> StoreResult<Store> {
        let mut conn = Connection::open_in_memory()?;
        schema::migrate(&mut conn, |_, _| Ok(()))?;
        Ok(Store {
            conn: Mutex::new(conn),
            anchors: audit::Anchors::in_memory(),
            tightened: Vec::new(),
        })
    }

    fn conn(&self) -> StoreResult<MutexGuard<'_, Connection>> {
        self.conn.lock().map_err(|_| StoreError::Poisoned)
    }
}

/// WAL mode, waiting when several processes switch a new database at once
/// (the switch needs a lock the busy handler does not always wait for).
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0)) {
            Ok(_) => return Ok(()),
            Err(error)
                if error.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(error) => return Err(error),
        }
    }
}
