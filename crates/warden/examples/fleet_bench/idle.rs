//! (b) N idle connected agents and the server's resident memory: one
//! process plays N lightweight agents (the testkit's scripted agent) that
//! enroll over HTTP and speak the protocol of spec/agent.md (challenge →
//! hello → welcome, an inventory of their host, a pong for every ping),
//! then stay idle.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ed25519_dalek::SigningKey;
use futures_util::StreamExt;
use warden_protocol::agent::{AgentFrame, InventoryReport};
use warden_protocol::{Resource, ResourceId, ResourceKind};
use warden_testkit::agent_peer;

use crate::server::{Serve, mib, rss_kib};

pub async fn run(binary: &Path, count: usize, hold: Duration) {
    let dir = tempfile::tempdir().unwrap();
    // No turn runs here: the model is never asked. Pings every 5 s, so the
    // idle agents answer a few while they are held.
    let serve = Serve::start(binary, dir.path(), "http://127.0.0.1:9/v1", 5);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss_kib(serve.pid());
    println!("server RSS before: {}", mib(before));

    let token = serve.enrollment_token(count as u32).await;
    let started = Instant::now();
    let closed = Arc::new(AtomicUsize::new(0));
    let mut identities = Vec::with_capacity(count);
    let enrollments = futures_util::stream::iter((0..count).map(|i| {
        let (serve, token) = (&serve, &token);
        async move { enroll(serve, token, &format!("sim-{i:04}")).await }
    }))
    .buffer_unordered(32);
    futures_util::pin_mut!(enrollments);
    while let Some(identity) = enrollments.next().await {
        identities.push(identity);
    }
    println!(
        "enrolled {count} simulated agents in {:?}",
        started.elapsed()
    );

    let base = serve.base.clone();
    let connecting = futures_util::stream::iter(identities.into_iter().map(|identity| {
        let base = base.clone();
        let closed = Arc::clone(&closed);
        async move {
            let Identity { name, id, key } = identity;
            let mut socket = agent_peer::connect(&base, &id, &key).await;
            let host = Resource::new(ResourceId::global(ResourceKind::Host, &name), &name);
            let inventory = AgentFrame::Inventory(InventoryReport {
                resources: vec![host],
            });
            agent_peer::send(
                &mut socket,
                serde_json::from_str(&inventory.to_text().unwrap()).unwrap(),
            )
            .await;
            tokio::spawn(async move {
                agent_peer::answer_pings(socket).await;
                closed.fetch_add(1, Ordering::Relaxed);
            });
        }
    }))
    .buffer_unordered(64);
    futures_util::pin_mut!(connecting);
    while connecting.next().await.is_some() {}
    let took = serve.wait_connected(count, Duration::from_secs(120)).await;
    println!(
        "{count} connected in {:?} (listed {took:?} after the last hello)",
        started.elapsed()
    );

    let mut peak = 0;
    let end = Instant::now() + hold;
    while Instant::now() < end {
        peak = peak.max(rss_kib(serve.pid()));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let after = rss_kib(serve.pid());
    let listed = serve.call("GET", "/api/agents", None).await;
    let connected = listed
        .as_array()
        .map(|a| a.iter().filter(|a| a["connected"] == true).count())
        .unwrap_or(0);
    println!(
        "after {hold:?} idle: {connected} listed connected, {} closed by the server",
        closed.load(Ordering::Relaxed)
    );
    println!(
        "server RSS with {count} idle agents: {} (peak {}), {} more than before (target ≤ 100 MB)",
        mib(after),
        mib(peak),
        mib(after.saturating_sub(before))
    );
}

struct Identity {
    name: String,
    id: String,
    key: SigningKey,
}

async fn enroll(serve: &Serve, token: &str, name: &str) -> Identity {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).unwrap();
    let key = SigningKey::from_bytes(&secret);
    let (status, enrolled) = agent_peer::enroll(&serve.http, &serve.base, token, name, &key).await;
    assert!(status.is_success(), "enrolling {name}: {status} {enrolled}");
    Identity {
        name: name.to_string(),
        id: enrolled["agent_id"].as_str().unwrap().to_string(),
        key,
    }
}
