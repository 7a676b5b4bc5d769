//! The read endpoints (inventory, audit, usage, metrics) and the OpenAPI
//! document checked against the router and the spec's endpoint table.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use warden_testkit::test_server::{Options, Script, start};

/// The endpoint table of `spec/api.md`.
const SPEC_ENDPOINTS: &[(&str, &str)] = &[
    ("get", "/api/health"),
    ("get", "/api/openapi.json"),
    ("get", "/metrics"),
    ("post", "/api/auth/login"),
    ("post", "/api/auth/logout"),
    ("get", "/api/auth/me"),
    ("get", "/api/inventory"),
    ("get", "/api/inventory/{id}"),
    ("post", "/api/sessions"),
    ("get", "/api/sessions"),
    ("get", "/api/sessions/{id}"),
    ("post", "/api/sessions/{id}/messages"),
    ("get", "/api/sessions/{id}/events"),
    ("post", "/api/sessions/{id}/cancel"),
    ("patch", "/api/sessions/{id}"),
    ("get", "/api/approvals"),
    ("get", "/api/approvals/{id}"),
    ("post", "/api/approvals/{id}/approve"),
    ("post", "/api/approvals/{id}/deny"),
    ("post", "/api/approvals/{id}/run"),
    ("get", "/api/audit"),
    ("get", "/api/audit/verify"),
    ("get", "/api/usage"),
    ("post", "/api/tokens"),
    ("get", "/api/tokens"),
    ("delete", "/api/tokens/{id}"),
];

/// Endpoints beyond the spec's table: Proxmox clusters managed by an admin,
/// and forgetting what a session discovered (`/reset` in `warden chat --server`).
const EXTENSIONS: &[(&str, &str)] = &[
    ("post", "/api/sessions/{id}/reset"),
    ("post", "/api/auth/password"),
    ("get", "/api/proxmox/clusters"),
    ("post", "/api/proxmox/clusters"),
    ("delete", "/api/proxmox/clusters/{name}"),
    // spec/patrol.md's installation event stream.
    ("get", "/api/events"),
];

/// The endpoint table of `spec/agent.md`.
const AGENT_ENDPOINTS: &[(&str, &str)] = &[
    ("post", "/api/agents/enrollment-tokens"),
    ("post", "/api/agents/enroll"),
    ("get", "/api/agents"),
    ("delete", "/api/agents/{id}"),
    ("get", "/api/agents/connect"),
];

#[tokio::test]
async fn the_openapi_document_matches_the_router_and_the_spec() {
    let server = start(Options::default()).await;
    let doc: Value = server
        .client
        .get(server.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            documented.insert((method.clone(), path.clone()));
            for status in ["200", "201", "202", "204"] {
                if let Some(response) = operation["responses"].get(status) {
                    assert!(response["description"].is_string());
                }
            }
            assert!(
                operation["responses"].get("401").is_some(),
                "{method} {path}"
            );
        }
    }
    let spec: BTreeSet<(String, String)> = SPEC_ENDPOINTS
        .iter()
        .chain(EXTENSIONS)
        .chain(AGENT_ENDPOINTS)
        .map(|(m, p)| ((*m).to_string(), (*p).to_string()))
        .collect();
    assert_eq!(
        documented, spec,
        "the document describes exactly the spec's endpoints and the extensions"
    );
    assert_eq!(
        warden_server::openapi_json().unwrap().len(),
        doc.to_string().len()
    );

    // Every documented operation is routed (never the fallback's 404 or a 405).
    for (method, path) in &documented {
        let concrete = path.replace("{id}", "x-1").replace("{name}", "x-1");
        let mut request = server
            .client
            .request(
                method.to_uppercase().parse().unwrap(),
                server.url(&concrete),
            )
            .bearer_auth(&server.admin)
            .timeout(Duration::from_secs(5));
        if method != "get" && method != "delete" {
            request = request.json(&json!({}));
        }
        if path.ends_with("/events") {
            // An endless stream: the status line is enough (a session
            // that does not exist is a 404; the installation's always is).
            let response = request.send().await.unwrap();
            let expected = if path == "/api/events" {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            };
            assert_eq!(response.status(), expected, "{path}");
            continue;
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        let body = response.text().await.unwrap();
        assert!(
            !body.contains("no such endpoint"),
            "{method} {path} is not routed: {body}"
        );
        assert!(status.as_u16() < 500, "{method} {path}: {status} {body}");
    }
    // And the fallback does say so for what is not documented.
    let (status, body) = server
        .json(&server.admin, Method::GET, "/api/agents/x/y", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["message"], "no such endpoint");
}

#[tokio::test]
async fn inventory_resources_have_the_spec_shape() {
    let server = start(Options::default()).await;
    let (status, list) = server
        .json(&server.viewer, Method::GET, "/api/inventory", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 3);
    let cache = list.iter().find(|r| r["name"] == "cache").unwrap();
    assert_eq!(
        cache,
        &json!({
            "id": "lxc:pve1:120",
            "kind": "lxc",
            "name": "cache",
            "aliases": ["memcache"],
            "parent": "node:pve1",
            "status": null,
            "host": "pve1",
            "source": "proxmox"
        })
    );
    let (status, one) = server
        .json(
            &server.viewer,
            Method::GET,
            "/api/inventory/vm%3Apve1%3A101",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(one["name"], "web1");
    assert_eq!(one["status"], "running");
    let (status, node) = server
        .json(
            &server.viewer,
            Method::GET,
            "/api/inventory/node%3Apve1",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(node["host"], "pve1");
    assert_eq!(node["parent"], Value::Null);
    for missing in ["vm%3Apve1%3A999", "not-an-id"] {
        let (status, body) = server
            .json(
                &server.viewer,
                Method::GET,
                &format!("/api/inventory/{missing}"),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
        assert_eq!(body["error"]["code"], "NOT_FOUND");
    }
}

#[tokio::test]
async fn audit_pages_verify_and_usage() {
    let server = start(Options::default()).await;
    server.book.add(
        "zq look",
        Script::new()
            .call("query", json!({"action": "get", "target": "web1"}))
            .call(
                "read",
                json!({"action": "exec", "target": "web1", "command": "uptime"}),
            )
            .text("web1 is up."),
    );
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    server.post(&server.operator, &session, "zq look").await;
    events.until("done", Duration::from_secs(20)).await;

    let (status, all) = server
        .json(&server.viewer, Method::GET, "/api/audit", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let all = all.as_array().unwrap();
    assert!(all.len() >= 2, "{all:?}");
    let seqs: Vec<i64> = all.iter().map(|r| r["seq"].as_i64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "ascending: {seqs:?}");
    for field in [
        "at",
        "session_id",
        "tool",
        "decision",
        "command",
        "duration_ms",
        "hash",
    ] {
        assert!(all[0].get(field).is_some(), "{field}: {}", all[0]);
    }
    assert!(
        all.iter()
            .any(|r| r["session_id"] == session.as_str() && r["tool"] == "read")
    );
    let (_, page) = server
        .json(
            &server.viewer,
            Method::GET,
            &format!("/api/audit?after={}&limit=1", seqs[0]),
            None,
        )
        .await;
    assert_eq!(page.as_array().unwrap().len(), 1);
    assert_eq!(page[0]["seq"], seqs[1]);
    let (status, verify) = server
        .json(&server.viewer, Method::GET, "/api/audit/verify", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(verify["intact"], true);
    assert_eq!(verify["records"], all.len());
    assert_eq!(verify["head_hash"], all.last().unwrap()["hash"]);

    let (_, usage) = server
        .json(&server.viewer, Method::GET, "/api/usage?since=7d", None)
        .await;
    assert_eq!(
        usage,
        json!([{"provider": "test", "model": "book", "input_tokens": 300, "output_tokens": 40, "cost_usd": null}])
    );
}

#[tokio::test]
async fn metrics_show_gates_requests_tools_tokens_and_gauges() {
    let server = start(Options::default()).await;
    server.book.add(
        "zq metrics",
        Script::new()
            .call(
                "control",
                json!({"action": "guest", "target": "web1", "operation": "stop"}),
            )
            .call("query", json!({"action": "get", "target": "web1"}))
            .text("done"),
    );
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    server.post(&server.operator, &session, "zq metrics").await;
    events.until("done", Duration::from_secs(20)).await;
    let response = server
        .client
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let (status, text) = server
        .json(&server.viewer, Method::GET, "/metrics", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let text = text.as_str().unwrap();
    for family in [
        "warden_fsm_tool_block_total",
        "warden_fsm_final_block_total",
        "warden_strict_resolution_block_total",
        "warden_routing_mismatch_block_total",
        "warden_phantom_detected_total",
        "warden_auto_recovery_attempt_total",
        "warden_auto_recovery_success_total",
        "warden_agentic_iterations_total",
        "warden_http_request_duration_seconds_bucket",
        "warden_tool_duration_seconds_bucket",
        "warden_model_tokens_total",
        "warden_active_sessions",
        "warden_pending_approvals",
        "warden_connected_agents 0",
        "warden_running_turns",
        "warden_sse_clients",
    ] {
        assert!(text.contains(family), "{family} missing:\n{text}");
    }
    // The write before discovery was blocked by strict resolution (or the FSM).
    assert!(
        text.lines()
            .any(|l| (l.starts_with("warden_strict_resolution_block_total{")
                || l.starts_with("warden_fsm_tool_block_total{"))
                && l.contains("tool=\"control\"")),
        "{text}"
    );
    assert!(
        text.contains("provider=\"test\",model=\"book\",direction=\"input\""),
        "{text}"
    );
    assert!(
        text.contains("route=\"/api/sessions/{id}/messages\""),
        "{text}"
    );
    // Labels are bounded: no session ids, no raw paths.
    assert!(!text.contains(&session), "session ids never become labels");
}

#[tokio::test]
async fn proxmox_clusters_are_for_admins() {
    let server = start(Options::default()).await;
    for token in [&server.viewer, &server.operator, &server.approver] {
        let (status, body) = server
            .json(token, Method::GET, "/api/proxmox/clusters", None)
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    }
    let (status, list) = server
        .json(&server.admin, Method::GET, "/api/proxmox/clusters", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list, json!([]));
    let add = json!({"name": "lab", "url": "https://pve1.lan:8006",
        "token_id": "warden@pve!ops", "token_secret": "s3cret"});
    let (status, body) = server
        .json(
            &server.operator,
            Method::POST,
            "/api/proxmox/clusters",
            Some(add.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    // A simulated world has no clusters to join.
    let (status, body) = server
        .json(
            &server.admin,
            Method::POST,
            "/api/proxmox/clusters",
            Some(add),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("simulated")
    );
    // Unknown fields are refused, naming what is wrong.
    let (status, body) = server
        .json(&server.admin, Method::POST, "/api/proxmox/clusters",
            Some(json!({"name": "lab", "url": "x", "token_id": "t", "token_secret": "s", "secret": 1})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, _) = server
        .json(
            &server.admin,
            Method::DELETE,
            "/api/proxmox/clusters/lab",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
