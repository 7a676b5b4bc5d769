//! Commands routed through an agent, with a scripted agent on a raw
//! WebSocket playing the host: a read (no grant), a write approved through
//! the API (a grant signed for exactly that agent, request, command,
//! target and approval), an agent's refusal, cancellation, and a
//! connection lost during a command (an unknown outcome).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use warden_protocol::agent::{Grant, command_sha256, decode_public_key};
use warden_testkit::agent_peer::{Socket, key, send, until_frame};
use warden_testkit::sse::{EventReader, SseEvent};
use warden_testkit::test_server::connect;
use warden_testkit::test_server::{Options, Script, TestServer, start};
use warden_testkit::time::now_ms;

const WAIT: Duration = Duration::from_secs(20);

/// A server with agent `edge1` connected and its inventory reported.
async fn with_agent() -> (TestServer, Socket, String, String) {
    with_agent_named("edge1", Options::default()).await
}

async fn with_agent_named(name: &str, options: Options) -> (TestServer, Socket, String, String) {
    let server = start(options).await;
    let token = server.enrollment_token(json!({})).await;
    let (status, enrolled) = server.enroll(&token, name, &key(1)).await;
    assert_eq!(status, StatusCode::OK, "{enrolled}");
    let agent_id = enrolled["agent_id"].as_str().unwrap().to_string();
    let server_key = enrolled["server_public_key"].as_str().unwrap().to_string();
    let mut socket = connect(&server, &agent_id, &key(1)).await;
    send(
        &mut socket,
        json!({"type": "inventory", "resources": [
            {"id": format!("host:{name}"), "name": name, "status": "up"},
            {"id": format!("docker_container:{name}:abc123"), "name": "cachebox", "parent": format!("host:{name}")},
        ]}),
    )
    .await;
    let container = format!("docker_container:{name}:abc123");
    let deadline = tokio::time::Instant::now() + WAIT;
    while !server
        .inventory_ids()
        .await
        .iter()
        .any(|r| r["id"] == container.as_str())
    {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    (server, socket, agent_id, server_key)
}

/// Posts `message` (scripted with `script`) in a new session.
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

async fn answer(socket: &mut Socket, request_id: &Value, stdout: &str, exit_code: i32) {
    send(
        socket,
        json!({"type": "exec_output", "request_id": request_id, "stream": "stdout", "data": stdout, "seq": 0}),
    )
    .await;
    send(
        socket,
        json!({"type": "exec_result", "request_id": request_id, "exit_code": exit_code,
               "truncated": false, "duration_ms": 4, "sandbox": {"landlock_abi": 3}}),
    )
    .await;
}

#[tokio::test]
async fn a_read_runs_on_the_agent_without_a_grant() {
    let (server, mut socket, _, _) = with_agent().await;
    let (_, mut events) = turn(
        &server,
        "zq uptime on edge1",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "edge1", "command": "uptime"}),
            )
            .text("edge1 is up."),
    )
    .await;
    let exec = until_frame(&mut socket, "exec").await;
    assert_eq!(exec["class"], "read");
    assert_eq!(exec["target"], "host:edge1");
    assert_eq!(exec["command"], "uptime");
    assert!(exec.get("grant").is_none(), "{exec}");
    assert_eq!(exec["timeout_ms"], 30_000);
    assert_eq!(exec["max_output_bytes"], 65_536);
    answer(&mut socket, &exec["request_id"], " 10:00:00 up 3 days\n", 0).await;
    let got = events.until("done", WAIT).await;
    let end = tool_end(&got);
    assert_eq!(end["ok"], true, "{end}");
    assert!(end["output"].to_string().contains("up 3 days"), "{end}");

    // A container of that host goes to the same agent, on the container.
    let (_, mut events) = turn(
        &server,
        "zq ps in cachebox",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "cachebox", "command": "ps"}),
            )
            .text("done"),
    )
    .await;
    let exec = until_frame(&mut socket, "exec").await;
    assert_eq!(exec["target"], "docker_container:edge1:abc123");
    // The agent refuses: the refusal names its code.
    send(
        &mut socket,
        json!({"type": "exec_result", "request_id": exec["request_id"],
               "error": {"code": "POLICY_BLOCKED", "message": "not read-only"},
               "truncated": false, "duration_ms": 0, "sandbox": {"landlock_abi": null}}),
    )
    .await;
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], false, "{end}");
    assert!(
        end["output"].to_string().contains("POLICY_BLOCKED"),
        "{end}"
    );
    // Refused before it ran: said so, never "may have happened".
    let output: Value = serde_json::from_str(end["output"].as_str().unwrap()).unwrap();
    assert_eq!(output["error"]["code"], "POLICY_BLOCKED", "{output}");
    assert_eq!(output["error"]["details"]["ran"], false, "{output}");
    assert!(
        !end["output"].to_string().contains("may have happened"),
        "{end}"
    );
}

#[tokio::test]
async fn an_approved_write_carries_a_grant_bound_to_it() {
    let (server, mut socket, agent_id, server_key) = with_agent().await;
    let command = "touch /tmp/warden-agent-test-marker";
    let (_, mut events) = turn(
        &server,
        "zq touch on edge1",
        Script::new()
            .call("query", json!({"action": "get", "target": "edge1"}))
            .call(
                "control",
                json!({"action": "command", "target": "edge1", "command": command}),
            )
            .text("touched."),
    )
    .await;
    let approval = events.until("approval_needed", WAIT).await;
    let approval_id = approval.last().unwrap().data["approval"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, decided) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{approval_id}/approve"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    let exec = until_frame(&mut socket, "exec").await;
    assert_eq!(exec["class"], "write");
    assert_eq!(exec["command"], command);
    let grant: Grant = serde_json::from_value(exec["grant"].clone()).unwrap();
    let server_key = decode_public_key(&server_key).unwrap();
    assert!(grant.verify_signature(&server_key).is_ok());
    assert_eq!(grant.agent_id, agent_id);
    assert_eq!(grant.request_id, exec["request_id"].as_str().unwrap());
    assert_eq!(grant.command_sha256, command_sha256(command));
    assert_eq!(grant.target, "host:edge1");
    assert_eq!(grant.approval_id.as_deref(), Some(approval_id.as_str()));
    assert_eq!(
        grant.approved_by.as_deref(),
        Some("token:approver (user:approver)")
    );
    assert!(grant.expires_at > now_ms() && grant.expires_at <= now_ms() + 120_000);
    assert_eq!(grant.nonce_bytes().map(|n| n.len()), Some(16));
    answer(&mut socket, &exec["request_id"], "", 0).await;
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], true, "{end}");
}

#[tokio::test]
async fn cancelling_the_turn_cancels_the_command_on_the_agent() {
    let (server, mut socket, _, _) = with_agent().await;
    let (session, mut events) = turn(
        &server,
        "zq slow on edge1",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "edge1", "command": "sleep 30"}),
            )
            .text("never"),
    )
    .await;
    let exec = until_frame(&mut socket, "exec").await;
    let (status, _) = server
        .json(
            &server.operator,
            Method::POST,
            &format!("/api/sessions/{session}/cancel"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let cancel = until_frame(&mut socket, "cancel").await;
    assert_eq!(cancel["request_id"], exec["request_id"]);
    send(
        &mut socket,
        json!({"type": "exec_result", "request_id": exec["request_id"],
               "error": {"code": "CANCELLED", "message": "killed"},
               "truncated": false, "duration_ms": 5, "sandbox": {"landlock_abi": null}}),
    )
    .await;
    events.until("done", WAIT).await;
}

#[tokio::test]
async fn a_connection_lost_during_a_command_is_an_unknown_outcome() {
    let (server, mut socket, _, _) = with_agent().await;
    let (_, mut events) = turn(
        &server,
        "zq lost on edge1",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "edge1", "command": "sleep 5"}),
            )
            .text("after"),
    )
    .await;
    let _exec = until_frame(&mut socket, "exec").await;
    drop(socket);
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], false, "{end}");
    let output = end["output"].to_string();
    assert!(
        output.contains("connection to agent edge1 lost during the command; outcome unknown"),
        "{end}"
    );
    // Now the host is known but unreachable, and says so at once.
    let (_, mut events) = turn(
        &server,
        "zq again on edge1",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "edge1", "command": "uptime"}),
            )
            .text("after"),
    )
    .await;
    let end = tool_end(&events.until("done", WAIT).await);
    assert!(
        end["output"]
            .to_string()
            .contains("the agent on edge1 is not connected"),
        "{end}"
    );
}

#[tokio::test]
async fn an_agent_named_like_this_machine_is_shadowed() {
    let options = Options {
        extra_inventory: vec![warden_protocol::Resource::new(
            "host:here".parse().unwrap(),
            "here",
        )],
        ..Options::default()
    };
    let (server, mut socket, _, _) = with_agent_named("here", options).await;
    let inventory = server.inventory_ids().await;
    let host = inventory.iter().find(|r| r["id"] == "host:here").unwrap();
    assert_eq!(host["source"], "local", "this machine's own report wins");
    // A command for this machine runs here, not on the agent.
    let (_, mut events) = turn(
        &server,
        "zq uptime here",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "host:here", "command": "uptime"}),
            )
            .call(
                "read",
                json!({"action": "exec", "target": "docker_container:here:abc123", "command": "uptime"}),
            )
            .text("done"),
    )
    .await;
    let got = events.until("done", WAIT).await;
    let ends: Vec<&SseEvent> = got.iter().filter(|e| e.event == "tool_end").collect();
    assert_eq!(ends[0].data["ok"], true, "{:?}", ends[0].data);
    assert!(ends[0].data["output"].to_string().contains("active"));
    // What only the shadowed agent reports is not run anywhere.
    assert_eq!(ends[1].data["ok"], false, "{:?}", ends[1].data);
    assert!(
        ends[1].data["output"]
            .to_string()
            .contains("reported only by an agent named like this machine"),
        "{:?}",
        ends[1].data
    );
    assert!(
        warden_testkit::agent_peer::next_within(&mut socket, Duration::from_millis(300))
            .await
            .is_none_or(|frame| !matches!(frame, warden_testkit::agent_peer::Incoming::Frame(ref f) if f["type"] == "exec")),
        "the agent got no command"
    );
}

/// Runs one read on `target` and returns the exec frame the agent got.
async fn read_reaches(
    server: &TestServer,
    socket: &mut Socket,
    phrase: &str,
    target: &str,
) -> Value {
    let (_, mut events) = turn(
        server,
        phrase,
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": target, "command": "hostname"}),
            )
            .text("done"),
    )
    .await;
    let exec = until_frame(socket, "exec").await;
    answer(socket, &exec["request_id"], "x\n", 0).await;
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], true, "{end}");
    exec
}

#[tokio::test]
async fn guests_go_to_their_own_agent_else_to_their_node() {
    let (server, mut node, _, _) = with_agent_named("pve9", Options::default()).await;
    send(
        &mut node,
        json!({"type": "inventory", "resources": [
            {"id": "host:pve9", "name": "pve9"},
            {"id": "lxc:pve9:141", "name": "ct141", "parent": "host:pve9", "status": "running"},
            {"id": "vm:pve9:101", "name": "vm101", "parent": "host:pve9", "status": "running"},
        ]}),
    )
    .await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while !server
        .inventory_ids()
        .await
        .iter()
        .any(|r| r["id"] == "vm:pve9:101")
    {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    // An LXC without its own agent: `pct exec` by its node's agent.
    let exec = read_reaches(&server, &mut node, "zq in ct141", "ct141").await;
    assert_eq!(exec["target"], "lxc:pve9:141");
    // A VM without its own agent: unreachable, saying why.
    let (_, mut events) = turn(
        &server,
        "zq in vm101",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "vm101", "command": "hostname"}),
            )
            .text("done"),
    )
    .await;
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], false, "{end}");
    assert!(
        end["output"]
            .to_string()
            .contains("cannot run commands inside a VM"),
        "{end}"
    );
    // Once the guests' own agents are connected, they run their commands
    // (by id: a guest and the agent inside it share a name).
    let vm_id = server.enroll_new("vm101", &key(2)).await;
    let mut vm = connect(&server, &vm_id, &key(2)).await;
    let ct_id = server.enroll_new("ct141", &key(3)).await;
    let mut ct = connect(&server, &ct_id, &key(3)).await;
    let exec = read_reaches(&server, &mut vm, "zq in vm101 again", "vm:pve9:101").await;
    assert_eq!(exec["target"], "host:vm101");
    let exec = read_reaches(&server, &mut ct, "zq in ct141 again", "lxc:pve9:141").await;
    assert_eq!(exec["target"], "host:ct141");
}

#[tokio::test]
async fn a_write_whose_connection_is_lost_is_not_retried() {
    let (server, mut socket, _, _) = with_agent().await;
    let (_, mut events) = turn(
        &server,
        "zq write then vanish",
        Script::new()
            .call("query", json!({"action": "get", "target": "edge1"}))
            .call(
                "control",
                json!({"action": "command", "target": "edge1", "command": "touch /tmp/warden-never"}),
            )
            .text("after"),
    )
    .await;
    let approval = events.until("approval_needed", WAIT).await;
    let approval_id = approval.last().unwrap().data["approval"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{approval_id}/approve"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let _exec = until_frame(&mut socket, "exec").await;
    drop(socket);
    // The agent is back at once: the write is not sent to it again.
    let agent_id = server.agents().await[0]["id"].as_str().unwrap().to_string();
    let mut back = connect(&server, &agent_id, &key(1)).await;
    if let Some(warden_testkit::agent_peer::Incoming::Frame(frame)) =
        warden_testkit::agent_peer::next_within(&mut back, Duration::from_secs(2)).await
    {
        assert_ne!(frame["type"], "exec", "{frame}");
    }
    let got = events.until("done", WAIT).await;
    let ends: Vec<&SseEvent> = got.iter().filter(|e| e.event == "tool_end").collect();
    let write = ends.iter().find(|e| e.data["name"] == "control").unwrap();
    assert_eq!(write.data["ok"], false, "{:?}", write.data);
    assert!(
        write.data["output"].to_string().contains("outcome unknown"),
        "{:?}",
        write.data
    );
    // Sent, then cut off: the change may have happened, and nothing
    // invites a retry.
    let output: Value = serde_json::from_str(write.data["output"].as_str().unwrap()).unwrap();
    assert_eq!(
        output["error"]["details"]["possibly_applied"], true,
        "{output}"
    );
    assert_ne!(output["error"]["retryable"], true, "{output}");
}

#[tokio::test]
async fn a_read_is_sent_once_more_when_its_agent_is_back_at_once() {
    let (server, mut socket, agent_id, _) = with_agent().await;
    let (_, mut events) = turn(
        &server,
        "zq retried read on edge1",
        Script::new()
            .call(
                "read",
                json!({"action": "exec", "target": "edge1", "command": "uptime"}),
            )
            .text("after"),
    )
    .await;
    let first = until_frame(&mut socket, "exec").await;
    drop(socket);
    let mut back = connect(&server, &agent_id, &key(1)).await;
    let second = until_frame(&mut back, "exec").await;
    assert_ne!(first["request_id"], second["request_id"]);
    assert_eq!(second["command"], "uptime");
    answer(&mut back, &second["request_id"], "up again\n", 0).await;
    let end = tool_end(&events.until("done", WAIT).await);
    assert_eq!(end["ok"], true, "{end}");
    assert!(end["output"].to_string().contains("up again"), "{end}");
}
