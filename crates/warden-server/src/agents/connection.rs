//! One agent's WebSocket (spec/agent.md "Connection"): the challenge, the
//! signed hello checked against the enrolled key (unknown, revoked or bad
//! signature → close 4401), the welcome, then frames both ways. The
//! server pings every `heartbeat_secs`; three pings without a pong close
//! the connection. A frame over 1 MiB, or one that is not text, closes it.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use warden_protocol::agent::{
    AgentFrame, CHALLENGE_NONCE_BYTES, CLOSE_UNAUTHORIZED, Challenge, Heartbeat, Hello,
    MAX_FRAME_BYTES, ParsedFrame, Welcome, decode_public_key, encode_base64, parse_frame,
    verify_hello,
};

use warden_world::agents::Agents;
use warden_world::agents::grants::random_bytes;
use warden_world::agents::hub::{CloseReason, Registration};
use warden_world::agents::inventory::AgentIdentity;
use warden_world::agents::metrics::accept_metrics;
use warden_world::now_ms;

/// How long an agent has to answer the challenge.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// Pings without a pong before the connection is closed.
const MISSED_PONGS: u32 = 3;

const CLOSE_TOO_BIG: CloseReason = CloseReason {
    code: 1009,
    reason: "frame over 1 MiB",
};
const CLOSE_NOT_TEXT: CloseReason = CloseReason {
    code: 1003,
    reason: "frames are JSON text",
};
const CLOSE_NO_PONG: CloseReason = CloseReason {
    code: 1011,
    reason: "no pong to three pings",
};
const CLOSE_SHUTDOWN: CloseReason = CloseReason {
    code: 1001,
    reason: "the server is shutting down",
};

fn unauthorized(reason: &'static str) -> CloseReason {
    CloseReason {
        code: CLOSE_UNAUTHORIZED,
        reason,
    }
}

async fn close(socket: &mut WebSocket, reason: CloseReason) {
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code: reason.code,
            reason: reason.reason.into(),
        })))
        .await;
    // Give the peer a moment to answer the close, then drop the socket.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        while let Some(Ok(_)) = socket.recv().await {}
    })
    .await;
}

async fn send_frame(socket: &mut WebSocket, frame: &AgentFrame) -> bool {
    match frame.to_text() {
        Ok(text) => socket.send(Message::text(text)).await.is_ok(),
        Err(error) => {
            tracing::error!(%error, "cannot write a frame");
            false
        }
    }
}

/// An authenticated agent.
struct Authenticated {
    agent_id: String,
    name: String,
    enrolled_at_ms: u64,
    version: String,
}

impl Authenticated {
    fn identity(&self) -> AgentIdentity<'_> {
        AgentIdentity {
            id: &self.agent_id,
            name: &self.name,
            enrolled_at_ms: self.enrolled_at_ms,
        }
    }
}

/// The handshake: challenge, hello, verification.
async fn authenticate(
    socket: &mut WebSocket,
    agents: &Agents,
) -> Result<Authenticated, Option<CloseReason>> {
    let nonce = random_bytes::<CHALLENGE_NONCE_BYTES>().map_err(|error| {
        tracing::error!(%error, "no nonce for an agent challenge");
        None
    })?;
    let challenge = AgentFrame::Challenge(Challenge {
        nonce: encode_base64(&nonce),
    });
    if !send_frame(socket, &challenge).await {
        return Err(None);
    }
    let hello: Hello = match tokio::time::timeout(HELLO_TIMEOUT, socket.recv()).await {
        Err(_) => return Err(Some(unauthorized("no hello in time"))),
        Ok(None) | Ok(Some(Err(_))) => return Err(None),
        Ok(Some(Ok(Message::Text(text)))) => match parse_frame(&text) {
            Ok(ParsedFrame::Known(AgentFrame::Hello(hello))) => hello,
            Ok(_) | Err(_) => return Err(Some(unauthorized("expected a hello"))),
        },
        Ok(Some(Ok(_))) => return Err(Some(unauthorized("expected a hello"))),
    };
    let store = Arc::clone(&agents.store);
    let agent_id = hello.agent_id.clone();
    let enrolled = tokio::task::spawn_blocking(move || store.agent(&agent_id))
        .await
        .map_err(|_| None)?
        .map_err(|error| {
            tracing::error!(%error, "store failure while an agent connects");
            Some(CloseReason {
                code: 1011,
                reason: "store unavailable",
            })
        })?;
    let Some(agent) = enrolled else {
        tracing::warn!(agent_id = %hello.agent_id, "unknown agent refused");
        return Err(Some(unauthorized("unknown agent")));
    };
    if agent.revoked_at_ms.is_some() {
        tracing::warn!(agent_id = %agent.id, name = %agent.name, "revoked agent refused");
        return Err(Some(unauthorized("revoked")));
    }
    let verified = decode_public_key(&agent.public_key)
        .is_some_and(|key| verify_hello(&key, &nonce, &hello.signature).is_ok());
    if !verified {
        tracing::warn!(agent_id = %agent.id, name = %agent.name, "agent hello with a bad signature refused");
        return Err(Some(unauthorized("bad signature")));
    }
    Ok(Authenticated {
        agent_id: agent.id,
        name: agent.name,
        enrolled_at_ms: agent.enrolled_at_ms,
        version: hello.version,
    })
}

/// Serves one agent connection to its end.
pub async fn serve(mut socket: WebSocket, agents: Arc<Agents>) {
    let agent = match authenticate(&mut socket, &agents).await {
        Ok(agent) => agent,
        Err(Some(reason)) => return close(&mut socket, reason).await,
        Err(None) => return,
    };
    let heartbeat = agents.settings.heartbeat;
    let welcome = AgentFrame::Welcome(Welcome {
        heartbeat_secs: heartbeat.as_secs().max(1),
    });
    let Some(registration) = agents.hub.register(agent.identity(), now_ms()) else {
        return close(&mut socket, unauthorized("revoked")).await;
    };
    tracing::info!(agent_id = %agent.agent_id, name = %agent.name, version = %agent.version, "agent connected");
    agents.touch(&agent.agent_id);
    let conn_id = registration.conn_id;
    let reason = if send_frame(&mut socket, &welcome).await {
        pump(&mut socket, &agents, &agent, registration).await
    } else {
        None
    };
    agents.hub.unregister(&agent.agent_id, conn_id);
    agents.touch(&agent.agent_id);
    tracing::info!(
        agent_id = %agent.agent_id,
        name = %agent.name,
        why = reason.map_or("the connection ended", |r| r.reason),
        "agent disconnected"
    );
    if let Some(reason) = reason {
        close(&mut socket, reason).await;
    }
}

/// Frames both ways until the connection ends; the close to send, if any.
async fn pump(
    socket: &mut WebSocket,
    agents: &Agents,
    agent: &Authenticated,
    mut registration: Registration,
) -> Option<CloseReason> {
    let heartbeat = agents.settings.heartbeat.max(Duration::from_millis(100));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + heartbeat, heartbeat);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut unanswered: u32 = 0;
    let mut closing = agents.closing();
    loop {
        tokio::select! {
            changed = registration.close.changed() => {
                let reason = *registration.close.borrow_and_update();
                if reason.is_some() || changed.is_err() {
                    return reason;
                }
            }
            () = shutting_down(&mut closing) => return Some(CLOSE_SHUTDOWN),
            outgoing = registration.outgoing.recv() => match outgoing {
                Some(text) => if socket.send(Message::text(text)).await.is_err() { return None },
                // The hub let go of this connection (revoked or replaced):
                // say why, whichever of the two signals came first.
                None => return *registration.close.borrow(),
            },
            _ = ping.tick() => {
                if unanswered >= MISSED_PONGS {
                    tracing::warn!(agent_id = %agent.agent_id, name = %agent.name, "agent missed three pongs");
                    return Some(CLOSE_NO_PONG);
                }
                unanswered += 1;
                if !send_frame(socket, &AgentFrame::Ping(Heartbeat { at: now_ms() })).await {
                    return None;
                }
            }
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Binary(_))) => return Some(CLOSE_NOT_TEXT),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None => return None,
                    Some(Err(error)) => {
                        tracing::warn!(agent_id = %agent.agent_id, %error, "agent connection failed");
                        return too_big(&error.to_string());
                    }
                };
                registration.last_frame_ms.store(now_ms(), Ordering::Relaxed);
                if text.len() > MAX_FRAME_BYTES {
                    return Some(CLOSE_TOO_BIG);
                }
                match handle_frame(socket, agents, agent, registration.conn_id, &text).await {
                    Handled::Pong => unanswered = 0,
                    Handled::Continue => {}
                    Handled::Gone => return None,
                }
            }
        }
    }
}

/// Completes when the server shuts down.
async fn shutting_down(closing: &mut tokio::sync::watch::Receiver<bool>) {
    if closing.wait_for(|c| *c).await.is_err() {
        // The server is gone: nothing will ever close this connection.
        std::future::pending::<()>().await;
    }
}

/// A read error of an oversized message deserves a close with 1009.
fn too_big(error: &str) -> Option<CloseReason> {
    let lower = error.to_ascii_lowercase();
    (lower.contains("too long") || lower.contains("too big") || lower.contains("capacity"))
        .then_some(CLOSE_TOO_BIG)
}

enum Handled {
    Pong,
    Continue,
    Gone,
}

async fn handle_frame(
    socket: &mut WebSocket,
    agents: &Agents,
    agent: &Authenticated,
    conn_id: u64,
    text: &str,
) -> Handled {
    let frame = match parse_frame(text) {
        Ok(ParsedFrame::Known(frame)) => frame,
        Ok(ParsedFrame::Unknown { frame_type }) => {
            tracing::debug!(agent_id = %agent.agent_id, %frame_type, "frame of an unknown type ignored");
            return Handled::Continue;
        }
        Err(error) => {
            tracing::warn!(agent_id = %agent.agent_id, %error, "bad frame from an agent ignored");
            return Handled::Continue;
        }
    };
    match frame {
        AgentFrame::Pong(_) => Handled::Pong,
        AgentFrame::Ping(beat) => {
            if send_frame(socket, &AgentFrame::Pong(beat)).await {
                Handled::Continue
            } else {
                Handled::Gone
            }
        }
        AgentFrame::Inventory(report) => {
            let rejected = match agents
                .hub
                .inventory()
                .replace(agent.identity(), report.resources)
            {
                Ok(rejected) => rejected,
                Err(revoked) => {
                    // In flight when the revocation landed: its close follows.
                    tracing::info!(agent_id = %agent.agent_id, name = %agent.name, %revoked, "inventory refused");
                    return Handled::Continue;
                }
            };
            for dropped in rejected {
                tracing::warn!(
                    agent_id = %agent.agent_id,
                    name = %agent.name,
                    resource = %dropped.id,
                    why = dropped.why,
                    "resource reported by an agent ignored"
                );
            }
            Handled::Continue
        }
        AgentFrame::ExecOutput(chunk) => {
            agents.hub.on_output(&agent.agent_id, conn_id, &chunk);
            Handled::Continue
        }
        AgentFrame::ExecResult(result) => {
            agents.hub.on_result(&agent.agent_id, conn_id, result);
            Handled::Continue
        }
        AgentFrame::Metrics(report) => {
            let accepted = accept_metrics(&agent.name, report, now_ms());
            crate::metrics::agent_metric_samples(&accepted);
            if let Some((resource, why)) = accepted.rejected.first() {
                tracing::debug!(
                    agent_id = %agent.agent_id,
                    name = %agent.name,
                    %resource,
                    why = why.as_str(),
                    dropped = accepted.rejected.len(),
                    "metric samples from an agent dropped"
                );
            }
            // `accepted.samples` are this agent's history (issue 19): the
            // store takes them once it is wired here.
            Handled::Continue
        }
        AgentFrame::Challenge(_)
        | AgentFrame::Hello(_)
        | AgentFrame::Welcome(_)
        | AgentFrame::Exec(_)
        | AgentFrame::Cancel(_) => {
            tracing::warn!(agent_id = %agent.agent_id, frame_type = frame.frame_type(), "frame an agent does not send, ignored");
            Handled::Continue
        }
    }
}
