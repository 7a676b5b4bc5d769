//! An approval whose session is gone runs when an operator approves it from
//! the command line: every gate again, the target re-resolved from this
//! machine's live inventory, then a verification read; denial runs nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::Path;
use std::process::{Command, Output};

fn warden(args: &[&str], db: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .env("WARDEN_DB", db)
        .env_remove("WARDEN_PROVIDER")
        .output()
        .expect("run warden")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// This machine's host id, as the local inventory reports it.
fn this_host(db: &Path) -> String {
    let out = warden(&["explain", "disk usage"], db);
    let shown = text(&out);
    let start = shown.find("host:").expect("a host id in explain's output");
    shown[start..]
        .split(|c: char| c.is_whitespace() || c == ',' || c == ')')
        .next()
        .unwrap()
        .to_string()
}

/// A replay that leaves a `control command` for this host pending; returns its id.
fn pending_approval(dir: &Path, db: &Path, command: &str) -> String {
    let host = this_host(db);
    let scenario = dir.join("pending.yaml");
    std::fs::write(
        &scenario,
        format!(
            "name: pending-write\ncontrol_level: controlled\napprovals: pending\ninventory:\n  - id: {host}\n    name: thishost\nturns:\n  - user: \"make the marker on thishost\"\n    model:\n      - tool_calls:\n          - name: query\n            arguments: {{action: get, target: thishost}}\n      - tool_calls:\n          - name: control\n            arguments: {{action: command, target: thishost, command: \"{command}\"}}\n      - text: \"Waiting for your approval.\"\n"
        ),
    )
    .unwrap();
    let replay = warden(
        &[
            "replay",
            scenario.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ],
        db,
    );
    assert!(replay.status.success(), "{}", text(&replay));
    let list = warden(&["approvals", "list", "--json"], db);
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&list.stdout).unwrap();
    let [approval] = listed.as_slice() else {
        panic!("one pending approval: {listed:?}");
    };
    assert_eq!(approval["command"], command);
    approval["id"].as_str().unwrap().to_string()
}

#[test]
fn an_approval_given_on_the_command_line_runs_the_stored_call_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("warden.db");
    let marker = dir.path().join("marker");
    let command = format!("touch {}", marker.display());
    let id = pending_approval(dir.path(), &db, &command);
    assert!(!marker.exists(), "nothing runs before the approval");

    let approve = warden(&["approvals", "approve", &id, "--reason", "test"], &db);
    let shown = text(&approve);
    assert!(approve.status.success(), "{shown}");
    assert!(marker.exists(), "the stored call ran: {shown}");
    assert!(shown.contains("the approved call ran"), "{shown}");
    assert!(shown.contains("verification"), "{shown}");

    // Single use: approving again is refused and runs nothing new.
    std::fs::remove_file(&marker).unwrap();
    let again = warden(&["approvals", "approve", &id], &db);
    assert!(!again.status.success(), "{}", text(&again));
    assert!(!marker.exists());

    // The decision and the run are in the audit log, which still verifies.
    let verify = warden(&["audit", "verify"], &db);
    assert!(verify.status.success(), "{}", text(&verify));
    let tail = text(&warden(&["audit", "tail", "-n", "20"], &db));
    assert!(tail.contains("approved"), "{tail}");
    assert!(tail.contains(&command), "{tail}");
}

#[test]
fn a_denied_approval_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("warden.db");
    let marker = dir.path().join("marker");
    let id = pending_approval(dir.path(), &db, &format!("touch {}", marker.display()));
    let deny = warden(&["approvals", "deny", &id, "--reason", "not now"], &db);
    assert!(deny.status.success(), "{}", text(&deny));
    assert!(!marker.exists());
    let approve = warden(&["approvals", "approve", &id], &db);
    assert!(!approve.status.success());
    assert!(!marker.exists());
}
