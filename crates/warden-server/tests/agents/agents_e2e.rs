//! End to end with the real agent library in this process: enrolled
//! through the API, connected to the real server, a read and an approved
//! write (in a temporary directory) run by the agent through a session,
//! cancellation, and an agent that vanishes during a command.
//!
//! The read sandbox's launcher is a small shell shim that announces "no
//! Landlock" and runs the command: the sandbox itself is the agent crate's
//! to test (its launcher binary is not built for this crate's tests).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use warden_agent::sandbox::{NoNewPrivs, SandboxStatus, header_line};
use warden_agent::{Launcher, ServerTrust};
use warden_testkit::agent_runner::{self, RunningAgent};
use warden_testkit::sse::{EventReader, SseEvent};
use warden_testkit::test_server::{Options, Script, TestServer, start};

const WAIT: Duration = Duration::from_secs(30);

/// The launcher shim: its header line, then the command.
fn launcher(dir: &Path) -> PathBuf {
    let header = header_line(&SandboxStatus {
        landlock_abi: None,
        no_new_privs: NoNewPrivs::NotSet,
    });
    let path = dir.join("sandbox-shim");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n[ \"$1\" = \"--\" ] && shift\nprintf '%s\\n' '{header}'\nexec \"$@\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Enrolls agent `name` through the API and starts it in this process.
async fn start_agent(server: &TestServer, name: &str, dir: &Path) -> RunningAgent {
    let token = server.enrollment_token(json!({})).await;
    let state_dir = dir.join(name);
    warden_agent::enroll(warden_agent::EnrollOptions {
        server: server.base.clone(),
        token,
        trust: ServerTrust::SystemRoots,
        name: name.into(),
        state_dir: state_dir.clone(),
    })
    .await
    .unwrap();
    let mut config = agent_runner::config(&state_dir, Launcher::standalone(launcher(dir)));
    config.name = Some(name.to_string());
    let agent = agent_runner::start(config);
    // Connected, and its host reported.
    let host = format!("host:{name}");
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let inventory = server.inventory_ids().await;
        let agents = server.agents().await;
        let connected = agents
            .iter()
            .any(|a| a["name"] == name && a["connected"] == true);
        let reported = inventory
            .iter()
            .any(|r| r["id"] == host.as_str() && r["source"] == "agent");
        if connected && reported {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "agent {name} never showed: {agents:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    agent
}

async fn turn(server: &TestServer, message: &str, script: Script) -> (String, EventReader) {
    server.book.add(message, script);
    let session = server.create_session(&server.operator).await;
    let events = server.events(&server.viewer, &session, None).await;
    let (status, body) = server.post(&server.operator, &session, message).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    (session, events)
}

fn tool_end(events: &[SseEvent]) -> Value {
    events
        .iter()
        .find(|e| e.event == "tool_end")
        .map(|e| e.data.clone())
        .expect("a tool_end event")
}

fn server_options() -> Options {
    Options {
        agents: Box::new(|agents| agents.heartbeat = Duration::from_secs(1)),
        ..Options::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_and_approved_writes_run_on_the_real_agent() {
    let server = start(server_options()).await;
    let dir = tempfile::tempdir().unwrap();
    let agent = start_agent(&server, "e2e-reader", dir.path()).await;

    // A read.
    let (_, mut events) = turn(
        &server,
        "zq hello from the agent",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "e2e-reader", "command": "echo hello-from-agent"}),
            )
            .text("it said hello."),
    )
    .await;
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], true, "{end}");
    assert!(
        end["output"].to_string().contains("hello-from-agent"),
        "{end}"
    );

    // A write, approved through the API, inside a temporary directory.
    let marker = dir.path().join("made-by-agent");
    let command = format!("touch {}", marker.display());
    let (_, mut events) = turn(
        &server,
        "zq touch through the agent",
        Script::new()
            .call("query", json!({"action": "get", "target": "e2e-reader"}))
            .call(
                "control",
                json!({"action": "command", "target": "e2e-reader", "command": command}),
            )
            .text("touched."),
    )
    .await;
    let approval = events.until("approval_needed", WAIT).await;
    let approval_id = approval.last().unwrap().data["approval"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!marker.exists(), "nothing runs before the approval");
    let (status, decided) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{approval_id}/approve"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], true, "{end}");
    assert!(marker.exists(), "the agent ran the approved write");

    agent.trigger.trigger();
    tokio::time::timeout(WAIT, agent.handle)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    while server.agents().await[0]["connected"] == true {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_turn_stops_the_command_on_the_agent() {
    let server = start(server_options()).await;
    let dir = tempfile::tempdir().unwrap();
    let _agent = start_agent(&server, "e2e-cancel", dir.path()).await;
    let (session, mut events) = turn(
        &server,
        "zq sleep on the agent",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "e2e-cancel", "command": "sleep 30"}),
            )
            .text("never"),
    )
    .await;
    events.until("tool_start", WAIT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = std::time::Instant::now();
    let (status, _) = server
        .json(
            &server.operator,
            Method::POST,
            &format!("/api/sessions/{session}/cancel"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    events.until("done", WAIT).await;
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_gone_during_a_command_is_an_unknown_outcome() {
    let server = start(server_options()).await;
    let dir = tempfile::tempdir().unwrap();
    let agent = start_agent(&server, "e2e-vanish", dir.path()).await;
    let (_, mut events) = turn(
        &server,
        "zq long read on the agent",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "e2e-vanish", "command": "sleep 20"}),
            )
            .text("after"),
    )
    .await;
    events.until("tool_start", WAIT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The agent's process "dies": its task and socket vanish, no goodbye.
    agent.handle.abort();
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], false, "{end}");
    assert!(
        end["output"]
            .to_string()
            .contains("lost during the command; outcome unknown"),
        "{end}"
    );
}
