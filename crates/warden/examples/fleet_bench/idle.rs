//! (b) N idle connected agents and the server's resident memory: one
//! process plays N lightweight agents that enroll over HTTP and speak the
//! protocol of spec/agent.md (challenge → hello → welcome, an inventory of
//! their host, a pong for every ping), then stay idle.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ed25519_dalek::SigningKey;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use warden_protocol::agent::{
    AgentFrame, EnrollResponse, Heartbeat, Hello, InventoryReport, ParsedFrame,
    decode_challenge_nonce, encode_base64, parse_frame, sign_hello,
};
use warden_protocol::{Resource, ResourceId, ResourceKind};

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

    let ws = format!(
        "{}/api/agents/connect",
        serve.base.replacen("http://", "ws://", 1)
    );
    let connecting = futures_util::stream::iter(identities.into_iter().map(|identity| {
        let ws = ws.clone();
        let closed = Arc::clone(&closed);
        async move {
            let Identity { name, id, key } = identity;
            let (mut socket, _) = tokio_tungstenite::connect_async(&ws).await.unwrap();
            let challenge = next_frame(&mut socket).await;
            let AgentFrame::Challenge(challenge) = challenge else {
                panic!("{name}: expected a challenge, got {challenge:?}");
            };
            let nonce = decode_challenge_nonce(&challenge.nonce).unwrap();
            send(
                &mut socket,
                &AgentFrame::Hello(Hello {
                    agent_id: id,
                    version: env!("CARGO_PKG_VERSION").to_string(),
                    signature: sign_hello(&key, &nonce),
                }),
            )
            .await;
            let welcome = next_frame(&mut socket).await;
            assert!(
                matches!(welcome, AgentFrame::Welcome(_)),
                "{name}: {welcome:?}"
            );
            let host = Resource::new(ResourceId::global(ResourceKind::Host, &name), &name);
            send(
                &mut socket,
                &AgentFrame::Inventory(InventoryReport {
                    resources: vec![host],
                }),
            )
            .await;
            tokio::spawn(async move {
                while let Some(Ok(message)) = socket.next().await {
                    let Message::Text(text) = message else {
                        continue;
                    };
                    if let Ok(ParsedFrame::Known(AgentFrame::Ping(Heartbeat { at }))) =
                        parse_frame(&text)
                    {
                        let pong = AgentFrame::Pong(Heartbeat { at });
                        if socket
                            .send(Message::text(pong.to_text().unwrap()))
                            .await
                            .is_err()
                        {
                            break;
                        }
                    }
                }
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
    let response = serve
        .http
        .post(format!("{}/api/agents/enroll", serve.base))
        .json(&json!({
            "token": token,
            "name": name,
            "public_key": encode_base64(key.verifying_key().as_bytes()),
            "version": env!("CARGO_PKG_VERSION"),
            "os": "linux",
            "arch": "x86_64",
        }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert!(status.is_success(), "enrolling {name}: {status} {text}");
    let enrolled: EnrollResponse = serde_json::from_str(&text).unwrap();
    Identity {
        name: name.to_string(),
        id: enrolled.agent_id,
        key,
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next_frame(socket: &mut Socket) -> AgentFrame {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), socket.next())
            .await
            .expect("the server answered")
            .expect("the connection stayed open")
            .unwrap();
        if let Message::Text(text) = message {
            match parse_frame(&text).unwrap() {
                ParsedFrame::Known(frame) => return frame,
                ParsedFrame::Unknown { .. } => continue,
            }
        }
    }
}

async fn send(socket: &mut Socket, frame: &AgentFrame) {
    socket
        .send(Message::text(frame.to_text().unwrap()))
        .await
        .unwrap();
}
