//! Schema migrations, applied in one IMMEDIATE transaction: the first
//! process to take the write lock migrates, the others wait for it (busy
//! timeout) and then find nothing left to do, so any number of processes
//! can open a new database at once.

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::{StoreError, StoreResult};

/// Schema version 1: approvals and the first audit table.
const V1: &str = "CREATE TABLE approvals (
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
);";

/// Schema version 2: conversations, usage and notes.
const V2: &str = "CREATE TABLE sessions (
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
);";

/// Schema version 3: one column per audit field (the hash covers them all,
/// seq and time included); records from before keep the exact text their
/// older hash covers in `legacy_record`, so they still verify. Approvals
/// record who decided and when.
const V3: &str = "ALTER TABLE audit RENAME TO audit_v1;
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    tool TEXT NOT NULL,
    target TEXT,
    decision TEXT NOT NULL,
    code TEXT,
    command TEXT NOT NULL,
    reason TEXT,
    duration_ms INTEGER NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    legacy_record TEXT
);
INSERT INTO audit (seq, at_ms, session_id, actor, tool, target, decision, code,
                   command, reason, duration_ms, prev_hash, hash, legacy_record)
SELECT seq, at_ms,
       COALESCE(json_extract(j, '$.session_id'), ''),
       'unknown',
       COALESCE(json_extract(j, '$.tool'), ''),
       json_extract(j, '$.target'),
       COALESCE(json_extract(j, '$.decision'), ''),
       json_extract(j, '$.code'),
       COALESCE(json_extract(j, '$.summary'), ''),
       NULL,
       COALESCE(json_extract(j, '$.duration_ms'), 0),
       prev_hash, hash, record
FROM (SELECT *, CASE WHEN json_valid(record) THEN record ELSE '{}' END AS j FROM audit_v1);
DROP TABLE audit_v1;
ALTER TABLE approvals ADD COLUMN decided_by TEXT;
ALTER TABLE approvals ADD COLUMN decided_at_ms INTEGER;
CREATE INDEX approvals_by_state ON approvals(state);";

/// Schema version 4: the server's people: users (argon2id hashes), API
/// tokens (SHA-256 of the secret), browser login sessions (SHA-256 of the
/// cookie), and who asked for each approval.
const V4: &str = "CREATE TABLE users (
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
);";

/// Schema version 5: host agents (spec/agent.md). Enrolled agents with
/// their Ed25519 public key (a name is unique among agents not revoked, so
/// a rebuilt host can enroll again after its old key was revoked);
/// enrollment tokens as the SHA-256 of the secret with the uses left; and
/// the server's own secrets (its grant-signing key), kept in this 0600 file.
const V5: &str = "CREATE TABLE agents (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    public_key TEXT NOT NULL,
    version TEXT NOT NULL,
    os TEXT NOT NULL,
    arch TEXT NOT NULL,
    enrolled_at_ms INTEGER NOT NULL,
    last_seen_ms INTEGER,
    revoked_at_ms INTEGER
);
CREATE UNIQUE INDEX agents_live_name ON agents(name) WHERE revoked_at_ms IS NULL;
CREATE TABLE enrollment_tokens (
    token_hash TEXT PRIMARY KEY,
    uses_left INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    created_by TEXT,
    created_at_ms INTEGER NOT NULL
);
CREATE TABLE server_secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL,
    created_at_ms INTEGER NOT NULL
);";

/// Schema version 6: the snapshot an approval offered before a change to a
/// Proxmox guest (JSON), so the card shows it after a restart too.
const V6: &str = "ALTER TABLE approvals ADD COLUMN snapshot TEXT;";

/// Schema version 7: people, not credentials. A token belongs to a person
/// (`owner`, an actor such as `user:alice`): a token an admin made through
/// the API was recorded with the admin's user name, so it is theirs; one
/// made offline before owners existed has none and stands for itself. A
/// user with a one-time password must set a new one before anything else.
const V7: &str = "ALTER TABLE api_tokens ADD COLUMN owner TEXT;
UPDATE api_tokens SET owner = 'user:' || created_by
 WHERE created_by IS NOT NULL AND created_by <> '' AND instr(created_by, ':') = 0;
ALTER TABLE users ADD COLUMN password_change_required INTEGER NOT NULL DEFAULT 0;";

/// Schema version 8: a file edit's file as it was when its approval was
/// asked for.
const V8: &str = "ALTER TABLE approvals ADD COLUMN file_before TEXT;";

const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7, V8];

/// The schema version this build writes.
pub(crate) const LATEST: u32 = 8;

/// Bring the database to [`LATEST`], then run `and_then` with the version
/// found, inside the same write transaction (so that, too, happens once).
pub(crate) fn migrate(
    conn: &mut Connection,
    and_then: impl FnOnce(&Transaction<'_>, u32) -> StoreResult<()>,
) -> StoreResult<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: u32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > LATEST {
        return Err(StoreError::SchemaTooNew {
            found,
            supported: LATEST,
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        tx.execute_batch(sql)
            .map_err(|source| StoreError::Migration {
                version: index + 1,
                source,
            })?;
    }
    if found < LATEST {
        tx.pragma_update(None, "user_version", LATEST)?;
    }
    and_then(&tx, found)?;
    tx.commit()?;
    Ok(())
}

/// Apply only the first `version` migrations (tests build older databases).
#[cfg(test)]
pub(crate) fn migrate_to(conn: &Connection, version: u32) -> StoreResult<()> {
    for sql in MIGRATIONS.iter().take(version as usize) {
        conn.execute_batch(sql)?;
    }
    conn.pragma_update(None, "user_version", version)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_build_the_latest_schema_and_are_idempotent() {
        assert_eq!(MIGRATIONS.len(), LATEST as usize);
        let mut conn = Connection::open_in_memory().unwrap();
        let mut seen = Vec::new();
        migrate(&mut conn, |_, found| {
            seen.push(found);
            Ok(())
        })
        .unwrap();
        migrate(&mut conn, |_, found| {
            seen.push(found);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [0, LATEST]);
        conn.prepare("SELECT decided_by, decided_at_ms, snapshot FROM approvals")
            .unwrap();
        conn.prepare("SELECT actor, command, reason, legacy_record FROM audit")
            .unwrap();
        conn.prepare("SELECT owner FROM api_tokens").unwrap();
        conn.prepare("SELECT password_change_required FROM users")
            .unwrap();
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", LATEST + 1)
            .unwrap();
        let error = migrate(&mut conn, |_, _| Ok(())).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("newer than this Warden supports"),
            "{error}"
        );
    }
}
