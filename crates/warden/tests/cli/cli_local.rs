//! The README's promise on this machine, with no model: `warden ask`
//! answers from real data here, through the real executor and store.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a panic is a failed test

use std::process::Command;

use serde_json::Value;

fn warden(db: &std::path::Path, args: &[&str]) -> (String, String, i32) {
    let home = db.parent().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .env("WARDEN_DB", db)
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
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn disk_usage_is_read_from_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let (out, err, code) = warden(&db, &["ask", "disk usage"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Disk usage on "), "{out}\n{err}");
    assert!(out.contains("% used"), "{out}");
    // The call went through the executor and was audited.
    let (audit, _, code) = warden(&db, &["audit", "verify"]);
    assert_eq!(code, 0, "{audit}");
}

#[test]
fn is_ssh_running_gets_a_yes_or_no_from_real_data() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err, code) = warden(&dir.path().join("w.db"), &["ask", "is ssh running"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        ["Yes", "No", "Probably", "Unknown"]
            .iter()
            .any(|w| out.starts_with(w)),
        "{out}\n{err}"
    );
    assert!(err.contains("read exec"), "{err}");
}

#[test]
fn the_syslog_request_reads_a_log_source_or_says_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err, code) = warden(
        &dir.path().join("w.db"),
        &["ask", "show the last 20 lines of the syslog"],
    );
    assert_eq!(code, 0, "{err}");
    let lower = out.to_lowercase();
    assert!(
        lower.contains("syslog") || lower.contains("messages") || lower.contains("journal"),
        "{out}"
    );
    let expected = if std::path::Path::new("/var/log/syslog").exists() {
        "tail -n 20 -- '/var/log/syslog'"
    } else if std::path::Path::new("/var/log/messages").exists() {
        "tail -n 20 -- '/var/log/messages'"
    } else {
        "journalctl -n 20 --no-pager"
    };
    let (_, verbose, _) = warden(
        &dir.path().join("w.db"),
        &["ask", "-v", "show the last 20 lines of the syslog"],
    );
    assert!(verbose.contains(expected), "{verbose}");
}

#[test]
fn ask_json_prints_stream_events() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err, code) = warden(&dir.path().join("w.db"), &["ask", "--json", "memory"]);
    assert_eq!(code, 0, "{err}");
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["turn_start", "tool_start", "tool_end", "content", "done"],
        "{out}"
    );
    // The spec's names: a tool is `name`, the turn is numbered.
    assert_eq!(events[1]["name"], "metrics", "{out}");
    assert!(events[1].get("tool").is_none(), "{out}");
    assert_eq!(events[0]["turn"], 1);
    assert_eq!(events[4]["turn"], 1);
    assert_eq!(events[4]["outcome"]["end"], "answered", "{out}");
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["seq"], i as u64 + 1);
        assert_eq!(e["session_id"], events[0]["session_id"]);
    }
    assert!(
        events[3]["text"]
            .as_str()
            .unwrap()
            .starts_with("Memory on "),
        "{out}"
    );
    assert_eq!(events[4]["final_text"], events[3]["text"]);
}

#[test]
fn a_note_is_the_users_own_and_kept_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    // Nobody can answer an approval here: the note needs none.
    let (out, err, code) = warden(&db, &["ask", "remember the backup runs at 02:00"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("Noted"), "{out}\n{err}");
    let (pending, _, _) = warden(&db, &["approvals", "list"]);
    assert!(!pending.contains("the backup runs at 02:00"), "{pending}");
    let (recalled, err, code) = warden(&db, &["ask", "recall backup"]);
    assert_eq!(code, 0, "{err}");
    assert!(recalled.contains("the backup runs at 02:00"), "{recalled}");
    let (audit, _, _) = warden(&db, &["audit", "tail", "-n", "20"]);
    assert!(audit.contains("knowledge"), "{audit}");
    // The read_only level refuses it outright, as every write.
    let (out, _, code) = warden(
        &db,
        &["ask", "--level", "read_only", "remember something else"],
    );
    assert!(out.contains("POLICY_BLOCKED"), "{out}");
    assert_eq!(code, 6, "a write refused by policy");
}

#[test]
fn conversations_are_stored_and_resumable() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let (out, _, _) = warden(&db, &["ask", "--json", "load"]);
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let id = first["session_id"].as_str().unwrap().to_string();
    let (sessions, _, _) = warden(&db, &["sessions"]);
    assert!(sessions.contains(&id), "{sessions}");
    let (again, err, code) = warden(&db, &["ask", "--session", &id, "memory"]);
    assert_eq!(code, 0, "{err}");
    assert!(again.starts_with("Memory on"), "{again}");
    let (missing, err, code) = warden(&db, &["ask", "--session", "nope", "memory"]);
    assert_eq!(code, 2, "{missing}");
    assert!(err.contains("no stored session `nope`"), "{err}");
}

#[test]
fn chat_reads_requests_from_stdin() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["chat"])
        .env("WARDEN_DB", dir.path().join("w.db"))
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env_remove("WARDEN_PROVIDER")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"load\n/level read_only\n/reset\nexplain `rm -rf /`\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("Load average on"), "{stdout}");
    assert!(stdout.contains("control level: read_only"), "{stdout}");
    assert!(stdout.contains("catastrophic"), "{stdout}");
    assert!(
        stdout.contains("resume with `warden chat --session"),
        "{stdout}"
    );
}

#[test]
fn config_show_names_sources_and_hides_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["config", "show"])
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path())
        .env("WARDEN_PROVIDER", "anthropic")
        .env("WARDEN_API_KEY", "sk-ant-very-secret")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("anthropic"), "{stdout}");
    assert!(stdout.contains("env WARDEN_PROVIDER"), "{stdout}");
    assert!(!stdout.contains("very-secret"), "{stdout}");
}
