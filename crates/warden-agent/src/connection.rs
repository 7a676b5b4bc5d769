//! Opening the agent connection (spec/agent.md "Connection"): TCP, TLS
//! (unless plain `ws` on loopback), the WebSocket upgrade of
//! `/api/agents/connect`, then the challenge: the server's nonce signed with
//! the agent's key, answered by `welcome` or a 4401 close.

use std::sync::Arc;
use std::time::Duration;

use ed25519_dalek::SigningKey;
use futures_util::{SinkExt, StreamExt};
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use warden_protocol::agent::{
    AgentFrame, CLOSE_UNAUTHORIZED, CONNECT_PATH, FrameError, Hello, MAX_FRAME_BYTES, ParsedFrame,
    Welcome, decode_challenge_nonce, parse_frame, sign_hello,
};

use crate::server_url::ServerUrl;
use crate::tls::PresentedCertificate;

/// How long each step of opening a connection may take.
const STEP_TIMEOUT: Duration = Duration::from_secs(15);

/// Any byte stream the WebSocket can run over (plain TCP or TLS).
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

pub type AgentSocket = WebSocketStream<Box<dyn Io>>;

/// What the agent needs to open a connection.
#[derive(Debug, Clone)]
pub struct ConnectTarget {
    pub server: ServerUrl,
    pub tls: Arc<ClientConfig>,
    pub presented: PresentedCertificate,
    pub agent_id: String,
    pub version: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The server refused this agent (unknown, bad signature, revoked).
    #[error("the server refused this agent's identity (close {code}: {reason})")]
    Rejected { code: u16, reason: String },
    #[error("cannot reach {server}: {message}")]
    Transport { server: String, message: String },
    #[error(
        "the server's certificate does not match the pinned fingerprint (--fingerprint): it presented SHA256 {presented}. If the server's certificate was renewed, pin the new one: --fingerprint {presented}"
    )]
    FingerprintMismatch { presented: String },
    #[error(
        "the server's certificate is not trusted ({reason}): it presented SHA256 {presented}. If that is your Warden server's certificate (`warden serve` prints its fingerprint at start), pin it with --fingerprint {presented}, or give its CA with --ca-file"
    )]
    Untrusted { presented: String, reason: String },
    #[error("the server broke the handshake: {0}")]
    Protocol(String),
    #[error("timed out {0}")]
    Timeout(&'static str),
}

/// A connection past the handshake.
pub struct Welcomed {
    pub socket: AgentSocket,
    pub welcome: Welcome,
}

/// Connects and authenticates.
pub async fn connect(target: &ConnectTarget, key: &SigningKey) -> Result<Welcomed, ConnectError> {
    let mut socket = open_socket(target).await?;
    let nonce = match next_frame(&mut socket, "waiting for the challenge").await? {
        AgentFrame::Challenge(challenge) => {
            decode_challenge_nonce(&challenge.nonce).ok_or_else(|| {
                ConnectError::Protocol("the challenge nonce is not base64 of 32 bytes".into())
            })?
        }
        other => {
            return Err(ConnectError::Protocol(format!(
                "expected a challenge, got `{}`",
                other.frame_type()
            )));
        }
    };
    let hello = AgentFrame::Hello(Hello {
        agent_id: target.agent_id.clone(),
        version: target.version.clone(),
        signature: sign_hello(key, &nonce),
    });
    send_frame(&mut socket, &hello).await?;
    match next_frame(&mut socket, "waiting for the welcome").await? {
        AgentFrame::Welcome(welcome) => Ok(Welcomed { socket, welcome }),
        other => Err(ConnectError::Protocol(format!(
            "expected a welcome, got `{}`",
            other.frame_type()
        ))),
    }
}

/// The WebSocket configuration: frames and messages at most 1 MiB.
pub fn socket_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_FRAME_BYTES))
        .max_frame_size(Some(MAX_FRAME_BYTES))
}

async fn open_socket(target: &ConnectTarget) -> Result<AgentSocket, ConnectError> {
    let server = &target.server;
    let transport = |message: String| ConnectError::Transport {
        server: server.to_string(),
        message,
    };
    let tcp = tokio::time::timeout(
        STEP_TIMEOUT,
        TcpStream::connect((server.host().as_str(), server.port())),
    )
    .await
    .map_err(|_| ConnectError::Timeout("connecting"))?
    .map_err(|err| transport(err.to_string()))?;
    tcp.set_nodelay(true).ok();
    let stream: Box<dyn Io> = if server.uses_tls() {
        let name = ServerName::try_from(server.host())
            .map_err(|err| transport(format!("bad server name: {err}")))?;
        let connector = tokio_rustls::TlsConnector::from(Arc::clone(&target.tls));
        let tls = tokio::time::timeout(STEP_TIMEOUT, connector.connect(name, tcp))
            .await
            .map_err(|_| ConnectError::Timeout("in the TLS handshake"))?
            .map_err(
                |err| match (target.presented.mismatch(), target.presented.untrusted()) {
                    (Some(mismatch), _) => ConnectError::FingerprintMismatch {
                        presented: mismatch.presented.to_string(),
                    },
                    (None, Some(untrusted)) => ConnectError::Untrusted {
                        presented: untrusted.presented.to_string(),
                        reason: untrusted.reason,
                    },
                    (None, None) => transport(format!("TLS: {err}")),
                },
            )?;
        Box::new(tls)
    } else {
        Box::new(tcp)
    };
    let url = server.websocket(CONNECT_PATH);
    let (socket, _response) = tokio::time::timeout(
        STEP_TIMEOUT,
        tokio_tungstenite::client_async_with_config(url, stream, Some(socket_config())),
    )
    .await
    .map_err(|_| ConnectError::Timeout("in the WebSocket upgrade"))?
    .map_err(|err| match err {
        tungstenite::Error::Http(response) if response.status().as_u16() == 401 => {
            ConnectError::Rejected {
                code: 401,
                reason: "HTTP 401 on the upgrade".into(),
            }
        }
        other => transport(format!("WebSocket upgrade: {other}")),
    })?;
    Ok(socket)
}

/// The next protocol frame during the handshake (pings skipped, unknown
/// frame types ignored, a close turned into an error).
async fn next_frame(
    socket: &mut AgentSocket,
    step: &'static str,
) -> Result<AgentFrame, ConnectError> {
    loop {
        let message = tokio::time::timeout(STEP_TIMEOUT, socket.next())
            .await
            .map_err(|_| ConnectError::Timeout(step))?;
        match message {
            None => return Err(ConnectError::Protocol(format!("closed while {step}"))),
            Some(Err(err)) => return Err(ConnectError::Protocol(format!("{step}: {err}"))),
            Some(Ok(Message::Text(text))) => match parse_frame(&text) {
                Ok(ParsedFrame::Known(frame)) => return Ok(frame),
                Ok(ParsedFrame::Unknown { frame_type }) => {
                    tracing::warn!("ignoring a frame of unknown type `{frame_type}` while {step}");
                }
                Err(err) => return Err(ConnectError::Protocol(err.to_string())),
            },
            Some(Ok(Message::Close(frame))) => {
                let (code, reason) = frame
                    .map(|f| (u16::from(f.code), f.reason.to_string()))
                    .unwrap_or((1005, String::new()));
                return Err(if code == CLOSE_UNAUTHORIZED {
                    ConnectError::Rejected { code, reason }
                } else {
                    ConnectError::Protocol(format!("closed ({code} {reason}) while {step}"))
                });
            }
            Some(Ok(Message::Binary(_))) => {
                return Err(ConnectError::Protocol(format!(
                    "binary frame while {step}; frames are text"
                )));
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
        }
    }
}

/// Sends one frame (refused when over the size limit).
pub async fn send_frame(socket: &mut AgentSocket, frame: &AgentFrame) -> Result<(), ConnectError> {
    let text = frame.to_text().map_err(|err: FrameError| {
        ConnectError::Protocol(format!("cannot send `{}`: {err}", frame.frame_type()))
    })?;
    socket
        .send(Message::text(text))
        .await
        .map_err(|err| ConnectError::Protocol(format!("sending `{}`: {err}", frame.frame_type())))
}
