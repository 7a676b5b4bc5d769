//! `warden agent` through the real binary: the sandbox launcher, the unit
//! file, and an agent enrolled and run by the CLI against a server on
//! loopback that speaks the protocol, until SIGTERM stops it cleanly.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use warden_testkit::agent_server::{FakeAgentServer, TOKEN};
use warden_testkit::exec_requests::read;

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");

fn warden(args: &[&str]) -> std::process::Output {
    Command::new(WARDEN).args(args).output().unwrap()
}

#[test]
fn sandbox_exec_blocks_writes_and_allows_reads() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f");
    let script = format!("echo x > {}; cat /etc/hostname", target.display());
    let out = warden(&[
        "agent",
        "sandbox-exec",
        "--landlock",
        "read-only",
        "--",
        "/bin/sh",
        "-c",
        &script,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("WARDEN-SANDBOX landlock_abi="),
        "{stdout}"
    );
    if first.contains("landlock_abi=none") {
        eprintln!("!!! LANDLOCK UNAVAILABLE on this kernel: the write check cannot run");
        return;
    }
    assert!(!target.exists(), "the sandbox let a write through");
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap();
    assert!(stdout.ends_with(&hostname), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Permission denied"));
}

#[test]
fn install_writes_the_unit_for_this_binary() {
    let dir = tempfile::tempdir().unwrap();
    let units = dir.path().join("units");
    std::fs::create_dir(&units).unwrap();
    let state = dir.path().join("state");
    let out = warden(&[
        "agent",
        "install",
        "--unit-dir",
        units.to_str().unwrap(),
        "--state-dir",
        state.to_str().unwrap(),
        "--max-level",
        "read_only",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let unit = std::fs::read_to_string(units.join("warden-agent.service")).unwrap();
    let exec_start = format!(
        "ExecStart={} agent run --state-dir {} --max-level read_only",
        Path::new(WARDEN).canonicalize().unwrap().display(),
        state.display()
    );
    assert!(unit.contains(&exec_start), "{unit}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("not enrolled yet"));
}

#[test]
fn run_without_enrollment_says_how_to_enroll() {
    let dir = tempfile::tempdir().unwrap();
    let out = warden(&["agent", "run", "--state-dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("warden agent enroll"));
}

#[tokio::test]
async fn an_agent_enrolled_and_run_by_the_cli_serves_a_sandboxed_read_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let server = FakeAgentServer::start().await;

    let enrolled = tokio::process::Command::new(WARDEN)
        .args([
            "agent",
            "enroll",
            "--server",
            &server.url(),
            "--token",
            TOKEN,
        ])
        .args(["--name", "cli1", "--state-dir"])
        .arg(&state)
        .output()
        .await
        .unwrap();
    assert!(
        enrolled.status.success(),
        "{}",
        String::from_utf8_lossy(&enrolled.stderr)
    );
    assert!(String::from_utf8_lossy(&enrolled.stdout).contains("as agt_cli1"));
    // The server took the token and the name, and keeps the agent's key.
    assert_eq!(server.state.agents.lock().unwrap()["agt_cli1"].name, "cli1");

    let mut agent = tokio::process::Command::new(WARDEN)
        .args(["agent", "run", "--max-level", "read_only"])
        .arg("--state-dir")
        .arg(&state)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Its hello verified against the enrolled key.
    let mut conn = server.next_connection().await;
    assert_eq!(conn.agent_id, "agt_cli1");

    let ran = conn
        .exec(read("cli-read", "host:cli1", "cat /etc/hostname"))
        .await;
    assert_eq!(ran.result.exit_code, Some(0), "{:?}", ran.result);
    assert_eq!(
        ran.stdout(),
        std::fs::read_to_string("/etc/hostname").unwrap()
    );
    // The production launcher (`warden agent sandbox-exec`) confined it.
    assert!(
        ran.result.sandbox.landlock_abi.is_some_and(|abi| abi >= 1),
        "{:?}",
        ran.result
    );

    let pid = agent.id().unwrap().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    while conn.next_frame().await.is_some() {}
    let status = tokio::time::timeout(Duration::from_secs(15), agent.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
    // It said goodbye with a normal close.
    assert_eq!(*server.state.closes.lock().unwrap(), vec![1000]);
}
