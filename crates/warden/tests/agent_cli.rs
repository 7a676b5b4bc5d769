//! `warden agent` through the real binary: the sandbox launcher, the unit
//! file, and an agent enrolled and run by the CLI against a server on
//! loopback that speaks the protocol, until SIGTERM stops it cleanly.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;
use warden_protocol::agent::{
    AgentFrame, Challenge, EnrollRequest, ExecClass, ExecRequest, OutputStream, ParsedFrame,
    Welcome, encode_base64, parse_frame, verify_hello,
};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");

fn warden(args: &[&str]) -> std::process::Output {
    Command::new(WARDEN).args(args).output().unwrap()
}

#[test]
fn sandbox_exec_blocks_writes_and_allows_reads() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f");
    let script = format!("echo x > {}; cat /etc/hostname", target.display());
    let out = warden(&[
        "agent",
        "sandbox-exec",
        "--landlock",
        "read-only",
        "--",
        "/bin/sh",
        "-c",
        &script,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("WARDEN-SANDBOX landlock_abi="),
        "{stdout}"
    );
    if first.contains("landlock_abi=none") {
        eprintln!("!!! LANDLOCK UNAVAILABLE on this kernel: the write check cannot run");
        return;
    }
    assert!(!target.exists(), "the sandbox let a write through");
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap();
    assert!(stdout.ends_with(&hostname), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Permission denied"));
}

#[test]
fn install_writes_the_unit_for_this_binary() {
    let dir = tempfile::tempdir().unwrap();
    let units = dir.path().join("units");
    std::fs::create_dir(&units).unwrap();
    let state = dir.path().join("state");
    let out = warden(&[
        "agent",
        "install",
        "--unit-dir",
        units.to_str().unwrap(),
        "--state-dir",
        state.to_str().unwrap(),
        "--max-level",
        "read_only",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let unit = std::fs::read_to_string(units.join("warden-agent.service")).unwrap();
    let exec_start = format!(
        "ExecStart={} agent run --state-dir {} --max-level read_only",
        Path::new(WARDEN).canonicalize().unwrap().display(),
        state.display()
    );
    assert!(unit.contains(&exec_start), "{unit}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("not enrolled yet"));
}

#[test]
fn run_without_enrollment_says_how_to_enroll() {
    let dir = tempfile::tempdir().unwrap();
    let out = warden(&["agent", "run", "--state-dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("warden agent enroll"));
}

/// Public key of RFC 8032's first Ed25519 test vector: a valid point.
const SERVER_KEY_HEX: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

/// Answers one `POST /api/agents/enroll`; returns the request.
async fn serve_enrollment(listener: &TcpListener) -> EnrollRequest {
    let (mut stream, _) = listener.accept().await.unwrap();
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let body_start = loop {
        let n = stream.read(&mut chunk).await.unwrap();
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..body_start]).to_lowercase();
    assert!(head.starts_with("post /api/agents/enroll "), "{head}");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    while buffer.len() < body_start + length {
        let n = stream.read(&mut chunk).await.unwrap();
        buffer.extend_from_slice(&chunk[..n]);
    }
    let request: EnrollRequest = serde_json::from_slice(&buffer[body_start..]).unwrap();
    let body = serde_json::json!({
        "agent_id": "agt_cli",
        "server_public_key": encode_base64(&hex_bytes(SERVER_KEY_HEX)),
    })
    .to_string();
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await.unwrap();
    stream.shutdown().await.ok();
    request
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

async fn next_frame<S>(socket: &mut tokio_tungstenite::WebSocketStream<S>) -> Option<AgentFrame>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        let message = tokio::time::timeout(Duration::from_secs(20), socket.next())
            .await
            .expect("the agent said nothing in time")?
            .ok()?;
        match message {
            Message::Text(text) => match parse_frame(&text).unwrap() {
                ParsedFrame::Known(frame) => return Some(frame),
                ParsedFrame::Unknown { frame_type } => panic!("unknown frame {frame_type}"),
            },
            Message::Close(frame) => {
                assert_eq!(frame.map(|f| u16::from(f.code)), Some(1000));
                return None;
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn an_agent_enrolled_and_run_by_the_cli_serves_a_sandboxed_read_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let url = format!("http://{addr}");

    let enroll = tokio::process::Command::new(WARDEN)
        .args([
            "agent", "enroll", "--server", &url, "--token", "t0k", "--name", "cli1",
        ])
        .arg("--state-dir")
        .arg(&state)
        .output();
    let (request, enrolled) = tokio::join!(serve_enrollment(&listener), enroll);
    let enrolled = enrolled.unwrap();
    assert!(
        enrolled.status.success(),
        "{}",
        String::from_utf8_lossy(&enrolled.stderr)
    );
    assert!(String::from_utf8_lossy(&enrolled.stdout).contains("as agt_cli"));
    assert_eq!(request.token, "t0k");
    assert_eq!(request.name, "cli1");
    let agent_key = request.agent_key().unwrap();
    drop(listener);

    // The "server restarts" as the WebSocket endpoint on the same address.
    let listener = TcpListener::bind(addr).await.unwrap();
    let mut agent = tokio::process::Command::new(WARDEN)
        .args(["agent", "run", "--max-level", "read_only"])
        .arg("--state-dir")
        .arg(&state)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (stream, _) = tokio::time::timeout(Duration::from_secs(20), listener.accept())
        .await
        .unwrap()
        .unwrap();
    let mut socket = tokio_tungstenite::accept_async(stream).await.unwrap();
    let nonce = [9u8; 32];
    let challenge = AgentFrame::Challenge(Challenge {
        nonce: encode_base64(&nonce),
    });
    socket
        .send(Message::text(challenge.to_text().unwrap()))
        .await
        .unwrap();
    let Some(AgentFrame::Hello(hello)) = next_frame(&mut socket).await else {
        panic!("no hello");
    };
    assert_eq!(hello.agent_id, "agt_cli");
    verify_hello(&agent_key, &nonce, &hello.signature).unwrap();
    let welcome = AgentFrame::Welcome(Welcome { heartbeat_secs: 30 });
    socket
        .send(Message::text(welcome.to_text().unwrap()))
        .await
        .unwrap();

    let exec = AgentFrame::Exec(ExecRequest {
        request_id: "cli-read".into(),
        target: "host:cli1".into(),
        command: "cat /etc/hostname".into(),
        class: ExecClass::Read,
        timeout_ms: 20_000,
        max_output_bytes: 65_536,
        grant: None,
    });
    socket
        .send(Message::text(exec.to_text().unwrap()))
        .await
        .unwrap();
    let mut stdout = String::new();
    let result = loop {
        match next_frame(&mut socket).await.expect("closed early") {
            AgentFrame::ExecOutput(chunk) if chunk.stream == OutputStream::Stdout => {
                stdout.push_str(&chunk.data)
            }
            AgentFrame::ExecResult(result) => break result,
            _ => {}
        }
    };
    assert_eq!(result.exit_code, Some(0), "{result:?}");
    assert_eq!(stdout, std::fs::read_to_string("/etc/hostname").unwrap());
    // The production launcher (`warden agent sandbox-exec`) confined it.
    assert!(
        result.sandbox.landlock_abi.is_some_and(|abi| abi >= 1),
        "{result:?}"
    );

    let pid = agent.id().unwrap().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    while next_frame(&mut socket).await.is_some() {}
    let status = tokio::time::timeout(Duration::from_secs(15), agent.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
}
