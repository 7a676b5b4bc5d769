//! Typed commands aimed at a machine, through a real server with two
//! scripted agents: `… on NAME`, `… @NAME` and `on NAME: …` reach that
//! agent with the command as typed; a name nobody holds runs nowhere; a
//! container name both agents report is a question until `on` picks one.

use std::time::Duration;

use serde_json::{Value, json};
use warden_testkit::agent_peer::Incoming;
use warden_testkit::agent_peer::{Socket, key, next_within, send, until_frame};
use warden_testkit::test_server::connect;
use warden_testkit::test_server::{Options, Script, TestServer, start};

const WAIT: Duration = Duration::from_secs(20);

/// Agent `name` enrolled, connected, reporting its host and a
/// `node-exporter` container.
async fn agent(server: &TestServer, name: &str, seed: u8) -> Socket {
    let agent_id = server.enroll_new(name, &key(seed)).await;
    let mut socket = connect(server, &agent_id, &key(seed)).await;
    send(
        &mut socket,
        json!({"type": "inventory", "resources": [
            {"id": format!("host:{name}"), "name": name, "status": "up"},
            {"id": format!("docker_container:{name}:{seed}{seed}ee"), "name": "node-exporter",
             "parent": format!("host:{name}"), "status": "running"},
        ]}),
    )
    .await;
    let container = format!("docker_container:{name}:{seed}{seed}ee");
    let deadline = tokio::time::Instant::now() + WAIT;
    while !server
        .inventory_ids()
        .await
        .iter()
        .any(|r| r["id"] == container.as_str())
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} never reported"
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    socket
}

/// A turn the router carries out (the model's script is empty: were the
/// request handed to it, the turn would end without an answer).
async fn turn(server: &TestServer, message: &str) -> warden_testkit::sse::EventReader {
    server.book.add(message, Script::new());
    let session = server.create_session(&server.operator).await;
    let events = server.events(&server.viewer, &session, None).await;
    let (status, body) = server.post(&server.operator, &session, message).await;
    assert_eq!(status, reqwest::StatusCode::ACCEPTED, "{body}");
    events
}

fn final_text(events: &[warden_testkit::sse::SseEvent]) -> String {
    events
        .iter()
        .find(|e| e.event == "done")
        .map(|e| {
            e.data["final_text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default()
}

async fn answer(socket: &mut Socket, exec: &Value, stdout: &str) {
    send(
        socket,
        json!({"type": "exec_output", "request_id": exec["request_id"], "stream": "stdout", "data": stdout, "seq": 0}),
    )
    .await;
    send(
        socket,
        json!({"type": "exec_result", "request_id": exec["request_id"], "exit_code": 0,
               "truncated": false, "duration_ms": 2, "sandbox": {"landlock_abi": 3}}),
    )
    .await;
}

/// No exec frame reaches `socket` for a while (pings answered).
async fn no_exec(socket: &mut Socket) {
    let deadline = tokio::time::Instant::now() + Duration::from_millis(600);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match next_within(socket, left).await {
            None => return,
            Some(Incoming::Frame(frame)) if frame["type"] == "exec" => {
                panic!("a command reached this agent: {frame}")
            }
            Some(Incoming::Frame(frame)) if frame["type"] == "ping" => {
                send(socket, json!({"type": "pong", "at": frame["at"]})).await;
            }
            Some(_) => {}
        }
    }
}

#[tokio::test]
async fn a_typed_command_reaches_the_agent_it_names_and_no_other() {
    let server = start(Options::default()).await;
    let mut h1 = agent(&server, "h1", 3).await;
    let mut h2 = agent(&server, "h2", 4).await;
    for (message, command) in [
        ("run cat /etc/hostname on h2", "cat /etc/hostname"),
        ("uptime @h2", "uptime"),
        ("uptime on h2", "uptime"),
        ("on h2: df -h /", "df -h /"),
    ] {
        let mut events = turn(&server, message).await;
        let exec = until_frame(&mut h2, "exec").await;
        assert_eq!(exec["target"], "host:h2", "{message}: {exec}");
        assert_eq!(exec["command"], command, "{message}: {exec}");
        answer(&mut h2, &exec, "h2\n").await;
        let text = final_text(&events.until("done", WAIT).await);
        assert!(text.contains("on h2"), "{message}: {text}");
        no_exec(&mut h1).await;
    }
    assert!(
        server.hosts.received().is_empty(),
        "the server's own machine ran {:?}",
        server.hosts.received()
    );
}

#[tokio::test]
async fn a_command_aimed_at_nobody_runs_nowhere_and_shared_names_are_asked() {
    let server = start(Options::default()).await;
    let mut h1 = agent(&server, "h1", 5).await;
    let mut h2 = agent(&server, "h2", 6).await;
    let mut events = turn(&server, "run cat /etc/hostname on h3").await;
    let text = final_text(&events.until("done", WAIT).await);
    assert!(text.contains("ran nothing"), "{text}");
    no_exec(&mut h1).await;
    no_exec(&mut h2).await;
    assert!(
        server.hosts.received().is_empty(),
        "{:?}",
        server.hosts.received()
    );

    let mut events = turn(&server, "status of node-exporter").await;
    let text = final_text(&events.until("done", WAIT).await);
    assert!(text.contains("node-exporter on h1"), "{text}");
    assert!(text.contains("node-exporter on h2"), "{text}");
    no_exec(&mut h1).await;
    no_exec(&mut h2).await;

    let _events = turn(&server, "status of node-exporter on h2").await;
    let exec = until_frame(&mut h2, "exec").await;
    assert!(exec["command"].as_str().unwrap().contains("66ee"), "{exec}");
    no_exec(&mut h1).await;
}
