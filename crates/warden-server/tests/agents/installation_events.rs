//! The installation event stream (`GET /api/events`, spec/patrol.md):
//! inventory changes as an agent reports and goes away, approvals of any
//! session, resumable with `Last-Event-ID`.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use warden_testkit::agent_peer::{key, send};
use warden_testkit::sse::EventReader;
use warden_testkit::test_server::{Options, Script, TestServer, connect, start};

const WAIT: Duration = Duration::from_secs(20);

async fn follow(server: &TestServer, token: &str, last: Option<u64>) -> EventReader {
    let mut request = server
        .client
        .get(server.url("/api/events"))
        .bearer_auth(token);
    if let Some(last) = last {
        request = request.header("Last-Event-ID", last.to_string());
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    EventReader::new(response)
}

#[tokio::test]
async fn inventory_changes_and_approvals_reach_the_installation_stream() {
    let server = start(Options::default()).await;
    let unauthenticated = server
        .client
        .get(server.url("/api/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthenticated.status(), StatusCode::UNAUTHORIZED);
    // Let the watcher take its first look before anything changes.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut events = follow(&server, &server.viewer, None).await;

    let agent_id = server.enroll_new("edge5", &key(5)).await;
    let mut socket = connect(&server, &agent_id, &key(5)).await;
    send(
        &mut socket,
        json!({"type": "inventory", "resources": [
            {"id": "host:edge5", "name": "edge5", "status": "up"},
            {"id": "docker_container:edge5:c0ffee", "name": "queue", "parent": "host:edge5", "status": "running"},
        ]}),
    )
    .await;
    let seen = events.until("inventory_changed", WAIT).await;
    let changed = &seen.last().unwrap().data;
    assert_eq!(changed["type"], "inventory_changed");
    assert!(changed["seq"].as_u64().unwrap() >= 1);
    let ids: Vec<&str> = changed["changed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(ids.contains(&"docker_container:edge5:c0ffee"), "{changed}");

    // The agent goes: its container is announced unknown.
    drop(socket);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let got = events.until("inventory_changed", WAIT).await;
        let data = &got.last().unwrap().data;
        let container = data["changed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "docker_container:edge5:c0ffee");
        if container.is_some_and(|c| c["status"] == "unknown") {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never unknown: {data}"
        );
    }

    // An approval asked in some session shows here, naming the session.
    let message = "zq stop the cache container";
    server.book.add(
        message,
        Script::new()
            .call("query", json!({"action": "get", "target": "cache"}))
            .call(
                "control",
                json!({"action": "guest", "target": "cache", "operation": "stop"}),
            )
            .text("Waiting for approval."),
    );
    let session = server.create_session(&server.operator).await;
    let (status, _) = server.post(&server.operator, &session, message).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let got = events.until("approval_needed", WAIT).await;
    let needed = &got.last().unwrap().data;
    assert_eq!(needed["session_id"], session.as_str(), "{needed}");
    assert!(needed["approval"]["id"].is_string(), "{needed}");
    let seq = needed["seq"].as_u64().unwrap();

    // Resumed after an event: what came after it, and nothing before.
    let mut resumed = follow(&server, &server.viewer, Some(seq - 1)).await;
    let first = resumed.next(WAIT).await.unwrap();
    assert_eq!(first.data["seq"], seq);
    assert_eq!(first.event, "approval_needed");
}
