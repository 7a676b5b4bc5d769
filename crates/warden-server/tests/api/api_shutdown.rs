//! Graceful shutdown: no new turns, running turns get their grace period
//! (and can still be approved, by new clients too), the rest is cancelled.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use warden_testkit::test_server::{Options, Script, start};

const WAIT: Duration = Duration::from_secs(20);

#[tokio::test]
async fn a_waiting_turn_can_still_be_approved_during_the_grace_period() {
    let mut server = start(Options {
        config: Box::new(|c| c.shutdown_grace = Duration::from_secs(20)),
        ..Options::default()
    })
    .await;
    server.book.add(
        "zq stop web1",
        Script::new()
            .call("query", json!({"action": "get", "target": "web1"}))
            .call(
                "control",
                json!({"action": "guest", "target": "web1", "operation": "stop"}),
            )
            .call("query", json!({"action": "health", "target": "web1"}))
            .text("web1 was stopped."),
    );
    let session = server.create_session(&server.operator).await;
    let other = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    server
        .post(&server.operator, &session, "zq stop web1")
        .await;
    let got = events.until("approval_needed", WAIT).await;
    let id = got.last().unwrap().data["approval"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    server.shutdown.shutdown();
    tokio::time::sleep(Duration::from_millis(200)).await;
    // No new turns.
    let (status, body) = server.post(&server.operator, &other, "zq stop web1").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"]["code"], "UNAVAILABLE");
    // A new client can still approve, and the turn finishes.
    let fresh = warden_testkit::http::client();
    let approved = fresh
        .post(server.url(&format!("/api/approvals/{id}/approve")))
        .bearer_auth(&server.approver)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), StatusCode::OK);
    let rest = events.until("done", WAIT).await;
    assert!(!rest.iter().any(|e| e.event == "error"), "{rest:?}");
    let report = server.stop().await;
    assert_eq!(report.cancelled_turns, 0);
    assert!(
        server
            .hosts
            .received()
            .iter()
            .any(|(_, c)| c.contains("qm stop")),
        "{:?}",
        server.hosts.received()
    );
    let after = fresh.get(server.url("/api/health")).send().await;
    assert!(after.is_err(), "the listener is closed");
}
