//! The router through the CLI on this machine, with no model: a change to
//! a service that does not exist is refused without asking anyone, an
//! unrecognised request gets the nearest phrasing, and `warden explain
//! --json` prints one valid object, calls or not.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn warden(home: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .env("WARDEN_DB", home.join("w.db"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env_remove("WARDEN_PROVIDER")
        .env_remove("WARDEN_CONFIG")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_service_that_does_not_exist_is_not_restarted_nor_proposed() {
    let home = tempfile::tempdir().unwrap();
    let (out, err) = warden(home.path(), &["ask", "restart warden-test-nonexistent"]);
    // Without systemd there is nothing to restart it with; with systemd
    // there is no such unit. Either way nothing is proposed.
    let refused = out.starts_with("There is no service called warden-test-nonexistent")
        || out.contains("does not run systemd, so there is no service manager");
    assert!(refused, "{out}\n{err}");
    assert!(!err.contains("approval needed"), "{err}");
    let (pending, _) = warden(home.path(), &["approvals", "list"]);
    assert!(!pending.contains("warden-test-nonexistent"), "{pending}");
}

#[test]
fn an_unrecognised_request_gets_the_nearest_phrasing() {
    let home = tempfile::tempdir().unwrap();
    let (out, err) = warden(home.path(), &["ask", "disk usgae"]);
    assert!(
        out.starts_with("I don't understand \"disk usgae\""),
        "{out}\n{err}"
    );
    assert!(out.contains("Did you mean:\n  disk usage"), "{out}");
}

#[test]
fn explain_json_is_one_object_with_the_reason_and_each_decision() {
    let home = tempfile::tempdir().unwrap();
    let (out, err) = warden(home.path(), &["explain", "--json", "kernel version"]);
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    assert_eq!(v["stage"], "fast_path");
    assert_eq!(v["route"], "kernel");
    assert_eq!(v["confidence"], "certain");
    assert!(
        v["reason"].as_str().unwrap().contains("`kernel` pattern"),
        "{v}"
    );
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{v}");
    assert_eq!(calls[0]["tool"], "read");
    assert_eq!(calls[0]["kind"], "read");
    assert_eq!(calls[0]["decision"], "allowed");
    // Nothing to call: still one valid object, with an empty list.
    let (out, _) = warden(
        home.path(),
        &["explain", "--json", "what should I name my cat"],
    );
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["stage"], "unmatched");
    assert_eq!(v["calls"], serde_json::json!([]));
    assert!(
        v["answer"].as_str().unwrap().contains("I don't understand"),
        "{v}"
    );
    // A note in the user's own words: allowed without an approval.
    let (out, _) = warden(
        home.path(),
        &["explain", "--json", "remember the backup runs at 02:00"],
    );
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let decisions: Vec<&str> = v["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["decision"].as_str().unwrap())
        .collect();
    assert_eq!(decisions, ["allowed", "allowed", "allowed"], "{v}");
    // Human output says why.
    let (out, _) = warden(home.path(), &["explain", "restart nginx"]);
    assert!(out.contains("why:     the `control` pattern"), "{out}");
}
