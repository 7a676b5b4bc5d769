//! `GET /api/sessions/{id}/events`: the session's stream over SSE, and
//! `GET /api/events`: the installation's (spec/patrol.md). A reconnect with
//! `Last-Event-ID` first gets what it missed (as far as the log still
//! holds it), then live events. Each stream is a task-less future pulling
//! from its log: no thread per client.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use futures_util::stream;
use tokio::sync::watch;

use crate::auth::{Authorized, needs};
use crate::error::ApiError;
use crate::live::Sessions;
use crate::live::events::{Replay, StoredEvent};
use crate::state::AppState;

struct Cursor {
    log: Arc<dyn Replay>,
    last: u64,
    queue: VecDeque<StoredEvent>,
    wake: watch::Receiver<u64>,
    closing: watch::Receiver<bool>,
    _client: crate::metrics::StreamClient,
}

fn to_sse(event: &StoredEvent) -> Event {
    Event::default()
        .id(event.seq.to_string())
        .event(event.event_type)
        .data(&*event.json)
}

async fn next(mut cursor: Cursor) -> Option<(Event, Cursor)> {
    loop {
        if let Some(event) = cursor.queue.pop_front() {
            return Some((to_sse(&event), cursor));
        }
        cursor.wake.borrow_and_update();
        let fresh = cursor.log.replay_after(cursor.last);
        if let Some(last) = fresh.last() {
            cursor.last = last.seq;
            cursor.queue.extend(fresh);
            continue;
        }
        // Checked after the log: what a shutting-down turn said last
        // (its error and `done`) still reaches the client.
        if *cursor.closing.borrow() {
            return None;
        }
        tokio::select! {
            changed = cursor.wake.changed() => {
                if changed.is_err() {
                    return None;
                }
            }
            _ = cursor.closing.changed() => {}
        }
    }
}

/// `Last-Event-ID`, when given: a number.
fn last_event_id(headers: &HeaderMap) -> Result<u64, ApiError> {
    match headers.get("last-event-id") {
        None => Ok(0),
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .ok_or_else(|| {
                ApiError::invalid_field("Last-Event-ID", "must be an event id (a number)")
            }),
    }
}

/// Follow `log` from after `last` as server-sent events.
fn follow(
    app: &AppState,
    log: Arc<dyn Replay>,
    last: u64,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + use<>> {
    // An id this log never handed out comes from before a restart (the
    // log is in memory and numbers from 1 again): everything it holds is
    // new to that client.
    let last = if last > log.newest() { 0 } else { last };
    let cursor = Cursor {
        wake: log.wake(),
        log,
        last,
        queue: VecDeque::new(),
        closing: app.lifecycle.closing(),
        _client: crate::metrics::StreamClient::connect(),
    };
    let events = stream::unfold(cursor, |cursor| async move {
        next(cursor)
            .await
            .map(|(event, cursor)| (Ok(event), cursor))
    });
    let keepalive = KeepAlive::new()
        .interval(app.config.sse_keepalive)
        .text("keepalive");
    Sse::new(events).keep_alive(keepalive)
}

/// The session's events as server-sent events.
#[utoipa::path(get, path = "/api/sessions/{id}/events", tag = "sessions",
    params(
        ("id" = String, Path, description = "Session id"),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event id"),
    ),
    responses((status = 200, description = "An endless text/event-stream", content_type = "text/event-stream", body = String)))]
pub async fn stream(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let last = last_event_id(&headers)?;
    let live = Sessions::get_or_load(&app, &id).await?;
    crate::metrics::sessions(&app);
    Ok(follow(&app, live, last))
}

/// The installation's events (inventory changes, approvals of every
/// session) as server-sent events.
#[utoipa::path(get, path = "/api/events", tag = "system",
    params(
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event id"),
    ),
    responses((status = 200, description = "An endless text/event-stream", content_type = "text/event-stream", body = String)))]
pub async fn installation(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let last = last_event_id(&headers)?;
    Ok(follow(
        &app,
        Arc::clone(&app.installation) as Arc<dyn Replay>,
        last,
    ))
}
