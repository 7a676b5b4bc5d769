//! A scripted agent speaking the wire protocol on a raw WebSocket
//! (tokio-tungstenite), to play a well-behaved or a hostile agent against
//! the real server, plus the HTTP calls of enrollment.

use std::time::Duration;

use ed25519_dalek::SigningKey;
use futures_util::{SinkExt, StreamExt};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use warden_protocol::agent::{decode_challenge_nonce, encode_base64, sign_hello};

use super::TestServer;

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

const WAIT: Duration = Duration::from_secs(20);

/// A fresh key from a seed (tests want distinct, reproducible keys).
pub fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

pub fn public_key(key: &SigningKey) -> String {
    encode_base64(key.verifying_key().as_bytes())
}

impl TestServer {
    /// An enrollment token made by the admin.
    pub async fn enrollment_token(&self, body: Value) -> String {
        let (status, created) = self
            .json(
                &self.admin,
                Method::POST,
                "/api/agents/enrollment-tokens",
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{created}");
        assert!(created["expires_at"].is_string(), "{created}");
        created["token"].as_str().unwrap().to_string()
    }

    /// `POST /api/agents/enroll` without user credentials.
    pub async fn enroll(&self, token: &str, name: &str, key: &SigningKey) -> (StatusCode, Value) {
        let response = self
            .client
            .post(self.url("/api/agents/enroll"))
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

    /// Enrolls `name` with a new single-use token; returns its agent id.
    pub async fn enroll_new(&self, name: &str, key: &SigningKey) -> String {
        let token = self.enrollment_token(json!({})).await;
        let (status, body) = self.enroll(&token, name, key).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["agent_id"].as_str().unwrap().to_string()
    }

    /// A WebSocket to the agent endpoint (no handshake yet).
    pub async fn agent_socket(&self) -> Socket {
        let url = format!("{}/api/agents/connect", self.base.replace("http", "ws"));
        let config = WebSocketConfig::default().max_message_size(Some(4 << 20));
        let (socket, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), false)
            .await
            .unwrap();
        socket
    }

    /// The agents as `GET /api/agents` lists them.
    pub async fn agents(&self) -> Vec<Value> {
        let (status, body) = self
            .json(&self.viewer, Method::GET, "/api/agents", None)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body.as_array().unwrap().clone()
    }

    /// The inventory as `GET /api/inventory` lists it.
    pub async fn inventory_ids(&self) -> Vec<Value> {
        let (status, body) = self
            .json(&self.viewer, Method::GET, "/api/inventory", None)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body.as_array().unwrap().clone()
    }
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

/// The next frame of `kind`, answering pings on the way when `pong`.
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

/// A connected, welcomed agent.
pub async fn connect(server: &TestServer, agent_id: &str, key: &SigningKey) -> Socket {
    let mut socket = server.agent_socket().await;
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
