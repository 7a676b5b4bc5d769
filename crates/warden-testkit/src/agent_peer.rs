//! The scripted agent: an agent-protocol peer (`spec/agent.md`) on a raw
//! WebSocket (tokio-tungstenite) that plays a well-behaved or a hostile
//! agent against a real server, frame by frame, plus the HTTP call of
//! enrollment. Frames are JSON values, so a test can send what no real
//! agent would.

use std::time::Duration;

use ed25519_dalek::SigningKey;
use futures_util::{SinkExt, StreamExt};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use warden_protocol::agent::{decode_challenge_nonce, encode_base64, sign_hello};

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How long the peer waits for the server by default.
pub const WAIT: Duration = Duration::from_secs(20);

/// A key from a seed (tests want distinct, reproducible keys).
pub fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

pub fn public_key(key: &SigningKey) -> String {
    encode_base64(key.verifying_key().as_bytes())
}

/// `POST {base}/api/agents/enroll` with `token` (no user credentials):
/// the status and the JSON answer.
pub async fn enroll(
    client: &Client,
    base: &str,
    token: &str,
    name: &str,
    key: &SigningKey,
) -> (StatusCode, Value) {
    let response = client
        .post(format!("{base}/api/agents/enroll"))
        .json(&json!({
            "token": token,
            "name": name,
            "public_key": public_key(key),
            "version": "9.9.9",
            "os": "linux",
            "arch": "x86_64",
        }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// A WebSocket to `{base}/api/agents/connect` (`http` becomes `ws`), no
/// handshake yet.
pub async fn socket(base: &str) -> Socket {
    let url = format!("{}/api/agents/connect", base.replacen("http", "ws", 1));
    let config = WebSocketConfig::default().max_message_size(Some(4 << 20));
    let (socket, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), false)
        .await
        .unwrap();
    socket
}

/// What came from the server.
#[derive(Debug)]
pub enum Incoming {
    Frame(Value),
    /// A close frame with its code (1005 when it had none).
    Closed(u16),
    /// The connection ended without a close frame.
    Ended,
}

/// The next frame (pings from tungstenite are answered by it).
pub async fn next(socket: &mut Socket) -> Incoming {
    next_within(socket, WAIT)
        .await
        .expect("the server said nothing in time")
}

pub async fn next_within(socket: &mut Socket, wait: Duration) -> Option<Incoming> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let message = tokio::time::timeout_at(deadline, socket.next())
            .await
            .ok()?;
        return Some(match message {
            Some(Ok(Message::Text(text))) => Incoming::Frame(serde_json::from_str(&text).unwrap()),
            Some(Ok(Message::Close(frame))) => {
                Incoming::Closed(frame.map_or(1005, |f| u16::from(f.code)))
            }
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => Incoming::Ended,
        });
    }
}

/// The next frame of `kind`, answering the protocol's pings on the way.
pub async fn until_frame(socket: &mut Socket, kind: &str) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let incoming = next_within(socket, left)
            .await
            .unwrap_or_else(|| panic!("no {kind} frame in time"));
        match incoming {
            Incoming::Frame(frame) if frame["type"] == kind => return frame,
            Incoming::Frame(frame) if frame["type"] == "ping" => {
                send(socket, json!({"type": "pong", "at": frame["at"]})).await;
            }
            Incoming::Frame(_) => {}
            other => panic!("expected a {kind} frame, got {other:?}"),
        }
    }
}

pub async fn send(socket: &mut Socket, frame: Value) {
    socket.send(Message::text(frame.to_string())).await.unwrap();
}

/// Challenge → hello signed by `key` for `agent_id` → what the server said.
pub async fn handshake(socket: &mut Socket, agent_id: &str, key: &SigningKey) -> Incoming {
    let challenge = match next(socket).await {
        Incoming::Frame(frame) => frame,
        other => panic!("expected a challenge, got {other:?}"),
    };
    assert_eq!(challenge["type"], "challenge");
    let nonce = decode_challenge_nonce(challenge["nonce"].as_str().unwrap()).unwrap();
    send(
        socket,
        json!({
            "type": "hello",
            "agent_id": agent_id,
            "version": "9.9.9",
            "signature": sign_hello(key, &nonce),
        }),
    )
    .await;
    next(socket).await
}

/// A connected, welcomed agent at the server `base`.
pub async fn connect(base: &str, agent_id: &str, key: &SigningKey) -> Socket {
    let mut socket = socket(base).await;
    match handshake(&mut socket, agent_id, key).await {
        Incoming::Frame(welcome) if welcome["type"] == "welcome" => {
            assert!(welcome["heartbeat_secs"].as_u64().unwrap() >= 1);
        }
        other => panic!("expected a welcome, got {other:?}"),
    }
    socket
}

/// Waits until the connection is closed; the close code, if any.
pub async fn closed(socket: &mut Socket, wait: Duration) -> Option<u16> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match next_within(socket, left).await {
            None => panic!("the connection stayed open"),
            Some(Incoming::Closed(code)) => return Some(code),
            Some(Incoming::Ended) => return None,
            Some(Incoming::Frame(_)) => {}
        }
    }
}

/// An idle agent: answers every ping with a pong until the connection
/// ends (ignoring everything else).
pub async fn answer_pings(mut socket: Socket) {
    while let Some(Ok(message)) = socket.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        let Ok(frame) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if frame["type"] == "ping" {
            let pong = json!({"type": "pong", "at": frame["at"]}).to_string();
            if socket.send(Message::text(pong)).await.is_err() {
                return;
            }
        }
    }
}
