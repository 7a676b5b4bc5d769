//! (c) One real `warden agent run` against a minimal server played here
//! (enrollment over HTTP, the WebSocket of spec/agent.md): its idle
//! resident memory, and the time from an `exec` frame to its `exec_result`
//! for `true` (a read, so through the sandbox launcher; and a write, with
//! a grant signed here), against `true` and `sh -c true` run locally.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use ed25519_dalek::{SigningKey, VerifyingKey};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use warden_protocol::agent::{
    AgentFrame, Challenge, ExecClass, ExecRequest, ExecResult, GrantClaims, ParsedFrame, Welcome,
    command_sha256, decode_public_key, encode_base64, parse_frame, verify_hello,
};

use crate::server::{mib, rss_kib, warden};

const AGENT_ID: &str = "bench-agent";
const NAME: &str = "bench-host";

struct Server {
    key: SigningKey,
    agent_key: Mutex<Option<VerifyingKey>>,
    sockets: mpsc::UnboundedSender<WebSocket>,
}

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).unwrap();
    bytes
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

async fn enroll(State(server): State<Arc<Server>>, body: axum::Json<Value>) -> impl IntoResponse {
    let key = decode_public_key(body["public_key"].as_str().unwrap_or_default()).unwrap();
    *server.agent_key.lock().unwrap() = Some(key);
    axum::Json(json!({
        "agent_id": AGENT_ID,
        "server_public_key": encode_base64(server.key.verifying_key().as_bytes()),
    }))
}

async fn connect(
    State(server): State<Arc<Server>>,
    upgrade: WebSocketUpgrade,
) -> impl IntoResponse {
    upgrade.on_upgrade(move |mut socket| async move {
        let nonce: [u8; 32] = random();
        let challenge = AgentFrame::Challenge(Challenge {
            nonce: encode_base64(&nonce),
        });
        socket
            .send(Message::text(challenge.to_text().unwrap()))
            .await
            .unwrap();
        let Some(AgentFrame::Hello(hello)) = next(&mut socket).await else {
            return;
        };
        let key = server.agent_key.lock().unwrap().unwrap();
        verify_hello(&key, &nonce, &hello.signature).unwrap();
        let welcome = AgentFrame::Welcome(Welcome { heartbeat_secs: 30 });
        socket
            .send(Message::text(welcome.to_text().unwrap()))
            .await
            .unwrap();
        let _ = server.sockets.send(socket);
    })
}

async fn next(socket: &mut WebSocket) -> Option<AgentFrame> {
    while let Some(Ok(message)) = socket.recv().await {
        if let Message::Text(text) = message {
            if let Ok(ParsedFrame::Known(frame)) = parse_frame(&text) {
                return Some(frame);
            }
        }
    }
    None
}

/// Sends `request`, returns its result and how long it took.
async fn exec(socket: &mut WebSocket, request: ExecRequest) -> (ExecResult, Duration) {
    let id = request.request_id.clone();
    let start = Instant::now();
    let frame = AgentFrame::Exec(request).to_text().unwrap();
    socket.send(Message::text(frame)).await.unwrap();
    loop {
        match next(socket).await.expect("the agent stayed connected") {
            AgentFrame::ExecResult(result) if result.request_id == id => {
                return (result, start.elapsed());
            }
            _ => continue,
        }
    }
}

fn stats(label: &str, mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    let median = times[times.len() / 2];
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    println!(
        "{label}: median {median:?}, mean {mean:?}, p90 {:?}",
        times[times.len() * 9 / 10]
    );
    median
}

pub async fn run(binary: &Path, runs: usize) {
    let (sockets, mut connected) = mpsc::unbounded_channel();
    let server = Arc::new(Server {
        key: SigningKey::from_bytes(&random()),
        agent_key: Mutex::new(None),
        sockets,
    });
    let app = Router::new()
        .route("/api/agents/enroll", post(enroll))
        .route("/api/agents/connect", get(connect))
        .with_state(Arc::clone(&server));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("agent");
    let enrolled = warden(binary)
        .args(["agent", "enroll", "--server", &base, "--token", "bench"])
        .args(["--name", NAME, "--state-dir"])
        .arg(&state)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(enrolled.success());
    let mut agent = warden(binary)
        .args(["agent", "run", "--name", NAME, "--state-dir"])
        .arg(&state)
        .env("RUST_LOG", "warn")
        .spawn()
        .unwrap();
    let mut socket = tokio::time::timeout(Duration::from_secs(30), connected.recv())
        .await
        .expect("the agent connected")
        .unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    println!(
        "agent idle RSS: {} (target ≤ 15 MB)",
        mib(rss_kib(agent.id()))
    );

    let target = format!("host:{NAME}");
    let request = |i: usize, class: ExecClass| ExecRequest {
        request_id: format!("{}-{i}", class.as_str()),
        target: target.clone(),
        command: "true".into(),
        class,
        timeout_ms: 10_000,
        max_output_bytes: 65_536,
        grant: None,
    };
    // Warm-up, and a check that both classes really run.
    let (result, _) = exec(&mut socket, request(usize::MAX, ExecClass::Read)).await;
    assert_eq!(result.exit_code, Some(0), "{result:?}");
    let mut reads = Vec::with_capacity(runs);
    for i in 0..runs {
        let (result, took) = exec(&mut socket, request(i, ExecClass::Read)).await;
        assert_eq!(result.exit_code, Some(0), "{result:?}");
        reads.push(took);
    }
    let mut writes = Vec::with_capacity(runs);
    for i in 0..runs {
        let mut write = request(i, ExecClass::Write);
        let grant = GrantClaims {
            agent_id: AGENT_ID.into(),
            request_id: write.request_id.clone(),
            command_sha256: command_sha256(&write.command),
            target: target.clone(),
            approval_id: Some(format!("approval-{i}")),
            approved_by: Some("bench".into()),
            expires_at: now_ms() + 60_000,
            nonce: random(),
        }
        .sign(&server.key);
        write.grant = Some(Box::new(grant));
        let (result, took) = exec(&mut socket, write).await;
        assert_eq!(result.exit_code, Some(0), "{result:?}");
        writes.push(took);
    }
    println!(
        "agent RSS after {} commands: {}",
        2 * runs,
        mib(rss_kib(agent.id()))
    );
    let local = |program: &str, args: &[&str]| {
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                assert!(Command::new(program).args(args).status().unwrap().success());
                start.elapsed()
            })
            .collect::<Vec<_>>()
    };
    let bare = stats("local `true`", local("true", &[]));
    let shell = stats("local `sh -c true`", local("/bin/sh", &["-c", "true"]));
    let read = stats("read `true` through the agent (exec → exec_result)", reads);
    let write = stats("write `true` through the agent, with a grant", writes);
    let over = |d: Duration, base: Duration| d.saturating_sub(base);
    println!(
        "per-command overhead (median, target ≤ 5 ms): read {:?} beyond `true` ({:?} beyond `sh -c true`), write {:?} ({:?})",
        over(read, bare),
        over(read, shell),
        over(write, bare),
        over(write, shell)
    );
    let _ = agent.kill();
    let _ = agent.wait();
}
