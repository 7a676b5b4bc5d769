//! Copies of the fixtures in temporary directories, and the checks every
//! fixture shares: today's schema version, the anchor file, new writes.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use warden_protocol::AuditRecord;
use warden_store::{Store, StoredNote, anchor_path};

/// A private copy of a fixture's files (the database and, when the release
/// kept one, its audit head anchor), so tests never change the originals.
pub struct Copy {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
}

pub fn copy_fixture(release: &str) -> Copy {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/upgrade")
        .join(release);
    let dir = tempfile::tempdir().unwrap();
    for name in ["warden.db", "warden.db.audit-head"] {
        let from = source.join(name);
        if from.exists() {
            std::fs::copy(&from, dir.path().join(name)).unwrap();
        }
    }
    // The fixtures were checkpointed: everything is in the file.
    let path = dir.path().join("warden.db");
    assert!(path.exists(), "fixture {release} has no warden.db");
    Copy { _dir: dir, path }
}

pub fn user_version(path: &Path) -> u32 {
    Connection::open(path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

/// The schema version a database created by today's store has.
pub fn todays_schema_version() -> u32 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    drop(Store::open(&path).unwrap());
    user_version(&path)
}

/// The anchor file beside `database`: (records, head_seq, head_hash).
pub fn anchor_file(database: &Path) -> (u64, u64, String) {
    let text = std::fs::read_to_string(anchor_path(database)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    (
        json["records"].as_u64().unwrap(),
        json["head_seq"].as_u64().unwrap(),
        json["head_hash"].as_str().unwrap().to_string(),
    )
}

/// Rows in `table`, straight from SQLite (for tables the store has no
/// listing of).
pub fn count(path: &Path, table: &str) -> u64 {
    Connection::open(path)
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| u64::try_from(n).unwrap())
        .unwrap()
}

/// The one value `sql` selects, as text.
pub fn text(path: &Path, sql: &str) -> String {
    Connection::open(path)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

/// Later than anything in the fixtures.
pub const NOW_MS: u64 = 1_800_000_000_000;

/// What the upgraded database holds before the new writes.
pub struct Before {
    pub sessions: usize,
    pub notes: usize,
    pub audit_records: u64,
    pub audit_head_hash: String,
}

/// The upgraded database takes new writes (a session with messages, a
/// note, an audit record chained to the old head) and keeps them, and the
/// chain still verifies, in this process and after reopening.
pub fn takes_new_writes(store: Store, path: &Path, before: &Before) {
    store
        .append_messages(
            "s-after-upgrade",
            &[
                r#"{"role":"user","text":"disk usage"}"#.to_string(),
                r#"{"role":"assistant","text":"fine","tool_calls":[]}"#.to_string(),
            ],
            Some("disk usage"),
            NOW_MS,
        )
        .unwrap();
    store
        .add_note(&StoredNote {
            target: Some("host:web1".into()),
            text: "written after the upgrade".into(),
            at_ms: NOW_MS,
        })
        .unwrap();
    let record = AuditRecord {
        session_id: "s-after-upgrade".into(),
        actor: "assistant".into(),
        tool: "read".into(),
        target: Some("host:web1".into()),
        decision: "allowed".into(),
        code: None,
        command: "df -h".into(),
        reason: None,
        duration_ms: 3,
    };
    let appended = store.append_audit(&record, NOW_MS).unwrap();
    let next = before.audit_records + 1;
    assert_eq!(appended.seq, next);
    assert_eq!(appended.prev_hash, before.audit_head_hash);
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!((report.records, report.head_seq), (next, next));
    assert_eq!(report.head_hash, appended.hash);
    drop(store);

    // Another process later: everything is still there.
    let store = Store::open(path).unwrap();
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.records, next);
    assert_eq!(anchor_file(path), (next, next, appended.hash.clone()));
    let sessions = store.sessions(1000).unwrap();
    assert_eq!(sessions.len(), before.sessions + 1);
    assert_eq!(sessions[0].id, "s-after-upgrade");
    assert_eq!(sessions[0].messages, 2);
    assert_eq!(store.messages("s-after-upgrade").unwrap().len(), 2);
    let notes = store.notes().unwrap();
    assert_eq!(notes.len(), before.notes + 1);
    assert_eq!(notes[0].text, "written after the upgrade");
    assert_eq!(store.audit_tail(1).unwrap()[0].record, record);
}
