//! Warden's persistence: one SQLite database (WAL mode) with migrations,
//! holding durable approvals, the hash-chained audit log, conversation
//! history, token usage and notes. Writes happen
//! in transactions, so a process killed mid-write leaves the previous state.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

mod api_tokens;
mod approvals;
mod audit;
mod conversations;
mod login_sessions;
mod notes;
mod server_views;
mod usage;
mod users;

pub use api_tokens::{ApiToken, NewApiToken};
pub use audit::{AuditBreak, AuditEntry};
pub use conversations::SessionSummary;
pub use login_sessions::LoginSession;
pub use notes::StoredNote;
pub use server_views::{ApprovalFilter, ApprovalPeople, StoredMessage};
pub use usage::{UsageRow, UsageTotals};
pub use users::User;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database migration: {0}")]
    Migration(#[from] rusqlite_migration::Error),
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

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(
            "CREATE TABLE approvals (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            tool TEXT NOT NULL,
            target TEXT NOT NULL,
            arguments_hash TEXT NOT NULL,
            arguments TEXT NOT NULL,
            command TEXT NOT NULL,
            risk TEXT NOT NULL,
            description TEXT NOT NULL,
            created_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER NOT NULL,
            state TEXT NOT NULL,
            reason TEXT
        );
        CREATE INDEX approvals_by_session ON approvals(session_id);
        CREATE TABLE audit (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            at_ms INTEGER NOT NULL,
            record TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );",
        ),
        M::up(
            "CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            created_at_ms INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL,
            title TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE messages (
            session_id TEXT NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            at_ms INTEGER NOT NULL,
            message TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        );
        CREATE TABLE usage (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            input_tokens INTEGER NOT NULL,
            output_tokens INTEGER NOT NULL,
            cost_usd REAL,
            at_ms INTEGER NOT NULL
        );
        CREATE INDEX usage_by_session ON usage(session_id);
        CREATE TABLE notes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            target TEXT,
            note TEXT NOT NULL,
            at_ms INTEGER NOT NULL
        );",
        ),
        // The server's people: users (argon2id hashes), API tokens (SHA-256
        // of the secret), browser login sessions (SHA-256 of the cookie),
        // and who asked for and who decided each approval.
        M::up(
            "CREATE TABLE users (
            username TEXT PRIMARY KEY,
            role TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            created_at_ms INTEGER NOT NULL,
            password_changed_at_ms INTEGER NOT NULL
        );
        CREATE TABLE api_tokens (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            role TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            created_by TEXT,
            created_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER,
            revoked_at_ms INTEGER,
            last_used_at_ms INTEGER
        );
        CREATE TABLE login_sessions (
            id_hash TEXT PRIMARY KEY,
            username TEXT NOT NULL,
            csrf_token TEXT NOT NULL,
            created_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER NOT NULL
        );
        CREATE INDEX login_sessions_by_user ON login_sessions(username);
        CREATE TABLE approval_people (
            approval_id TEXT PRIMARY KEY,
            requested_by TEXT,
            decided_by TEXT,
            decided_at_ms INTEGER,
            expired_at_ms INTEGER
        );",
        ),
    ])
}

/// The database. Cheap to share behind an `Arc`.
pub struct Store {
    conn: Mutex<Connection>,
}

impl Store {
    /// Open (creating if needed) and migrate the database at `path`.
    pub fn open(path: &Path) -> StoreResult<Store> {
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrations().to_latest(&mut conn)?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    /// A private in-memory database (tests, one-shot runs).
    pub fn open_in_memory() -> StoreResult<Store> {
        let mut conn = Connection::open_in_memory()?;
        migrations().to_latest(&mut conn)?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> StoreResult<MutexGuard<'_, Connection>> {
        self.conn.lock().map_err(|_| StoreError::Poisoned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }
}
