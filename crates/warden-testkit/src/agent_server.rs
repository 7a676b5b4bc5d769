//! A fake Warden server that speaks the agent protocol for real, for tests
//! of real agents: HTTP enrollment and the WebSocket endpoint on loopback
//! (axum, plain or TLS), a challenge checked by `verify_hello`, grants
//! signed by its own key, and scripted misbehaviour (a rejected hello, a
//! malformed welcome, silence). Each agent connection is handed to the
//! test as an [`AgentConn`] to drive frame by frame.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use ed25519_dalek::{SigningKey, VerifyingKey};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use warden_protocol::Resource;
use warden_protocol::agent::{
    AgentFrame, Challenge, EnrollRequest, EnrollResponse, ExecOutput, ExecRequest, ExecResult,
    Grant, GrantClaims, Heartbeat, OutputStream, ParsedFrame, Welcome, encode_base64, parse_frame,
    verify_hello,
};

use crate::tls;

/// The enrollment token the server accepts.
pub const TOKEN: &str = "enroll-token-1";
const WAIT: Duration = Duration::from_secs(20);

/// How the server treats connecting agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Challenge, verify, welcome, ping every heartbeat, answer pings.
    Normal,
    /// Close 4401 after the hello, whatever it says.
    Reject,
    /// Answer the hello with a malformed welcome.
    BadWelcome,
    /// Welcome, then never send anything (not even pongs).
    Silent,
}

pub struct EnrolledAgent {
    pub name: String,
    pub key: VerifyingKey,
}

/// What survives a server restart.
pub struct FakeAgentState {
    pub signing_key: SigningKey,
    pub agents: Mutex<HashMap<String, EnrolledAgent>>,
    pub behaviour: Mutex<Behaviour>,
    pub heartbeat_secs: Mutex<u64>,
    /// Connection attempts that reached the challenge.
    pub attempts: AtomicUsize,
    /// Hellos that verified.
    pub verified: AtomicUsize,
    /// Close codes received from agents.
    pub closes: Mutex<Vec<u16>>,
    connections_tx: mpsc::UnboundedSender<AgentConn>,
    connections_rx: tokio::sync::Mutex<mpsc::UnboundedReceiver<AgentConn>>,
}

impl FakeAgentState {
    pub fn new() -> Arc<Self> {
        let (tx, rx) = mpsc::unbounded_channel();
        Arc::new(FakeAgentState {
            signing_key: SigningKey::from_bytes(&[77; 32]),
            agents: Mutex::new(HashMap::new()),
            behaviour: Mutex::new(Behaviour::Normal),
            heartbeat_secs: Mutex::new(30),
            attempts: AtomicUsize::new(0),
            verified: AtomicUsize::new(0),
            closes: Mutex::new(Vec::new()),
            connections_tx: tx,
            connections_rx: tokio::sync::Mutex::new(rx),
        })
    }

    pub fn set_behaviour(&self, behaviour: Behaviour) {
        *self.behaviour.lock().unwrap() = behaviour;
    }

    pub fn set_heartbeat_secs(&self, secs: u64) {
        *self.heartbeat_secs.lock().unwrap() = secs;
    }
}

/// A running server.
pub struct FakeAgentServer {
    pub addr: SocketAddr,
    pub state: Arc<FakeAgentState>,
    kill: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl FakeAgentServer {
    pub async fn start() -> FakeAgentServer {
        FakeAgentServer::start_with(FakeAgentState::new(), None).await
    }

    /// Starts on `addr` (a restart) or a free port.
    pub async fn start_with(
        state: Arc<FakeAgentState>,
        addr: Option<SocketAddr>,
    ) -> FakeAgentServer {
        let listener = TcpListener::bind(addr.unwrap_or(([127, 0, 0, 1], 0).into()))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        FakeAgentServer::serve(state, listener, addr)
    }

    /// Starts a TLS server with `identity` (certificate chain and key).
    pub async fn start_tls(
        state: Arc<FakeAgentState>,
        identity: &tls::ServerIdentity,
    ) -> FakeAgentServer {
        let listener = tls::TlsListener::bind(identity).await;
        let addr = listener.addr;
        FakeAgentServer::serve(state, listener, addr)
    }

    fn serve<L>(state: Arc<FakeAgentState>, listener: L, addr: SocketAddr) -> FakeAgentServer
    where
        L: axum::serve::Listener,
        L::Addr: std::fmt::Debug,
    {
        let (kill, _) = watch::channel(false);
        let app = router(Arc::clone(&state), kill.clone());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.ok();
        });
        FakeAgentServer {
            addr,
            state,
            kill,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Drops every connection (no close frame) and stops listening.
    pub async fn stop(self) -> (Arc<FakeAgentState>, SocketAddr) {
        self.kill.send_replace(true);
        self.task.abort();
        let _ = self.task.await;
        (self.state, self.addr)
    }

    /// The next agent connection that passed the handshake.
    pub async fn next_connection(&self) -> AgentConn {
        let mut rx = self.state.connections_rx.lock().await;
        tokio::time::timeout(WAIT, rx.recv())
            .await
            .expect("no agent connected in time")
            .expect("server gone")
    }

    /// A grant signed by this server.
    pub fn grant(&self, claims: GrantClaims) -> Grant {
        claims.sign(&self.state.signing_key)
    }
}

fn router(state: Arc<FakeAgentState>, kill: watch::Sender<bool>) -> Router {
    Router::new()
        .route("/api/agents/enroll", post(enroll_handler))
        .route(
            "/api/agents/connect",
            get(
                move |ws: WebSocketUpgrade, State(state): State<Arc<FakeAgentState>>| {
                    let kill = kill.subscribe();
                    async move {
                        ws.max_message_size(1 << 20)
                            .on_upgrade(move |socket| handle_agent(socket, state, kill))
                    }
                },
            ),
        )
        .with_state(state)
}

async fn enroll_handler(
    State(state): State<Arc<FakeAgentState>>,
    Json(request): Json<EnrollRequest>,
) -> Response {
    if request.token != TOKEN {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": {"code": "UNAUTHENTICATED", "message": "bad token"}})),
        )
            .into_response();
    }
    let Some(key) = request.agent_key() else {
        return (StatusCode::BAD_REQUEST, "bad key").into_response();
    };
    let mut agents = state.agents.lock().unwrap();
    if agents
        .values()
        .any(|a| a.name == request.name && a.key != key)
    {
        return (
            StatusCode::CONFLICT,
            Json(json!({"error": {"code": "CONFLICT", "message": "name taken"}})),
        )
            .into_response();
    }
    let agent_id = format!("agt_{}", request.name);
    agents.insert(
        agent_id.clone(),
        EnrolledAgent {
            name: request.name,
            key,
        },
    );
    Json(EnrollResponse {
        agent_id,
        server_public_key: encode_base64(state.signing_key.verifying_key().as_bytes()),
    })
    .into_response()
}

async fn send(socket: &mut WebSocket, frame: &AgentFrame) -> bool {
    socket
        .send(Message::text(frame.to_text().unwrap()))
        .await
        .is_ok()
}

async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
}

async fn handle_agent(
    mut socket: WebSocket,
    state: Arc<FakeAgentState>,
    kill: watch::Receiver<bool>,
) {
    state.attempts.fetch_add(1, Ordering::SeqCst);
    let mut nonce = [0u8; 32];
    getrandom::fill(&mut nonce).unwrap();
    let challenge = AgentFrame::Challenge(Challenge {
        nonce: encode_base64(&nonce),
    });
    if !send(&mut socket, &challenge).await {
        return;
    }
    let hello = match tokio::time::timeout(WAIT, socket.recv()).await {
        Ok(Some(Ok(Message::Text(text)))) => match parse_frame(&text) {
            Ok(ParsedFrame::Known(AgentFrame::Hello(hello))) => hello,
            _ => return close(&mut socket, 1002, "expected hello").await,
        },
        _ => return,
    };
    let behaviour = *state.behaviour.lock().unwrap();
    let key = state
        .agents
        .lock()
        .unwrap()
        .get(&hello.agent_id)
        .map(|a| a.key);
    let verified = key.is_some_and(|key| verify_hello(&key, &nonce, &hello.signature).is_ok());
    if !verified || behaviour == Behaviour::Reject {
        return close(&mut socket, 4401, "unauthorized").await;
    }
    state.verified.fetch_add(1, Ordering::SeqCst);
    if behaviour == Behaviour::BadWelcome {
        let _ = socket.send(Message::text(r#"{"type":"welcome"}"#)).await;
        return;
    }
    let heartbeat_secs = *state.heartbeat_secs.lock().unwrap();
    let welcome = AgentFrame::Welcome(Welcome { heartbeat_secs });
    if !send(&mut socket, &welcome).await {
        return;
    }
    let (to_agent_tx, to_agent_rx) = mpsc::unbounded_channel();
    let (from_agent_tx, from_agent_rx) = mpsc::unbounded_channel();
    let conn = AgentConn {
        agent_id: hello.agent_id.clone(),
        version: hello.version.clone(),
        to_agent: to_agent_tx,
        from_agent: from_agent_rx,
        inventory: None,
    };
    let _ = state.connections_tx.send(conn);
    pump(
        socket,
        state,
        kill,
        behaviour,
        heartbeat_secs,
        to_agent_rx,
        from_agent_tx,
    )
    .await;
}

async fn pump(
    mut socket: WebSocket,
    state: Arc<FakeAgentState>,
    mut kill: watch::Receiver<bool>,
    behaviour: Behaviour,
    heartbeat_secs: u64,
    mut to_agent: mpsc::UnboundedReceiver<Message>,
    from_agent: mpsc::UnboundedSender<AgentFrame>,
) {
    let mut ping = tokio::time::interval(Duration::from_secs(heartbeat_secs.max(1)));
    loop {
        tokio::select! {
            _ = async { kill.wait_for(|k| *k).await.is_ok() } => return,
            outgoing = to_agent.recv() => match outgoing {
                Some(message) => if socket.send(message).await.is_err() { return },
                None => return,
            },
            _ = ping.tick(), if behaviour == Behaviour::Normal => {
                let at = crate::time::now_ms();
                if !send(&mut socket, &AgentFrame::Ping(Heartbeat { at })).await {
                    return;
                }
            }
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => match parse_frame(&text) {
                    Ok(ParsedFrame::Known(AgentFrame::Ping(ping))) if behaviour == Behaviour::Normal => {
                        send(&mut socket, &AgentFrame::Pong(ping)).await;
                    }
                    Ok(ParsedFrame::Known(frame)) => { let _ = from_agent.send(frame); }
                    other => panic!("the agent sent a bad frame: {other:?} {text}"),
                },
                Some(Ok(Message::Close(frame))) => {
                    state.closes.lock().unwrap().push(frame.map(|f| f.code).unwrap_or(1005));
                    return;
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return,
            },
        }
    }
}

/// The test's side of one agent connection.
pub struct AgentConn {
    pub agent_id: String,
    pub version: String,
    to_agent: mpsc::UnboundedSender<Message>,
    from_agent: mpsc::UnboundedReceiver<AgentFrame>,
    /// The last inventory the agent sent.
    pub inventory: Option<Vec<Resource>>,
}

/// What one exec produced.
#[derive(Debug)]
pub struct Collected {
    pub chunks: Vec<ExecOutput>,
    pub result: ExecResult,
}

impl Collected {
    pub fn stdout(&self) -> String {
        self.stream(OutputStream::Stdout)
    }

    pub fn stderr(&self) -> String {
        self.stream(OutputStream::Stderr)
    }

    fn stream(&self, stream: OutputStream) -> String {
        self.chunks
            .iter()
            .filter(|c| c.stream == stream)
            .map(|c| c.data.as_str())
            .collect()
    }
}

impl AgentConn {
    pub fn send(&self, frame: AgentFrame) {
        self.send_text(&frame.to_text().unwrap());
    }

    pub fn send_text(&self, text: &str) {
        let _ = self.to_agent.send(Message::text(text.to_string()));
    }

    pub fn close(&self, code: u16, reason: &str) {
        let _ = self.to_agent.send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.to_string().into(),
        })));
    }

    /// The next frame from the agent (inventory is remembered on the way).
    pub async fn next_frame(&mut self) -> Option<AgentFrame> {
        let frame = tokio::time::timeout(WAIT, self.from_agent.recv())
            .await
            .expect("the agent said nothing in time")?;
        if let AgentFrame::Inventory(report) = &frame {
            self.inventory = Some(report.resources.clone());
        }
        Some(frame)
    }

    /// Waits for an inventory frame.
    pub async fn inventory(&mut self) -> Vec<Resource> {
        if let Some(inventory) = self.inventory.clone() {
            return inventory;
        }
        loop {
            if let Some(AgentFrame::Inventory(report)) = self.next_frame().await {
                return report.resources;
            }
        }
    }

    /// Collects the output and the result of `request_id`.
    pub async fn collect(&mut self, request_id: &str) -> Collected {
        let mut chunks = Vec::new();
        loop {
            match self.next_frame().await.expect("connection closed") {
                AgentFrame::ExecOutput(chunk) if chunk.request_id == request_id => {
                    chunks.push(chunk)
                }
                AgentFrame::ExecResult(result) if result.request_id == request_id => {
                    return Collected { chunks, result };
                }
                _ => {}
            }
        }
    }

    /// Sends `request` and collects what comes back.
    pub async fn exec(&mut self, request: ExecRequest) -> Collected {
        let id = request.request_id.clone();
        self.send(AgentFrame::Exec(request));
        self.collect(&id).await
    }
}
