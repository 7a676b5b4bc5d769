//! `warden audit export` files checked offline: the same report as the
//! database gives, and every edit to the file caught.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use warden_protocol::AuditRecord;
use warden_store::{AuditProblem, AuditVerification, verify_audit_export};
use warden_testkit::fixtures::store::TempStore;

fn record(i: u64) -> AuditRecord {
    AuditRecord {
        session_id: "s1".into(),
        actor: if i == 3 { "user:alice" } else { "assistant" }.into(),
        tool: "control".into(),
        target: Some("lxc:pve1:141".into()),
        decision: "executed".into(),
        code: None,
        command: format!("systemctl restart app{i}"),
        reason: None,
        duration_ms: i,
    }
}

/// The export of a database with `n` records, as lines.
fn exported(n: u64) -> (Vec<String>, AuditVerification) {
    let temp = TempStore::new();
    let store = &temp.store;
    for i in 1..=n {
        store.append_audit(&record(i), 1_000 * i).unwrap();
    }
    let mut out = Vec::new();
    let summary = store.export_audit(&mut out).unwrap();
    assert_eq!(summary.records, n);
    let text = String::from_utf8(out).unwrap();
    (
        text.lines().map(str::to_string).collect(),
        store.verify_audit().unwrap(),
    )
}

fn check(lines: &[String]) -> AuditVerification {
    let text = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    verify_audit_export(text.as_bytes())
}

#[test]
fn an_export_verifies_offline_like_the_database() {
    let (lines, online) = exported(6);
    assert_eq!(lines.len(), 7, "a header and one line per record");
    let header: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(header["format"], "warden-audit-export");
    assert_eq!(header["anchor"]["records"], 6);
    assert_eq!(header["anchor"]["head_hash"], online.head_hash.as_str());
    let first: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    for key in [
        "seq",
        "at",
        "session_id",
        "actor",
        "tool",
        "target",
        "decision",
        "code",
        "command",
        "duration_ms",
        "prev_hash",
        "hash",
    ] {
        assert!(first.get(key).is_some(), "{key} missing from {first}");
    }
    let offline = check(&lines);
    assert_eq!(offline, online);
    assert!(offline.intact);
}

#[test]
fn an_empty_log_exports_and_verifies() {
    let (lines, _) = exported(0);
    assert_eq!(lines.len(), 1);
    assert!(check(&lines).intact);
}

#[test]
fn a_cut_off_export_is_truncation() {
    let (mut lines, _) = exported(6);
    lines.truncate(5);
    let report = check(&lines);
    assert!(!report.intact);
    assert_eq!(report.at_seq, Some(5));
    assert!(matches!(
        report.problem,
        Some(AuditProblem::Truncated {
            last_seq: 4,
            head_seq: 6,
            ..
        })
    ));
    assert!(
        report
            .problem
            .unwrap()
            .to_string()
            .contains("the export's head anchor")
    );
}

#[test]
fn an_edited_line_is_caught() {
    let (lines, _) = exported(6);
    for (field, value) in [
        ("actor", serde_json::json!("user:mallory")),
        ("command", serde_json::json!("true")),
        ("at", serde_json::json!("2030-01-01T00:00:00.000Z")),
        ("seq", serde_json::json!(33)),
        ("reason", serde_json::json!("ok")),
        ("duration_ms", serde_json::json!(0)),
        ("approved_by", serde_json::json!("the board")),
    ] {
        let mut edited = lines.clone();
        let mut line: serde_json::Value = serde_json::from_str(&edited[3]).unwrap();
        line[field] = value;
        edited[3] = line.to_string();
        let report = check(&edited);
        assert!(!report.intact, "editing {field} went unnoticed");
        assert_eq!(report.at_seq, Some(3), "editing {field}: {report:?}");
    }
    let mut without_reason = lines.clone();
    let mut line: serde_json::Value = serde_json::from_str(&without_reason[3]).unwrap();
    line.as_object_mut().unwrap().remove("reason");
    without_reason[3] = line.to_string();
    assert_eq!(
        check(&without_reason).problem,
        Some(AuditProblem::Altered { seq: 3 })
    );
}

#[test]
fn removed_or_swapped_lines_are_caught() {
    let (lines, _) = exported(6);
    let mut removed = lines.clone();
    removed.remove(3);
    assert_eq!(
        check(&removed).problem,
        Some(AuditProblem::Missing { first: 3, last: 3 })
    );
    let mut swapped = lines.clone();
    swapped.swap(3, 4);
    let report = check(&swapped);
    assert!(!report.intact);
    assert_eq!(report.at_seq, Some(3));
}

#[test]
fn a_missing_or_foreign_header_is_reported() {
    let (lines, _) = exported(3);
    let report = check(&lines[1..]);
    assert!(!report.intact);
    assert!(matches!(
        report.problem,
        Some(AuditProblem::BadExport { line: 1, .. })
    ));
    assert!(!check(&[]).intact);
    let mut no_anchor = lines.clone();
    no_anchor[0] = r#"{"format":"warden-audit-export","version":1,"anchor":null}"#.into();
    assert!(matches!(
        check(&no_anchor).problem,
        Some(AuditProblem::AnchorMissing { records: 3, .. })
    ));
    let mut garbage = lines;
    garbage[2] = "{not json".into();
    assert!(matches!(
        check(&garbage).problem,
        Some(AuditProblem::BadExport { line: 3, .. })
    ));
}
