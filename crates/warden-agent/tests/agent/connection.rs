//! The connection's life against a real WebSocket server: the challenge
//! signature, rejection, a bad welcome, a dead server, a restarted server,
//! TLS with a pinned certificate, and a clean shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use support::{Behaviour, ServerState, TestServer, agent_config, enroll_agent, read, start_agent};
use warden_agent::AgentError;
use warden_protocol::agent::{AgentFrame, ExecErrorCode};

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..400 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting until {what}");
}

#[tokio::test]
async fn the_agent_proves_its_identity_and_reports_its_inventory() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    let agent = start_agent(agent_config(&state_dir));
    let mut conn = server.next_connection().await;
    // The server let it in only after `verify_hello` accepted its signature.
    assert_eq!(server.state.verified.load(Ordering::SeqCst), 1);
    assert_eq!(conn.agent_id, "agt_web1");
    assert_eq!(conn.version, warden_agent::AGENT_VERSION);
    let inventory = conn.inventory().await;
    assert_eq!(inventory[0].id.to_string(), "host:web1");
    // It answers pings with the same `at`.
    conn.send(AgentFrame::Ping(warden_protocol::agent::Heartbeat {
        at: 42,
    }));
    loop {
        // (The server's own pings are answered too; look for ours.)
        if let Some(AgentFrame::Pong(pong)) = conn.next_frame().await
            && pong.at == 42
        {
            break;
        }
    }
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn a_rejected_agent_stops_instead_of_retrying() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    server.state.set_behaviour(Behaviour::Reject);
    let agent = start_agent(agent_config(&state_dir));
    let ended = tokio::time::timeout(Duration::from_secs(10), agent.handle)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(ended, Err(AgentError::Rejected { .. })),
        "{ended:?}"
    );
    assert_eq!(server.state.attempts.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_unknown_key_is_closed_with_4401() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    // The server forgets the agent (as after a revocation).
    server.state.agents.lock().unwrap().clear();
    let agent = start_agent(agent_config(&state_dir));
    let ended = tokio::time::timeout(Duration::from_secs(10), agent.handle)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(ended, Err(AgentError::Rejected { .. })),
        "{ended:?}"
    );
    assert_eq!(server.state.verified.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_revocation_while_connected_stops_the_agent() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    let agent = start_agent(agent_config(&state_dir));
    let conn = server.next_connection().await;
    conn.close(4401, "revoked");
    let ended = tokio::time::timeout(Duration::from_secs(10), agent.handle)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(ended, Err(AgentError::Rejected { .. })),
        "{ended:?}"
    );
}

#[tokio::test]
async fn a_bad_welcome_is_retried_with_back_off() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    server.state.set_behaviour(Behaviour::BadWelcome);
    let agent = start_agent(agent_config(&state_dir));
    let state = std::sync::Arc::clone(&server.state);
    wait_until("three attempts", || {
        state.attempts.load(Ordering::SeqCst) >= 3
    })
    .await;
    server.state.set_behaviour(Behaviour::Normal);
    let mut conn = server.next_connection().await;
    assert!(!conn.inventory().await.is_empty());
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn a_silent_server_is_detected_and_replaced() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    server.state.set_behaviour(Behaviour::Silent);
    server.state.set_heartbeat_secs(1);
    let mut config = agent_config(&state_dir);
    config.heartbeat_timeout = Some(Duration::from_millis(1500));
    let agent = start_agent(config);
    let mut silent = server.next_connection().await;
    // The agent pings a silent server before giving up on it.
    loop {
        if let Some(AgentFrame::Ping(_)) = silent.next_frame().await {
            break;
        }
    }
    server.state.set_behaviour(Behaviour::Normal);
    let started = std::time::Instant::now();
    let _second = server.next_connection().await;
    assert!(started.elapsed() < Duration::from_secs(5));
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn the_agent_reconnects_after_the_server_restarts() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    let agent = start_agent(agent_config(&state_dir));
    let mut first = server.next_connection().await;
    first.inventory().await;
    let (state, addr) = server.stop().await;
    // Down for a while: the agent keeps trying, backing off.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let restarted = TestServer::start_with(state, Some(addr)).await;
    let mut second = restarted.next_connection().await;
    assert_eq!(second.agent_id, "agt_web1");
    let result = second
        .exec(read("after-restart", "host:web1", "echo back"))
        .await;
    assert_eq!(result.stdout(), "back\n");
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn the_connection_runs_over_tls_with_a_pinned_certificate() {
    let identity = support::tls::self_signed();
    let server = TestServer::start_tls(ServerState::new(), &identity).await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = dir.path().join("tls-agent");
    warden_agent::enroll(warden_agent::EnrollOptions {
        server: format!("https://localhost:{}", server.addr.port()),
        token: support::TOKEN.into(),
        trust: warden_agent::ServerTrust::Fingerprint {
            sha256: warden_agent::tls::certificate_fingerprint(&identity.leaf_der),
        },
        name: "tls1".into(),
        state_dir: state_dir.clone(),
    })
    .await
    .unwrap();
    let agent = start_agent(agent_config(&state_dir));
    let mut conn = server.next_connection().await;
    let result = conn
        .exec(read("tls-read", "host:tls1", "echo over-tls"))
        .await;
    assert_eq!(result.stdout(), "over-tls\n");
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_cancels_running_commands_and_closes_cleanly() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    let agent = start_agent(agent_config(&state_dir));
    let mut conn = server.next_connection().await;
    conn.send(AgentFrame::Exec(read("long", "host:web1", "sleep 30")));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = std::time::Instant::now();
    agent.trigger.trigger();
    let result = conn.collect("long").await;
    assert_eq!(result.result.error.unwrap().code, ExecErrorCode::Cancelled);
    let ended = tokio::time::timeout(Duration::from_secs(10), agent.handle)
        .await
        .unwrap()
        .unwrap();
    assert!(ended.is_ok(), "{ended:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let state = std::sync::Arc::clone(&server.state);
    wait_until("the close frame", || {
        state.closes.lock().unwrap().contains(&1000)
    })
    .await;
}
