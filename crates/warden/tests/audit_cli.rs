//! The audit log end to end: replays write it, `warden audit verify` checks
//! the chain, and an edit behind Warden's back is detected.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn warden(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .output()
        .expect("run warden")
}

fn shared_scenarios() -> PathBuf {
    std::env::var_os("WARDEN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
        .join("scenarios")
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn replays_are_audited_and_tampering_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("warden.db");
    let replay = warden(&[
        "replay",
        path_str(&shared_scenarios()),
        "--db",
        path_str(&db),
    ]);
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );

    let verify = warden(&["audit", "verify", "--db", path_str(&db)]);
    assert!(verify.status.success());
    assert!(String::from_utf8_lossy(&verify.stdout).contains("intact"));

    let tail = warden(&["audit", "tail", "-n", "3", "--json", "--db", path_str(&db)]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&tail.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);

    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE audit SET record = replace(record, 'blocked', 'executed') WHERE seq = (SELECT max(seq) FROM audit WHERE record LIKE '%blocked%')", []).unwrap();
    drop(conn);
    let verify = warden(&["audit", "verify", "--db", path_str(&db)]);
    assert_eq!(verify.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&verify.stdout).contains("TAMPERED"));
}

#[test]
fn pending_approvals_are_listed_and_decided_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("warden.db");
    let scenario =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/12-approval-pending.yaml");
    assert!(
        warden(&["replay", path_str(&scenario), "--db", path_str(&db)])
            .status
            .success()
    );
    let list = warden(&["approvals", "list", "--json", "--db", path_str(&db)]);
    let pending: Vec<serde_json::Value> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["command"], "pct reboot '141'");
    let id = pending[0]["id"].as_str().unwrap();
    let deny = warden(&[
        "approvals",
        "deny",
        id,
        "--reason",
        "not now",
        "--db",
        path_str(&db),
    ]);
    assert!(deny.status.success());
    let approve = warden(&["approvals", "approve", id, "--db", path_str(&db)]);
    assert_eq!(approve.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&approve.stderr).contains("already denied"));
    let list = warden(&["approvals", "list", "--db", path_str(&db)]);
    assert!(String::from_utf8_lossy(&list.stdout).contains("no pending approvals"));
}
