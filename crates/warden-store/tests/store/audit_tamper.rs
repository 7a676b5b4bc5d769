//! The audit log against someone with write access to the database: every
//! edit, deletion, truncation, reordering and re-creation is reported with
//! the record where the log stops being trustworthy, and appends stop.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use warden_protocol::AuditRecord;
use warden_store::{AuditProblem, AuditVerification, GENESIS_HASH, Store, StoreError, anchor_path};

fn record(i: u64) -> AuditRecord {
    AuditRecord {
        session_id: format!("session-{}", i % 3),
        actor: "assistant".into(),
        tool: "read".into(),
        target: Some("host:web1".into()),
        decision: if i % 2 == 0 { "allowed" } else { "executed" }.into(),
        code: (i % 4 == 0).then(|| "READ_ONLY_VIOLATION".to_string()),
        command: format!("cat /var/log/app-{i}.log"),
        reason: (i % 5 == 0).then(|| "because".to_string()),
        duration_ms: i * 7,
    }
}

struct Log {
    _dir: tempfile::TempDir,
    path: PathBuf,
    store: Store,
}

/// A database with `n` records, at times 1 s apart.
fn log_with(n: u64) -> Log {
    log_from(n, 1_790_000_000_000)
}

/// A database with `n` records, 1 s apart from `start_ms` on.
fn log_from(n: u64, start_ms: u64) -> Log {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("warden.db");
    let store = Store::open(&path).unwrap();
    for i in 1..=n {
        store.append_audit(&record(i), start_ms + i * 1000).unwrap();
    }
    Log {
        _dir: dir,
        path,
        store,
    }
}

impl Log {
    fn sql(&self, statement: &str) {
        Connection::open(&self.path)
            .unwrap()
            .execute_batch(statement)
            .unwrap();
    }

    /// What a new process (the CLI) sees: only the anchor file.
    fn verify_fresh(&self) -> AuditVerification {
        Store::open(&self.path).unwrap().verify_audit().unwrap()
    }

    /// What the running process (the server) sees: the file and its memory.
    fn verify_running(&self) -> AuditVerification {
        self.store.verify_audit().unwrap()
    }

    fn append_is_refused(&self) -> AuditProblem {
        match self.store.append_audit(&record(99), 1_800_000_000_000) {
            Err(StoreError::AuditTampered(problem)) => problem,
            other => panic!("append should be refused: {other:?}"),
        }
    }

    fn anchor_text(&self) -> String {
        std::fs::read_to_string(anchor_path(&self.path)).unwrap()
    }

    fn set_anchor_text(&self, text: &str) {
        std::fs::write(anchor_path(&self.path), text).unwrap();
    }
}

fn broken_at(report: &AuditVerification, seq: u64) -> &AuditProblem {
    assert!(!report.intact, "should be broken at {seq}: {report:?}");
    assert_eq!(report.at_seq, Some(seq), "{report:?}");
    report.problem.as_ref().unwrap()
}

#[test]
fn an_untouched_log_verifies_with_its_anchor() {
    let log = log_with(10);
    for report in [log.verify_running(), log.verify_fresh()] {
        assert!(report.intact, "{report:?}");
        assert_eq!(report.records, 10);
        assert_eq!(report.head_seq, 10);
        assert_eq!(report.anchor_lag, 0);
        assert_eq!(report.problem, None);
        assert_eq!(report.head_hash, log.store.audit_tail(1).unwrap()[0].hash);
    }
    let anchor: serde_json::Value = serde_json::from_str(&log.anchor_text()).unwrap();
    assert_eq!(anchor["records"], 10);
    assert_eq!(anchor["head_seq"], 10);
    assert_eq!(
        serde_json::to_value(log.verify_fresh()).unwrap(),
        serde_json::json!({
            "intact": true,
            "records": 10,
            "head_hash": anchor["head_hash"],
            "head_seq": 10
        })
    );
}

#[test]
fn an_empty_log_verifies() {
    let log = log_with(0);
    let report = log.verify_fresh();
    assert!(report.intact);
    assert_eq!(
        (report.records, report.head_hash.as_str()),
        (0, GENESIS_HASH)
    );
}

#[test]
fn records_chain_and_page_in_order() {
    let log = log_with(6);
    let page = log.store.audit_page(3, 2).unwrap();
    assert_eq!(page.iter().map(|e| e.seq).collect::<Vec<_>>(), [4, 5]);
    assert_eq!(page[1].prev_hash, page[0].hash);
    assert_eq!(page[0].record, record(4));
    assert_eq!(page[0].at, "2026-09-21T14:13:24.000Z");
    assert!(log.store.audit_page(6, 10).unwrap().is_empty());
    let tail = log.store.audit_tail(2).unwrap();
    assert_eq!(tail.iter().map(|e| e.seq).collect::<Vec<_>>(), [5, 6]);
}

#[test]
fn deleting_the_newest_records_is_truncation() {
    for deleted in 1..=3u64 {
        let log = log_with(10);
        log.sql(&format!("DELETE FROM audit WHERE seq > {}", 10 - deleted));
        for report in [log.verify_fresh(), log.verify_running()] {
            let problem = broken_at(&report, 10 - deleted + 1);
            assert!(
                matches!(problem, AuditProblem::Truncated { last_seq, head_seq: 10, .. } if *last_seq == 10 - deleted),
                "{problem:?}"
            );
            assert!(
                problem
                    .to_string()
                    .contains(&format!("the newest {deleted} records were deleted")),
                "{problem}"
            );
        }
        assert!(matches!(
            log.append_is_refused(),
            AuditProblem::Truncated { .. }
        ));
        assert_eq!(
            log.verify_fresh().records,
            10 - deleted,
            "a refused append writes nothing"
        );
    }
}

#[test]
fn deleting_a_middle_record_is_a_gap() {
    let log = log_with(10);
    log.sql("DELETE FROM audit WHERE seq = 4");
    let report = log.verify_fresh();
    let problem = broken_at(&report, 4);
    assert_eq!(problem, &AuditProblem::Missing { first: 4, last: 4 });
    assert_eq!(
        problem.to_string(),
        "record 4 is missing (a gap in the sequence numbers)"
    );
    assert_eq!(report.records, 9);

    log.sql("DELETE FROM audit WHERE seq IN (5, 6)");
    let report = log.verify_fresh();
    assert_eq!(
        broken_at(&report, 4).to_string(),
        "records 4 to 6 are missing (a gap in the sequence numbers)"
    );
}

#[test]
fn deleting_the_first_record_is_a_gap() {
    let log = log_with(5);
    log.sql("DELETE FROM audit WHERE seq = 1");
    assert_eq!(
        broken_at(&log.verify_fresh(), 1),
        &AuditProblem::Missing { first: 1, last: 1 }
    );
}

#[test]
fn editing_any_field_is_detected() {
    let edits = [
        ("at_ms", "at_ms = at_ms + 1"),
        ("session_id", "session_id = 'other'"),
        ("actor", "actor = 'user:mallory'"),
        ("tool", "tool = 'control'"),
        ("target", "target = 'host:db1'"),
        ("target (removed)", "target = NULL"),
        ("decision", "decision = 'denied'"),
        ("code", "code = 'APPROVAL_DENIED'"),
        ("command", "command = 'true'"),
        ("reason", "reason = 'nothing to see'"),
        ("duration_ms", "duration_ms = 0"),
        ("prev_hash", "prev_hash = hash"),
        ("hash", "hash = prev_hash"),
        ("legacy_record", "legacy_record = '{\"session_id\":\"x\"}'"),
    ];
    for (field, assignment) in edits {
        let log = log_with(6);
        log.sql(&format!("UPDATE audit SET {assignment} WHERE seq = 3"));
        let report = log.verify_fresh();
        assert!(!report.intact, "editing {field} went unnoticed");
        assert_eq!(report.at_seq, Some(3), "editing {field}: {report:?}");
    }
}

/// The documented recipe: SHA-256 of prev_hash followed by the canonical
/// JSON (sorted keys, no whitespace) of every field but prev_hash and hash.
fn documented_hash(entry: &warden_store::AuditEntry) -> String {
    let mut fields = serde_json::to_value(entry).unwrap();
    let object = fields.as_object_mut().unwrap();
    object.remove("hash");
    object.remove("prev_hash");
    let sorted: std::collections::BTreeMap<_, _> = object.clone().into_iter().collect();
    sha256_hex(&format!(
        "{}{}",
        entry.prev_hash,
        serde_json::to_string(&sorted).unwrap()
    ))
}

#[test]
fn a_consistent_rewrite_of_a_record_breaks_the_next_link() {
    let log = log_with(6);
    let entries = log.store.audit_page(0, 10).unwrap();
    for entry in &entries {
        assert_eq!(
            documented_hash(entry),
            entry.hash,
            "the recipe is the real one"
        );
    }
    // Edit record 3 and give it a correct hash of its own: record 4 still
    // names the old one.
    let mut forged = entries[2].clone();
    forged.record.command = "true".into();
    let rehashed = documented_hash(&forged);
    log.sql(&format!(
        "UPDATE audit SET command = 'true', hash = '{rehashed}' WHERE seq = 3"
    ));
    assert_eq!(
        broken_at(&log.verify_fresh(), 4),
        &AuditProblem::BrokenLink { seq: 4 }
    );
}

fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn renumbering_a_record_is_detected() {
    let log = log_with(6);
    log.sql("UPDATE audit SET seq = 100 WHERE seq = 6");
    assert!(!log.verify_fresh().intact);
    let log = log_with(6);
    log.sql("UPDATE audit SET seq = 100 WHERE seq = 3");
    assert_eq!(
        broken_at(&log.verify_fresh(), 3),
        &AuditProblem::Missing { first: 3, last: 3 }
    );
}

#[test]
fn reordering_records_is_detected() {
    let log = log_with(8);
    // Swap records 4 and 5, sequence numbers and all.
    log.sql(
        "UPDATE audit SET seq = -4 WHERE seq = 4;
         UPDATE audit SET seq = 4 WHERE seq = 5;
         UPDATE audit SET seq = 5 WHERE seq = -4;",
    );
    assert_eq!(
        broken_at(&log.verify_fresh(), 4),
        &AuditProblem::Altered { seq: 4 }
    );
}

#[test]
fn emptying_the_table_is_detected_and_stops_appends() {
    let log = log_with(7);
    log.sql("DELETE FROM audit");
    for report in [log.verify_fresh(), log.verify_running()] {
        let problem = broken_at(&report, 1);
        assert!(
            matches!(
                problem,
                AuditProblem::Emptied {
                    records: 7,
                    head_seq: 7,
                    ..
                }
            ),
            "{problem:?}"
        );
        assert!(
            problem
                .to_string()
                .contains("emptied or the database re-created")
        );
    }
    assert!(matches!(
        log.append_is_refused(),
        AuditProblem::Emptied { .. }
    ));
}

fn remove_database(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_os_string();
        file.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(file));
    }
}

#[test]
fn re_creating_the_database_is_detected() {
    let log = log_with(5);
    let Log { _dir, path, store } = log;
    drop(store);
    remove_database(&path);
    let store = Store::open(&path).unwrap();
    let report = store.verify_audit().unwrap();
    assert!(matches!(
        broken_at(&report, 1),
        AuditProblem::Emptied { records: 5, .. }
    ));
    assert!(matches!(
        store.append_audit(&record(1), 1),
        Err(StoreError::AuditTampered(AuditProblem::Emptied { .. }))
    ));
}

#[test]
fn another_database_in_its_place_is_detected() {
    let log = log_with(5);
    let other = log_from(8, 1_700_000_000_000);
    let Log { _dir, path, store } = log;
    drop(store);
    remove_database(&path);
    // Closing the last connection folds the WAL into the file.
    let Log {
        _dir: _other_dir,
        path: other_path,
        store: other_store,
    } = other;
    drop(other_store);
    std::fs::copy(&other_path, &path).unwrap();
    let report = Store::open(&path).unwrap().verify_audit().unwrap();
    assert!(
        matches!(broken_at(&report, 5), AuditProblem::Diverged { seq: 5, .. }),
        "{report:?}"
    );
}

#[test]
fn a_missing_anchor_is_reported_not_recreated() {
    let log = log_with(4);
    std::fs::remove_file(anchor_path(&log.path)).unwrap();
    let fresh = Store::open(&log.path).unwrap();
    let report = fresh.verify_audit().unwrap();
    assert!(!report.intact);
    assert_eq!(report.at_seq, None);
    assert!(
        matches!(
            report.problem,
            Some(AuditProblem::AnchorMissing { records: 4, .. })
        ),
        "{report:?}"
    );
    assert!(
        !anchor_path(&log.path).exists(),
        "opening and verifying do not re-create it"
    );
    assert!(matches!(
        fresh.append_audit(&record(5), 5),
        Err(StoreError::AuditTampered(
            AuditProblem::AnchorMissing { .. }
        ))
    ));
    assert!(
        !anchor_path(&log.path).exists(),
        "nor does a refused append"
    );

    // An operator accepts the log as it is; that is audited.
    let entry = fresh
        .reanchor_audit("user:alice", "moved the database from the old server", 6)
        .unwrap();
    assert_eq!(entry.seq, 5);
    assert_eq!(entry.record.actor, "user:alice");
    assert_eq!(entry.record.decision, "anchor_reset");
    let reason = entry.record.reason.unwrap();
    assert!(
        reason.contains("moved the database") && reason.contains("no anchor file"),
        "{reason}"
    );
    let report = log.verify_fresh();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.records, 5);
    fresh.append_audit(&record(6), 7).unwrap();
}

#[test]
fn a_garbled_anchor_is_reported_and_kept() {
    let log = log_with(3);
    log.set_anchor_text("not json");
    let report = log.verify_fresh();
    assert!(matches!(
        report.problem,
        Some(AuditProblem::AnchorUnreadable { .. })
    ));
    assert!(matches!(
        log.append_is_refused(),
        AuditProblem::AnchorUnreadable { .. }
    ));
    assert_eq!(log.anchor_text(), "not json", "evidence is left as found");
}

#[test]
fn an_anchor_from_another_log_is_detected() {
    let log = log_with(5);
    let other = log_from(5, 1_700_000_000_000);
    log.set_anchor_text(&other.anchor_text());
    let report = log.verify_fresh();
    assert!(matches!(
        broken_at(&report, 5),
        AuditProblem::Diverged { seq: 5, .. }
    ));
    assert!(matches!(
        log.append_is_refused(),
        AuditProblem::Diverged { .. }
    ));
}

#[test]
fn the_running_process_catches_a_truncation_hidden_by_an_older_anchor() {
    let log = log_with(5);
    let at_five = log.anchor_text();
    for i in 6..=8 {
        log.store.append_audit(&record(i), i).unwrap();
    }
    // Truncate back to 5 and put the matching older anchor file back.
    log.sql("DELETE FROM audit WHERE seq > 5");
    log.set_anchor_text(&at_five);
    let report = log.verify_running();
    assert!(!report.intact);
    assert_eq!(
        report.problem,
        Some(AuditProblem::AnchorRegressed {
            file_seq: 5,
            memory_seq: 8
        })
    );
    assert!(matches!(
        log.append_is_refused(),
        AuditProblem::AnchorRegressed { .. }
    ));
    // A new process has only the file to go by: this one is undetectable
    // without the server's memory (documented limitation).
    assert!(log.verify_fresh().intact);
}

#[test]
fn an_anchor_one_record_behind_is_lag_and_is_repaired() {
    // The state a writer killed between its commit and its anchor update leaves.
    let log = log_with(5);
    let at_five = log.anchor_text();
    log.store.append_audit(&record(6), 6).unwrap();
    drop(log.store);
    let log = Log {
        store: Store::open(&log.path).unwrap(),
        ..log
    };
    log.set_anchor_text(&at_five);
    let fresh = Store::open(&log.path).unwrap();
    let report = fresh.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!((report.records, report.anchor_lag), (6, 1));
    let anchor: serde_json::Value = serde_json::from_str(&log.anchor_text()).unwrap();
    assert_eq!(anchor["head_seq"], 6, "moved up to the chained record");
    assert_eq!(anchor["records"], 6);
    assert_eq!(log.verify_fresh().anchor_lag, 0);
}

#[test]
fn appends_carry_on_after_a_lagging_anchor() {
    let log = log_with(5);
    let at_five = log.anchor_text();
    log.store.append_audit(&record(6), 6).unwrap();
    log.set_anchor_text(&at_five);
    let fresh = Store::open(&log.path).unwrap();
    let seventh = fresh.append_audit(&record(7), 7).unwrap();
    assert_eq!(seventh.seq, 7);
    let report = log.verify_fresh();
    assert!(report.intact && report.anchor_lag == 0, "{report:?}");
    let anchor: serde_json::Value = serde_json::from_str(&log.anchor_text()).unwrap();
    assert_eq!(
        (anchor["head_seq"].as_u64(), anchor["records"].as_u64()),
        (Some(7), Some(7))
    );
}

#[test]
fn a_record_after_the_anchor_that_does_not_chain_is_not_lag() {
    let log = log_with(5);
    let at_five = log.anchor_text();
    log.store.append_audit(&record(6), 6).unwrap();
    log.set_anchor_text(&at_five);
    log.sql("UPDATE audit SET command = 'true' WHERE seq = 6");
    let fresh = Store::open(&log.path).unwrap();
    assert_eq!(
        broken_at(&fresh.verify_audit().unwrap(), 6),
        &AuditProblem::Altered { seq: 6 }
    );
    assert!(matches!(
        fresh.append_audit(&record(7), 7),
        Err(StoreError::AuditTampered(AuditProblem::Altered { seq: 6 }))
    ));
    let anchor: serde_json::Value = serde_json::from_str(&log.anchor_text()).unwrap();
    assert_eq!(anchor["head_seq"], 5, "not moved over a bad record");
}

#[test]
fn an_in_memory_store_anchors_in_memory() {
    let store = Store::open_in_memory().unwrap();
    for i in 1..=3 {
        store.append_audit(&record(i), i).unwrap();
    }
    assert!(store.verify_audit().unwrap().intact);
}
