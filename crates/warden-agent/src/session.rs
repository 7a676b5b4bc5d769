//! One authenticated connection: frames in (exec, cancel, ping), frames out
//! (inventory, metrics, output, results, pongs), heartbeats both ways, until the
//! connection is lost, the server revokes the agent, or the agent shuts down.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::{MissedTickBehavior, interval, sleep_until};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use warden_protocol::agent::{
    AgentFrame, CLOSE_UNAUTHORIZED, ExecClass, ExecErrorCode, ExecFailure, ExecResult, FrameError,
    Heartbeat, InventoryReport, ParsedFrame, parse_frame,
};

use crate::connection::{AgentSocket, Welcomed};
use crate::dispatch::{Dispatcher, now_ms};
use crate::inventory::{InventorySource, stable_view};
use crate::metrics::{MetricsSource, report_metrics};
use crate::shutdown::ShutdownSignal;
use warden_protocol::routing::ThisMachine;

/// Frames waiting for the socket; command output waits (and so slows the
/// command) when the socket is slower than the command.
const OUTBOUND_QUEUE: usize = 256;

/// How a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEnd {
    /// The agent is shutting down; the connection was closed cleanly.
    Shutdown,
    /// The server closed with 4401: this agent is no longer accepted.
    Revoked { reason: String },
    /// Lost (closed, broken, or silent past the heartbeat timeout).
    Lost { reason: String },
}

/// Settings of a connection.
#[derive(Debug, Clone)]
pub struct SessionSettings {
    /// Silence after which the server counts as dead; default three
    /// heartbeat intervals.
    pub heartbeat_timeout: Option<Duration>,
    /// How often to look for inventory changes.
    pub inventory_interval: Duration,
    /// How long a shutdown waits for cancelled commands to report.
    pub shutdown_grace: Duration,
    /// What `metrics` frames report, and how often; `None`: none are sent.
    pub metrics: Option<Arc<MetricsSource>>,
}

/// Serves one welcomed connection.
pub async fn serve(
    welcomed: Welcomed,
    dispatcher: &Arc<Dispatcher>,
    inventory: &Arc<InventorySource>,
    settings: &SessionSettings,
    mut shutdown: ShutdownSignal,
) -> SessionEnd {
    let Welcomed {
        mut socket,
        welcome,
    } = welcomed;
    let beat = Duration::from_secs(welcome.heartbeat_secs.clamp(1, 3600));
    let dead_after = settings.heartbeat_timeout.unwrap_or(beat * 3);
    let (out_tx, mut out_rx) = mpsc::channel::<AgentFrame>(OUTBOUND_QUEUE);
    let reporter = tokio::spawn(report_inventory(
        Arc::clone(inventory),
        Arc::clone(dispatcher),
        out_tx.clone(),
        settings.inventory_interval,
    ));
    let metrics_reporter = settings
        .metrics
        .as_ref()
        .map(|source| tokio::spawn(report_metrics(Arc::clone(source), out_tx.clone())));
    let mut ticker = interval((beat.min(dead_after) / 4).max(Duration::from_millis(50)));
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut last_heard = Instant::now();
    let mut last_ping = Instant::now();
    let mut shutting_down: Option<Instant> = None;

    let end = loop {
        let shutdown_deadline =
            shutting_down.unwrap_or_else(Instant::now) + settings.shutdown_grace;
        tokio::select! {
            message = socket.next() => {
                last_heard = Instant::now();
                match message {
                    Some(Ok(Message::Text(text))) => {
                        // Replies go straight to the socket: waiting on the
                        // outbound queue here, which only this loop drains,
                        // could deadlock behind a chatty command's output.
                        let reply = handle_text(&text, dispatcher, &out_tx, shutting_down.is_some());
                        if let Some(reply) = reply
                            && let Err(reason) = send(&mut socket, &reply, dead_after).await
                        {
                            break SessionEnd::Lost { reason };
                        }
                    }
                    Some(Ok(Message::Close(frame))) => {
                        let (code, reason) = frame
                            .map(|f| (u16::from(f.code), f.reason.to_string()))
                            .unwrap_or((1005, String::new()));
                        if code == CLOSE_UNAUTHORIZED {
                            break SessionEnd::Revoked { reason };
                        }
                        break SessionEnd::Lost { reason: format!("server closed ({code} {reason})") };
                    }
                    Some(Ok(Message::Binary(_))) => {
                        tracing::warn!("ignoring a binary frame: agent frames are text");
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                    Some(Err(err)) => break SessionEnd::Lost { reason: err.to_string() },
                    None => break SessionEnd::Lost { reason: "connection closed".into() },
                }
            }
            Some(frame) = out_rx.recv() => {
                if let Err(reason) = send(&mut socket, &frame, dead_after).await {
                    break SessionEnd::Lost { reason };
                }
            }
            _ = ticker.tick() => {
                let silence = last_heard.elapsed();
                if silence >= dead_after {
                    break SessionEnd::Lost {
                        reason: format!("the server was silent for {} ms", silence.as_millis()),
                    };
                }
                if silence >= beat && last_ping.elapsed() >= beat {
                    last_ping = Instant::now();
                    let ping = AgentFrame::Ping(Heartbeat { at: now_ms() });
                    if let Err(reason) = send(&mut socket, &ping, dead_after).await {
                        break SessionEnd::Lost { reason };
                    }
                }
            }
            () = shutdown.wait(), if shutting_down.is_none() => {
                let cancelled = dispatcher.cancel_all(None);
                tracing::info!("shutting down: cancelled {cancelled} running command(s)");
                shutting_down = Some(Instant::now());
            }
            () = dispatcher.idle(), if shutting_down.is_some() => {
                flush(&mut socket, &mut out_rx, dead_after).await;
                break SessionEnd::Shutdown;
            }
            () = sleep_until(shutdown_deadline.into()), if shutting_down.is_some() => {
                tracing::warn!("shutting down with commands still running");
                flush(&mut socket, &mut out_rx, dead_after).await;
                break SessionEnd::Shutdown;
            }
        }
    };
    reporter.abort();
    if let Some(metrics_reporter) = metrics_reporter {
        metrics_reporter.abort();
    }
    match &end {
        SessionEnd::Shutdown => {
            let close = CloseFrame {
                code: CloseCode::Normal,
                reason: "agent shutting down".into(),
            };
            let _ = tokio::time::timeout(Duration::from_secs(2), socket.close(Some(close))).await;
        }
        SessionEnd::Revoked { .. } | SessionEnd::Lost { .. } => {
            // Nobody will read a read's output now: stop them (the server may
            // retry them once). Writes run on; their results go to the event
            // log, and the server reports their outcome as unknown.
            let cancelled = dispatcher.cancel_all(Some(ExecClass::Read));
            if cancelled > 0 {
                tracing::info!("connection lost: cancelled {cancelled} running read(s)");
            }
        }
    }
    end
}

/// Acts on one text frame; returns the frame to answer with, if any.
fn handle_text(
    text: &str,
    dispatcher: &Arc<Dispatcher>,
    out: &mpsc::Sender<AgentFrame>,
    shutting_down: bool,
) -> Option<AgentFrame> {
    let frame = match parse_frame(text) {
        Ok(ParsedFrame::Known(frame)) => frame,
        Ok(ParsedFrame::Unknown { frame_type }) => {
            tracing::warn!("ignoring a frame of unknown type `{frame_type}`");
            return None;
        }
        Err(FrameError::Malformed {
            frame_type,
            request_id: Some(request_id),
            message,
        }) if frame_type == "exec" => {
            let raw: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            let result = dispatcher.refuse_malformed_exec(&raw, request_id, &message);
            return Some(AgentFrame::ExecResult(result));
        }
        Err(err) => {
            tracing::warn!("rejecting a frame: {err}");
            return None;
        }
    };
    match frame {
        AgentFrame::Exec(request) if shutting_down => {
            let failure = ExecFailure::new(ExecErrorCode::Cancelled, "the agent is shutting down");
            Some(AgentFrame::ExecResult(ExecResult::refused(
                request.request_id,
                failure,
            )))
        }
        AgentFrame::Exec(request) => dispatcher
            .handle_exec(request, out.clone())
            .map(AgentFrame::ExecResult),
        AgentFrame::Cancel(cancel) => {
            if !dispatcher.cancel(&cancel.request_id) {
                tracing::debug!("cancel for {} which is not running", cancel.request_id);
            }
            None
        }
        AgentFrame::Ping(ping) => Some(AgentFrame::Pong(Heartbeat { at: ping.at })),
        AgentFrame::Pong(_) => None,
        AgentFrame::Challenge(_)
        | AgentFrame::Hello(_)
        | AgentFrame::Welcome(_)
        | AgentFrame::Inventory(_)
        | AgentFrame::Metrics(_)
        | AgentFrame::ExecOutput(_)
        | AgentFrame::ExecResult(_) => {
            tracing::warn!(
                "ignoring a `{}` frame, which the server does not send after the handshake",
                frame.frame_type()
            );
            None
        }
    }
}

/// Sends one frame. A peer that stops reading (a dead host behind a live
/// TCP connection) blocks the send: past `limit` the connection counts as lost.
async fn send(socket: &mut AgentSocket, frame: &AgentFrame, limit: Duration) -> Result<(), String> {
    let text = match frame.to_text() {
        Ok(text) => text,
        Err(err) => {
            // Only an oversized frame gets here; dropping it keeps the
            // connection (and every other command) alive.
            tracing::error!("not sending `{}`: {err}", frame.frame_type());
            return Ok(());
        }
    };
    match tokio::time::timeout(limit, socket.send(Message::text(text))).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(err)) => Err(format!("sending `{}`: {err}", frame.frame_type())),
        Err(_) => Err(format!(
            "sending `{}` blocked for {} ms",
            frame.frame_type(),
            limit.as_millis()
        )),
    }
}

/// Sends what is already queued (the results of cancelled commands).
async fn flush(socket: &mut AgentSocket, out: &mut mpsc::Receiver<AgentFrame>, limit: Duration) {
    while let Ok(frame) = out.try_recv() {
        if send(socket, &frame, limit).await.is_err() {
            return;
        }
    }
}

/// Sends the inventory at once, then again whenever it changes.
async fn report_inventory(
    source: Arc<InventorySource>,
    dispatcher: Arc<Dispatcher>,
    out: mpsc::Sender<AgentFrame>,
    every: Duration,
) {
    let mut last_sent: Option<Value> = None;
    loop {
        let snapshot = {
            let source = Arc::clone(&source);
            tokio::task::spawn_blocking(move || source.snapshot()).await
        };
        if let Ok(resources) = snapshot {
            dispatcher.set_reach(ThisMachine::reported_by(source.host(), &resources));
            let view = stable_view(&resources);
            if last_sent.as_ref() != Some(&view) {
                let frame = shrink_to_fit(InventoryReport { resources });
                if out.send(frame).await.is_err() {
                    return;
                }
                last_sent = Some(view);
            }
        }
        tokio::time::sleep(every).await;
    }
}

/// The inventory frame, without resource attributes when it would exceed
/// the frame limit (ids, names, parents and statuses still route commands).
fn shrink_to_fit(mut report: InventoryReport) -> AgentFrame {
    let frame = AgentFrame::Inventory(report.clone());
    if frame.to_text().is_ok() {
        return frame;
    }
    tracing::warn!("inventory too large for one frame: sending it without attributes");
    for resource in &mut report.resources {
        resource.attributes.clear();
    }
    AgentFrame::Inventory(report)
}
