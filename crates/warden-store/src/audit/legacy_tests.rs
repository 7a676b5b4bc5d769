//! Databases from before schema version 3 keep their records, which
//! still verify under their older hash.

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

use super::*;
use crate::{Store, schema};

fn old_hash(prev: &str, text: &str) -> String {
    Sha256::digest(format!("{prev}\n{text}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A version-2 database with the given record texts, chained the old way.
fn version_2_database(texts: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("warden.db");
    let conn = Connection::open(&path).unwrap();
    schema::migrate_to(&conn, 2).unwrap();
    let mut prev = GENESIS_HASH.to_string();
    for (i, text) in texts.iter().enumerate() {
        let hash = old_hash(&prev, text);
        conn.execute(
            "INSERT INTO audit (at_ms, record, prev_hash, hash) VALUES (?1, ?2, ?3, ?4)",
            params![1_000 * (i as i64 + 1), text, prev, hash],
        )
        .unwrap();
        prev = hash;
    }
    (dir, path)
}

const OLD: [&str; 3] = [
    r#"{"session_id":"s","tool":"read","target":"host:web1","decision":"allowed","code":null,"summary":"","duration_ms":0}"#,
    r#"{"session_id":"s","tool":"read","target":"host:web1","decision":"executed","code":null,"summary":"uptime","duration_ms":4}"#,
    r#"{"session_id":"s","tool":"control","target":null,"decision":"blocked","code":"POLICY_BLOCKED","summary":"read_only level","duration_ms":0}"#,
];

fn new_record() -> warden_protocol::AuditRecord {
    warden_protocol::AuditRecord {
        session_id: "s2".into(),
        actor: "assistant".into(),
        tool: "read".into(),
        target: None,
        decision: "allowed".into(),
        code: None,
        command: "df -h".into(),
        reason: None,
        duration_ms: 1,
    }
}

#[test]
fn old_records_are_kept_and_still_verify() {
    let (_dir, path) = version_2_database(&OLD);
    let store = Store::open(&path).unwrap();
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!((report.records, report.legacy_records), (3, 3));
    let entries = store.audit_page(0, 10).unwrap();
    assert_eq!(entries[1].record.command, "uptime");
    assert_eq!(entries[1].record.actor, "unknown");
    assert_eq!(entries[2].record.code.as_deref(), Some("POLICY_BLOCKED"));
    assert_eq!(entries[2].legacy_record.as_deref(), Some(OLD[2]));
    assert_eq!(entries[0].at, "1970-01-01T00:00:01.000Z");

    // Adopted once, at the upgrade: the anchor names the old head.
    let AnchorFile::Present { anchor, .. } = Anchors::on_disk(&path).read_file() else {
        panic!("the upgrade anchors the log");
    };
    assert_eq!((anchor.records, anchor.head_seq), (3, 3));

    let fourth = store.append_audit(&new_record(), 9_000).unwrap();
    assert_eq!(fourth.seq, 4);
    assert_eq!(fourth.prev_hash, entries[2].hash);
    let report = store.verify_audit().unwrap();
    assert!(report.intact && report.records == 4 && report.legacy_records == 3);

    let mut export = Vec::new();
    store.export_audit(&mut export).unwrap();
    let offline = verify_audit_export(export.as_slice());
    assert_eq!(offline, report);
}

#[test]
fn editing_an_old_record_is_detected() {
    for edit in [
        "UPDATE audit SET command = 'reboot' WHERE seq = 2",
        "UPDATE audit SET actor = 'user:alice' WHERE seq = 2",
        "UPDATE audit SET legacy_record = replace(legacy_record, 'uptime', 'reboot') WHERE seq = 2",
        "UPDATE audit SET legacy_record = NULL WHERE seq = 2",
    ] {
        let (_dir, path) = version_2_database(&OLD);
        let store = Store::open(&path).unwrap();
        Connection::open(&path).unwrap().execute(edit, []).unwrap();
        let report = store.verify_audit().unwrap();
        assert!(!report.intact, "{edit}");
        assert_eq!(report.at_seq, Some(2), "{edit}: {report:?}");
    }
}

#[test]
fn an_old_record_after_new_ones_is_a_rewrite() {
    let (_dir, path) = version_2_database(&OLD[..1]);
    let store = Store::open(&path).unwrap();
    store.append_audit(&new_record(), 5_000).unwrap();
    let third = store.append_audit(&new_record(), 6_000).unwrap();
    // Dress the third record up in the old format (whose hash covers
    // neither seq nor time), consistently: fields, text and hash.
    let text = r#"{"session_id":"s2","tool":"read","target":null,"decision":"allowed","code":null,"summary":"df -h","duration_ms":1}"#;
    let forged = old_hash(&third.prev_hash, text);
    Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE audit SET actor = 'unknown', legacy_record = ?1, hash = ?2 WHERE seq = 3",
            params![text, forged],
        )
        .unwrap();
    let report = store.verify_audit().unwrap();
    assert_eq!(
        report.problem,
        Some(AuditProblem::LegacyAfterCurrent { seq: 3 })
    );
}

#[test]
fn an_old_log_already_broken_is_reported_after_the_upgrade() {
    let (_dir, path) = version_2_database(&OLD);
    Connection::open(&path)
        .unwrap()
        .execute("DELETE FROM audit WHERE seq = 2", [])
        .unwrap();
    let report = Store::open(&path).unwrap().verify_audit().unwrap();
    assert_eq!(
        report.problem,
        Some(AuditProblem::Missing { first: 2, last: 2 })
    );
}

#[test]
fn an_unreadable_old_record_survives_the_upgrade_and_is_reported() {
    let (_dir, path) = version_2_database(&[OLD[0], "{not json", OLD[2]]);
    let store = Store::open(&path).unwrap();
    let report = store.verify_audit().unwrap();
    assert_eq!(report.at_seq, Some(2));
    assert!(
        matches!(
            report.problem,
            Some(AuditProblem::Unreadable { seq: 2, .. })
        ),
        "{report:?}"
    );
    assert_eq!(
        store.audit_page(1, 1).unwrap()[0].legacy_record.as_deref(),
        Some("{not json"),
        "kept as it was"
    );
}
