//! The audit log end to end: replays write it, `warden audit verify` checks
//! the chain and the anchor, exports verify offline, human decisions are
//! recorded, and an edit behind Warden's back is detected.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn warden(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .output()
        .expect("run warden")
}

/// `--json` output: one JSON array.
fn json_array(output: &Output) -> Vec<serde_json::Value> {
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name)
}

/// A database written by a replay of one scenario.
fn replayed(dir: &Path, name: &str) -> PathBuf {
    let db = dir.join("warden.db");
    let replay = warden(&["replay", path_str(&scenario(name)), "--db", path_str(&db)]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    db
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
    let lines = json_array(&tail);
    assert_eq!(lines.len(), 3);

    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE audit SET decision = 'executed' WHERE seq = (SELECT max(seq) FROM audit WHERE decision = 'blocked')", []).unwrap();
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
    let pending = json_array(&list);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["command"], "pct reboot 141");
    let id = pending[0]["id"].as_str().unwrap();
    let deny = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args([
            "approvals",
            "deny",
            id,
            "--reason",
            "not now",
            "--db",
            path_str(&db),
        ])
        .env("USER", "alice")
        .output()
        .unwrap();
    assert!(deny.status.success(), "{}", stderr(&deny));
    assert!(
        stdout(&deny).contains("denied by user:alice"),
        "{}",
        stdout(&deny)
    );
    let approve = warden(&["approvals", "approve", id, "--db", path_str(&db)]);
    assert_eq!(approve.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&approve.stderr).contains("already denied"));
    let list = warden(&["approvals", "list", "--db", path_str(&db)]);
    assert!(String::from_utf8_lossy(&list.stdout).contains("no pending approvals"));

    // Who, when and why are on the approval and in the audit log.
    let denied = warden(&[
        "approvals",
        "list",
        "--state",
        "denied",
        "--json",
        "--db",
        path_str(&db),
    ]);
    let denied = json_array(&denied).pop().unwrap();
    assert_eq!(denied["decided_by"], "user:alice");
    assert_eq!(denied["reason"], "not now");
    assert!(denied["decided_at_ms"].as_u64().unwrap() > 0);
    let tail = warden(&["audit", "tail", "-n", "1", "--json", "--db", path_str(&db)]);
    let last = json_array(&tail).pop().unwrap();
    assert_eq!(last["actor"], "user:alice");
    assert_eq!(last["decision"], "denied");
    assert_eq!(last["reason"], "not now");
    assert_eq!(last["command"], "pct reboot 141");
    assert_eq!(last["target"], "lxc:pve1:141");
    assert!(last["at"].as_str().unwrap().ends_with('Z'));
    let verify = warden(&["audit", "verify", "--db", path_str(&db)]);
    assert!(verify.status.success(), "{}", stdout(&verify));

    let bad_state = warden(&[
        "approvals",
        "list",
        "--state",
        "gone",
        "--db",
        path_str(&db),
    ]);
    assert_eq!(bad_state.status.code(), Some(2));
    assert!(
        stderr(&bad_state).contains("unknown approval state `gone`"),
        "{}",
        stderr(&bad_state)
    );
}

#[test]
fn approval_ids_are_128_random_bits() {
    let dir = tempfile::tempdir().unwrap();
    let db = replayed(dir.path(), "12-approval-pending.yaml");
    let again = warden(&[
        "replay",
        path_str(&scenario("12-approval-pending.yaml")),
        "--db",
        path_str(&db),
    ]);
    assert!(again.status.success());
    let list = warden(&["approvals", "list", "--json", "--db", path_str(&db)]);
    let ids: Vec<String> = json_array(&list)
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
    for id in ids {
        assert!(
            id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
            "{id}"
        );
    }
}

#[test]
fn an_export_verifies_offline_and_edits_to_it_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let db = replayed(dir.path(), "11-approval-denied.yaml");
    let export = dir.path().join("audit.jsonl");
    let exported = warden(&[
        "audit",
        "export",
        "--file",
        path_str(&export),
        "--db",
        path_str(&db),
    ]);
    assert!(exported.status.success(), "{}", stderr(&exported));
    assert!(stderr(&exported).contains("exported"));

    let online = warden(&["audit", "verify", "--json", "--db", path_str(&db)]);
    let offline = warden(&["audit", "verify", "--json", "--file", path_str(&export)]);
    assert!(offline.status.success(), "{}", stdout(&offline));
    let online: serde_json::Value = serde_json::from_str(stdout(&online).trim()).unwrap();
    let offline: serde_json::Value = serde_json::from_str(stdout(&offline).trim()).unwrap();
    assert_eq!(online, offline);
    assert_eq!(offline["intact"], true);
    assert!(offline["records"].as_u64().unwrap() >= 2);

    // Standard output carries the same export.
    let to_stdout = warden(&["audit", "export", "--db", path_str(&db)]);
    assert_eq!(
        stdout(&to_stdout),
        std::fs::read_to_string(&export).unwrap()
    );

    // An export is never overwritten.
    let again = warden(&[
        "audit",
        "export",
        "--file",
        path_str(&export),
        "--db",
        path_str(&db),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stdout(&to_stdout),
        std::fs::read_to_string(&export).unwrap()
    );

    let text = std::fs::read_to_string(&export).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[1]["decision"] = serde_json::json!("approved");
    let edited = dir.path().join("edited.jsonl");
    std::fs::write(
        &edited,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let verify = warden(&["audit", "verify", "--file", path_str(&edited)]);
    assert_eq!(verify.status.code(), Some(1));
    assert!(
        stdout(&verify).contains("AUDIT LOG TAMPERED: record 1 was altered"),
        "{}",
        stdout(&verify)
    );
}

#[test]
fn truncation_is_reported_with_the_first_missing_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = replayed(dir.path(), "11-approval-denied.yaml");
    let before = warden(&["audit", "verify", "--json", "--db", path_str(&db)]);
    let records =
        serde_json::from_str::<serde_json::Value>(stdout(&before).trim()).unwrap()["records"]
            .as_u64()
            .unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "DELETE FROM audit WHERE seq = (SELECT max(seq) FROM audit)",
        [],
    )
    .unwrap();
    drop(conn);
    let verify = warden(&["audit", "verify", "--json", "--db", path_str(&db)]);
    assert_eq!(verify.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(stdout(&verify).trim()).unwrap();
    assert_eq!(report["intact"], false);
    assert_eq!(report["records"].as_u64(), Some(records - 1));
    assert_eq!(report["at_seq"].as_u64(), Some(records));
    assert!(
        report["problem"]
            .as_str()
            .unwrap()
            .contains("the newest 1 records were deleted"),
        "{report}"
    );

    // Nothing more is written to a log that lost records.
    let replay = warden(&[
        "replay",
        path_str(&scenario("11-approval-denied.yaml")),
        "--db",
        path_str(&db),
    ]);
    let verify = warden(&["audit", "verify", "--json", "--db", path_str(&db)]);
    let after: serde_json::Value = serde_json::from_str(stdout(&verify).trim()).unwrap();
    assert_eq!(after["records"], report["records"], "{}", stdout(&replay));
}

#[test]
fn a_missing_anchor_is_reported_until_an_operator_reanchors() {
    let dir = tempfile::tempdir().unwrap();
    let db = replayed(dir.path(), "11-approval-denied.yaml");
    std::fs::remove_file(dir.path().join("warden.db.audit-head")).unwrap();
    let verify = warden(&["audit", "verify", "--db", path_str(&db)]);
    assert_eq!(verify.status.code(), Some(1));
    assert!(
        stdout(&verify).contains("is missing"),
        "{}",
        stdout(&verify)
    );
    assert!(!dir.path().join("warden.db.audit-head").exists());

    let reanchor = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args([
            "audit",
            "reanchor",
            "--reason",
            "restored from backup",
            "--db",
            path_str(&db),
        ])
        .env("USER", "bob")
        .output()
        .unwrap();
    assert!(reanchor.status.success(), "{}", stderr(&reanchor));
    let verify = warden(&["audit", "verify", "--db", path_str(&db)]);
    assert!(verify.status.success(), "{}", stdout(&verify));
    let tail = warden(&["audit", "tail", "-n", "1", "--json", "--db", path_str(&db)]);
    let last = json_array(&tail).pop().unwrap();
    assert_eq!(last["actor"], "user:bob");
    assert_eq!(last["decision"], "anchor_reset");
    assert!(
        last["reason"]
            .as_str()
            .unwrap()
            .starts_with("restored from backup")
    );
}

#[test]
fn paths_that_cannot_be_databases_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/warden.db");
    for (db, expected) in [
        (path_str(&missing).to_string(), "does not exist".to_string()),
        (
            "/dev/null".to_string(),
            "/dev/null is a character device, not a database file".to_string(),
        ),
        (
            path_str(dir.path()).to_string(),
            format!(
                "{} is a directory, not a database file",
                dir.path().display()
            ),
        ),
    ] {
        let verify = warden(&["audit", "verify", "--db", &db]);
        assert_eq!(verify.status.code(), Some(2), "{db}");
        assert!(
            stderr(&verify).contains(&expected),
            "{db}: {}",
            stderr(&verify)
        );
    }
    assert!(
        !dir.path().join("no").exists(),
        "--db never creates directories"
    );
}

#[test]
fn the_default_location_is_created_private() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let verify = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["audit", "verify"])
        .env("HOME", home.path())
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("WARDEN_DB")
        .env_remove("WARDEN_CONFIG")
        .output()
        .unwrap();
    assert!(verify.status.success(), "{}", stderr(&verify));
    let dir = home.path().join(".local/share/warden");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("warden.db")), 0o600);
    assert_eq!(mode(&dir.join("warden.db.audit-head")), 0o600);
}

#[test]
fn ten_warden_processes_share_a_new_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("warden.db");
    let children: Vec<_> = (0..10)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_warden"))
                .args([
                    "replay",
                    path_str(&scenario("11-approval-denied.yaml")),
                    "--db",
                    path_str(&db),
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let single = tempfile::tempdir().unwrap();
    let one = replayed(single.path(), "11-approval-denied.yaml");
    let count = |db: &Path| {
        let verify = warden(&["audit", "verify", "--json", "--db", path_str(db)]);
        assert!(verify.status.success(), "{}", stdout(&verify));
        serde_json::from_str::<serde_json::Value>(stdout(&verify).trim()).unwrap()["records"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(
        count(&db),
        10 * count(&one),
        "every process's records, once"
    );
}

#[test]
fn control_level_changes_are_audited() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["chat", "--db", path_str(&db)])
        .env("USER", "carol")
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env_remove("WARDEN_PROVIDER")
        .env_remove("WARDEN_CONTROL_LEVEL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"/level read_only\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("control level: read_only"),
        "{}",
        stdout(&out)
    );
    let tail = warden(&["audit", "tail", "-n", "1", "--json", "--db", path_str(&db)]);
    let last = json_array(&tail).pop().unwrap();
    assert_eq!(last["actor"], "user:carol");
    assert_eq!(last["decision"], "level_changed");
    assert_eq!(last["command"], "/level read_only");
    assert_eq!(last["reason"], "from controlled to read_only");
}
