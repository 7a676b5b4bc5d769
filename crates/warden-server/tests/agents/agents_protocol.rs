//! The agent side of spec/agent.md played by a scripted (often hostile)
//! agent on a raw WebSocket against the real server: enrollment tokens,
//! name conflicts, the signed hello, revocation, frame limits, heartbeats,
//! inventory reports and metrics samples.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use warden_store::NewEnrollmentToken;
use warden_testkit::agent_peer::{Incoming, closed, handshake, key, next_within, send};
use warden_testkit::test_server::connect;
use warden_testkit::test_server::{Options, TestServer, start};
use warden_testkit::time::now_ms;

async fn server_with_heartbeat(secs: u64) -> TestServer {
    start(Options {
        agents: Box::new(move |agents| {
            agents.heartbeat = Duration::from_secs(secs);
        }),
        ..Options::default()
    })
    .await
}

#[tokio::test]
async fn enrollment_tokens_are_single_or_n_use_and_expire() {
    let server = start(Options::default()).await;
    // Single use by default.
    let once = server.enrollment_token(json!({})).await;
    assert_eq!(server.enroll(&once, "a1", &key(1)).await.0, StatusCode::OK);
    let (status, body) = server.enroll(&once, "a2", &key(2)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["error"]["code"], "UNAUTHENTICATED");
    // N uses.
    let twice = server
        .enrollment_token(json!({"uses": 2, "expires_in_hours": 1}))
        .await;
    assert_eq!(server.enroll(&twice, "b1", &key(3)).await.0, StatusCode::OK);
    assert_eq!(server.enroll(&twice, "b2", &key(4)).await.0, StatusCode::OK);
    assert_eq!(
        server.enroll(&twice, "b3", &key(5)).await.0,
        StatusCode::UNAUTHORIZED
    );
    // Expired, and never issued.
    server
        .store
        .add_enrollment_token(&NewEnrollmentToken {
            token_hash: warden_server::auth::secrets::sha256_hex("wet_old"),
            uses: 5,
            expires_at_ms: now_ms() - 1,
            created_by: None,
            created_at_ms: now_ms() - 10,
        })
        .unwrap();
    for token in ["wet_old", "wet_never-issued"] {
        let (status, body) = server.enroll(token, "c1", &key(6)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token}: {body}");
    }
    let names: Vec<Value> = server
        .agents()
        .await
        .iter()
        .map(|a| a["name"].clone())
        .collect();
    assert_eq!(names, [json!("a1"), json!("b1"), json!("b2")]);
}

#[tokio::test]
async fn token_requests_are_checked() {
    let server = start(Options::default()).await;
    let cases = [
        (json!({"uses": 0}), Some("uses")),
        (json!({"uses": 10001}), Some("uses")),
        (json!({"expires_in_hours": 0}), Some("expires_in_hours")),
        (json!({"expires_in_hours": 9000}), Some("expires_in_hours")),
        (json!({"scope": "all"}), None),
        (json!({"uses": "two"}), None),
    ];
    for (body, field) in cases {
        let (status, answer) = server
            .json(
                &server.admin,
                Method::POST,
                "/api/agents/enrollment-tokens",
                Some(body.clone()),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], "INVALID_INPUT");
        if let Some(field) = field {
            assert_eq!(answer["error"]["field"], field, "{body}");
        }
    }
    for token in [&server.viewer, &server.operator, &server.approver] {
        let (status, _) = server
            .json(
                token,
                Method::POST,
                "/api/agents/enrollment-tokens",
                Some(json!({})),
            )
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    // Enrollment bodies: bad names and keys are refused before the token is used.
    let token = server.enrollment_token(json!({})).await;
    let bad = [
        json!({"token": token, "name": "a:b", "public_key": warden_testkit::agent_peer::public_key(&key(1)), "version": "1", "os": "linux", "arch": "x86_64"}),
        json!({"token": token, "name": "web1", "public_key": "AAAA", "version": "1", "os": "linux", "arch": "x86_64"}),
        json!({"token": token, "name": "web1", "public_key": warden_testkit::agent_peer::public_key(&key(1)), "version": "1", "os": "linux"}),
        json!({"token": token, "name": "web1", "public_key": warden_testkit::agent_peer::public_key(&key(1)), "version": "1", "os": "linux", "arch": "x", "extra": 1}),
    ];
    for body in bad {
        let response = server
            .client
            .post(server.url("/api/agents/enroll"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    assert_eq!(
        server.enroll(&token, "web1", &key(1)).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_name_enrolled_under_another_key_is_a_conflict() {
    let server = start(Options::default()).await;
    let id = server.enroll_new("web1", &key(1)).await;
    let token = server.enrollment_token(json!({"uses": 3})).await;
    let (status, body) = server.enroll(&token, "web1", &key(2)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["code"], "CONFLICT");
    // The same key again is a renewal: same id, same server key.
    let (status, again) = server.enroll(&token, "web1", &key(1)).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["agent_id"], id.as_str());
    assert_eq!(
        warden_protocol::agent::decode_base64(again["server_public_key"].as_str().unwrap())
            .unwrap()
            .len(),
        32
    );
}

#[tokio::test]
async fn bad_signatures_and_unknown_agents_are_closed_with_4401() {
    let server = start(Options::default()).await;
    let id = server.enroll_new("web1", &key(1)).await;
    // Signed with another key.
    let mut socket = server.agent_socket().await;
    let answer = handshake(&mut socket, &id, &key(2)).await;
    assert!(matches!(answer, Incoming::Closed(4401)), "{answer:?}");
    // An agent id nobody enrolled.
    let mut socket = server.agent_socket().await;
    let answer = handshake(&mut socket, "agt_nobody", &key(1)).await;
    assert!(matches!(answer, Incoming::Closed(4401)), "{answer:?}");
    // Not a hello at all.
    let mut socket = server.agent_socket().await;
    let _challenge = next_within(&mut socket, Duration::from_secs(5)).await;
    send(&mut socket, json!({"type": "inventory", "resources": []})).await;
    assert_eq!(
        closed(&mut socket, Duration::from_secs(5)).await,
        Some(4401)
    );
    // The right key is welcome.
    let _socket = connect(&server, &id, &key(1)).await;
    // And the endpoint is a WebSocket only.
    let response = server
        .client
        .get(server.url("/api/agents/connect"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_revoked_agent_is_disconnected_at_once_and_refused_after() {
    let server = start(Options::default()).await;
    let id = server.enroll_new("web1", &key(1)).await;
    let mut socket = connect(&server, &id, &key(1)).await;
    let agents = server.agents().await;
    assert_eq!(agents[0]["connected"], true, "{agents:?}");
    assert_eq!(agents[0]["host"], "host:web1");
    let (status, _) = server
        .json(
            &server.viewer,
            Method::DELETE,
            &format!("/api/agents/{id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "admins revoke");
    let (status, _) = server
        .json(
            &server.admin,
            Method::DELETE,
            &format!("/api/agents/{id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(
        closed(&mut socket, Duration::from_secs(3)).await,
        Some(4401)
    );
    let mut again = server.agent_socket().await;
    let answer = handshake(&mut again, &id, &key(1)).await;
    assert!(matches!(answer, Incoming::Closed(4401)), "{answer:?}");
    assert!(server.agents().await.is_empty());
    let (_, audit) = server
        .json(&server.viewer, Method::GET, "/api/audit?limit=1000", None)
        .await;
    assert!(
        audit
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["decision"] == "revoked"
                && r["actor"] == "token:admin (user:admin)"
                && r["target"] == "host:web1"),
        "{audit}"
    );
    let (status, _) = server
        .json(
            &server.admin,
            Method::DELETE,
            &format!("/api/agents/{id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The revoked key cannot enroll again under its name.
    let token = server.enrollment_token(json!({})).await;
    let (status, body) = server.enroll(&token, "web1", &key(1)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
}

#[tokio::test]
async fn an_oversized_frame_closes_the_connection() {
    let server = start(Options::default()).await;
    let id = server.enroll_new("web1", &key(1)).await;
    let mut socket = connect(&server, &id, &key(1)).await;
    let padding = "x".repeat((1 << 20) + 10);
    send(
        &mut socket,
        json!({"type": "metrics", "at": 1, "samples": [], "pad": padding}),
    )
    .await;
    let code = closed(&mut socket, Duration::from_secs(5)).await;
    assert!(matches!(code, None | Some(1009)), "{code:?}");
    assert!(!server.agents().await[0]["connected"].as_bool().unwrap());
}

#[tokio::test]
async fn three_missed_pongs_close_and_answered_pings_keep_it_open() {
    let server = server_with_heartbeat(1).await;
    let id = server.enroll_new("web1", &key(1)).await;
    // Silent: pings pile up unanswered.
    let mut silent = connect(&server, &id, &key(1)).await;
    let started = std::time::Instant::now();
    let mut pings = 0;
    let code = loop {
        match next_within(&mut silent, Duration::from_secs(10)).await {
            Some(Incoming::Frame(frame)) if frame["type"] == "ping" => {
                assert!(frame["at"].as_u64().is_some());
                pings += 1;
            }
            Some(Incoming::Frame(_)) => {}
            Some(Incoming::Closed(code)) => break Some(code),
            Some(Incoming::Ended) => break None,
            None => panic!("never closed"),
        }
    };
    assert_eq!(
        pings, 3,
        "closed after three pings without a pong ({code:?})"
    );
    assert!(started.elapsed() < Duration::from_secs(8));
    // Polite: every ping answered, the connection lives on.
    let mut polite = connect(&server, &id, &key(1)).await;
    let until = tokio::time::Instant::now() + Duration::from_millis(5_500);
    while tokio::time::Instant::now() < until {
        match next_within(&mut polite, Duration::from_millis(500)).await {
            Some(Incoming::Frame(frame)) if frame["type"] == "ping" => {
                send(&mut polite, json!({"type": "pong", "at": frame["at"]})).await;
            }
            Some(Incoming::Frame(_)) | None => {}
            Some(other) => panic!("closed: {other:?}"),
        }
    }
    // The server answers an agent's ping too.
    send(&mut polite, json!({"type": "ping", "at": 42})).await;
    let pong = warden_testkit::agent_peer::until_frame(&mut polite, "pong").await;
    assert_eq!(pong["at"], 42);
    assert_eq!(server.agents().await[0]["connected"], true);
}

fn find<'a>(inventory: &'a [Value], id: &str) -> Option<&'a Value> {
    inventory.iter().find(|r| r["id"] == id)
}

#[tokio::test]
async fn inventory_reports_merge_only_the_agents_own_resources() {
    let server = start(Options::default()).await;
    let id = server.enroll_new("web1", &key(1)).await;
    let mut socket = connect(&server, &id, &key(1)).await;
    send(
        &mut socket,
        json!({"type": "inventory", "resources": [
            {"id": "host:web1", "name": "web1", "status": "up", "source": "local"},
            {"id": "docker_container:web1:abc123", "name": "nginx", "parent": "host:web1", "status": "running"},
            {"id": "host:web2", "name": "web2"},
            {"id": "docker_container:web2:def456", "name": "evil", "parent": "host:web1"},
            {"id": "node:pve1", "name": "pve1-hijack"},
        ]}),
    )
    .await;
    // A frame type this version does not know is ignored.
    send(&mut socket, json!({"type": "telemetry", "x": 1})).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let inventory = loop {
        let inventory = server.inventory_ids().await;
        if find(&inventory, "docker_container:web1:abc123").is_some() {
            break inventory;
        }
        assert!(tokio::time::Instant::now() < deadline, "{inventory:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let host = find(&inventory, "host:web1").unwrap();
    assert_eq!(host["source"], "agent");
    assert_eq!(host["status"], "up");
    assert_eq!(host["host"], "web1");
    let container = find(&inventory, "docker_container:web1:abc123").unwrap();
    assert_eq!(container["source"], "agent");
    assert_eq!(container["host"], "web1");
    assert_eq!(container["parent"], "host:web1");
    assert!(find(&inventory, "host:web2").is_none());
    assert!(find(&inventory, "docker_container:web2:def456").is_none());
    // The server's own node:pve1 is still the one it knew.
    assert_eq!(find(&inventory, "node:pve1").unwrap()["name"], "pve1");
    assert_eq!(find(&inventory, "node:pve1").unwrap()["source"], "proxmox");
    let agents = server.agents().await;
    assert_eq!(agents[0]["connected"], true);
    assert_eq!(agents[0]["version"], "9.9.9");
    assert!(agents[0]["last_seen"].is_string());
    // Gone: still listed, not connected; its host says so.
    drop(socket);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while server.agents().await[0]["connected"] == true {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let inventory = server.inventory_ids().await;
    assert_eq!(
        find(&inventory, "host:web1").unwrap()["status"],
        "disconnected"
    );
    // /metrics counts connected agents.
    let (_, metrics) = server
        .json(&server.viewer, Method::GET, "/metrics", None)
        .await;
    assert!(
        metrics
            .as_str()
            .unwrap()
            .contains("warden_connected_agents")
    );
}

#[tokio::test]
async fn a_new_connection_replaces_the_old_one() {
    let server = start(Options::default()).await;
    let id = server.enroll_new("web1", &key(1)).await;
    let mut first = connect(&server, &id, &key(1)).await;
    let _second = connect(&server, &id, &key(1)).await;
    assert!(closed(&mut first, Duration::from_secs(3)).await.is_some());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.agents().await[0]["connected"], true);
}

/// The value of `warden_agent_metric_samples_total{result="…"}` in /metrics.
async fn metric_samples(server: &TestServer, result: &str) -> f64 {
    let (_, text) = server
        .json(&server.viewer, Method::GET, "/metrics", None)
        .await;
    let needle = format!("warden_agent_metric_samples_total{{result=\"{result}\"}} ");
    text.as_str()
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix(&needle))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

#[tokio::test]
async fn metrics_samples_count_only_the_agents_own_resources() {
    let server = start(Options::default()).await;
    let id = server.enroll_new("web1", &key(1)).await;
    let mut socket = connect(&server, &id, &key(1)).await;
    let foreign_before = metric_samples(&server, "foreign_resource").await;
    let unknown_before = metric_samples(&server, "unknown_metric").await;
    let accepted_before = metric_samples(&server, "accepted").await;
    send(
        &mut socket,
        json!({"type": "metrics", "at": now_ms(), "samples": [
            {"resource": "host:web1", "metric": "cpu_percent", "value": 12.5},
            {"resource": "host:web1", "metric": "disk_used_percent", "instance": "/", "value": 40.0},
            {"resource": "docker_container:web1:abc123", "metric": "restarts", "value": 0.0},
            {"resource": "host:web2", "metric": "cpu_percent", "value": 99.0},
            {"resource": "node:pve1", "metric": "memory_percent", "value": 50.0},
            {"resource": "host:web1", "metric": "gpu_percent", "value": 1.0},
        ]}),
    )
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while metric_samples(&server, "foreign_resource").await < foreign_before + 2.0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "foreign samples not counted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        metric_samples(&server, "unknown_metric").await,
        unknown_before + 1.0
    );
    assert!(metric_samples(&server, "accepted").await >= accepted_before + 3.0);
    // Dropped samples are no reason to drop the agent.
    send(&mut socket, json!({"type": "ping", "at": 7})).await;
    loop {
        match next_within(&mut socket, Duration::from_secs(5)).await {
            Some(Incoming::Frame(frame)) if frame["type"] == "pong" && frame["at"] == 7 => break,
            Some(Incoming::Frame(_)) => {}
            other => panic!("{other:?}"),
        }
    }
}
