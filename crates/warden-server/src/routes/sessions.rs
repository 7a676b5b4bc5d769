//! Sessions: create, list, read (with stored messages), post a message
//! (starts a turn), cancel the running turn, change the control level.

use std::collections::HashSet;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use warden_core::agent::provider::Message;
use warden_protocol::FsmState;

use crate::api::{
    CreateSession, MessageView, PatchSession, PostMessage, SessionDetail, SessionState,
    SessionView, TurnAccepted, rfc3339,
};
use crate::auth::{Authorized, needs};
use crate::config::cap_level;
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::live::{Sessions, start_turn};
use crate::state::{AppState, HumanAction};

/// Stored sessions listed at most.
const MAX_LISTED: usize = 500;
/// The longest message accepted.
const MAX_MESSAGE_CHARS: usize = 64 * 1024;

/// A session that exists only in the store (its process is gone).
fn stored_view(app: &AppState, summary: &warden_store::SessionSummary) -> SessionView {
    SessionView {
        id: summary.id.clone(),
        title: summary.title.clone(),
        control_level: cap_level(app.world.turn.control_level, app.config.max_control_level),
        created_at: rfc3339(summary.created_at_ms),
        state: SessionState::Idle,
        fsm_state: FsmState::Resolving.as_str().to_string(),
    }
}

/// Create a session (its control level capped by the server's ceiling).
#[utoipa::path(post, path = "/api/sessions", tag = "sessions", request_body = CreateSession,
    responses((status = 201, description = "Created", body = SessionView)))]
pub async fn create(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Operator>,
    ApiJson(body): ApiJson<CreateSession>,
) -> Result<(StatusCode, Json<SessionView>), ApiError> {
    let live = Sessions::create(&app, body.title, body.control_level.map(Into::into)).await?;
    crate::metrics::sessions(&app);
    Ok((StatusCode::CREATED, Json(live.view())))
}

/// Sessions, newest first: live ones and stored ones.
#[utoipa::path(get, path = "/api/sessions", tag = "sessions",
    responses((status = 200, description = "Sessions, newest first", body = Vec<SessionView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
) -> Result<Json<Vec<SessionView>>, ApiError> {
    let live = app.sessions.all();
    let live_ids: HashSet<&str> = live.iter().map(|l| l.id.as_str()).collect();
    let mut rows: Vec<(u64, SessionView)> =
        live.iter().map(|l| (l.created_at_ms, l.view())).collect();
    for summary in app.store.sessions(MAX_LISTED).map_err(ApiError::store)? {
        if !live_ids.contains(summary.id.as_str()) {
            rows.push((summary.created_at_ms, stored_view(&app, &summary)));
        }
    }
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.id.cmp(&a.1.id)));
    Ok(Json(rows.into_iter().map(|(_, view)| view).collect()))
}

/// The user's and the assistant's words, from the stored messages.
fn message_views(app: &AppState, id: &str) -> Result<Vec<MessageView>, ApiError> {
    let stored = app.store.messages_with_times(id).map_err(ApiError::store)?;
    let mut views = Vec::new();
    for message in stored {
        let Ok(parsed) = serde_json::from_str::<Message>(&message.json) else {
            continue;
        };
        let (role, text) = match parsed {
            Message::User { text } => ("user", text),
            Message::Assistant {
                text: Some(text), ..
            } if !text.trim().is_empty() => ("assistant", text),
            Message::Assistant { .. } | Message::System { .. } | Message::Tool { .. } => continue,
        };
        views.push(MessageView {
            role: role.to_string(),
            text,
            at: rfc3339(message.at_ms),
        });
    }
    Ok(views)
}

/// One session with its messages.
#[utoipa::path(get, path = "/api/sessions/{id}", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session and its messages", body = SessionDetail)))]
pub async fn get(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    Path(id): Path<String>,
) -> Result<Json<SessionDetail>, ApiError> {
    let session = match app.sessions.get(&id) {
        Some(live) => live.view(),
        None => {
            let summary = app
                .store
                .session_summary(&id)
                .map_err(ApiError::store)?
                .ok_or_else(|| ApiError::NotFound(format!("no session `{id}`")))?;
            stored_view(&app, &summary)
        }
    };
    Ok(Json(SessionDetail {
        session,
        messages: message_views(&app, &id)?,
    }))
}

/// Post a message: the turn starts at once and streams on the session's
/// events. 409 while a turn runs.
#[utoipa::path(post, path = "/api/sessions/{id}/messages", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    request_body = PostMessage,
    responses((status = 202, description = "The turn started", body = TurnAccepted)))]
pub async fn post_message(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Operator>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<PostMessage>,
) -> Result<(StatusCode, Json<TurnAccepted>), ApiError> {
    if body.text.trim().is_empty() {
        return Err(ApiError::invalid_field("text", "the message is empty"));
    }
    if body.text.chars().count() > MAX_MESSAGE_CHARS {
        return Err(ApiError::invalid_field("text", "the message is too long"));
    }
    let live = Sessions::get_or_load(&app, &id).await?;
    crate::metrics::sessions(&app);
    let mut text = body.text;
    for mention in body.mentions.unwrap_or_default() {
        let tag = format!("@{mention}");
        if !text.contains(&tag) {
            text.push(' ');
            text.push_str(&tag);
        }
    }
    let turn = start_turn(&app, &live, text, &caller.person())?;
    Ok((StatusCode::ACCEPTED, Json(TurnAccepted { turn })))
}

/// Cancel the running turn (as Ctrl-C): the model call is dropped and
/// running commands are killed.
#[utoipa::path(post, path = "/api/sessions/{id}/cancel", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 202, description = "Cancelling")))]
pub async fn cancel(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Operator>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    match app.sessions.get(&id) {
        Some(live) => {
            if live.is_busy() {
                live.cancel.cancel();
            }
            Ok(StatusCode::ACCEPTED)
        }
        None if app.store.session_exists(&id).map_err(ApiError::store)? => Ok(StatusCode::ACCEPTED),
        None => Err(ApiError::NotFound(format!("no session `{id}`"))),
    }
}

/// Change the control level (capped by the server's ceiling); it applies
/// from the next turn.
#[utoipa::path(patch, path = "/api/sessions/{id}", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    request_body = PatchSession,
    responses((status = 200, description = "The session", body = SessionView)))]
pub async fn patch(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Operator>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<PatchSession>,
) -> Result<Json<SessionView>, ApiError> {
    let live = Sessions::get_or_load(&app, &id).await?;
    let level = cap_level(body.control_level.into(), app.config.max_control_level);
    if level != live.level() {
        live.set_level(level);
        app.audit_human(HumanAction {
            session_id: &live.id,
            actor: &caller.actor(),
            tool: "session",
            target: None,
            decision: "level_changed",
            detail: &format!("control level {level}"),
        });
    }
    Ok(Json(live.view()))
}

/// Forget what the session discovered (its FSM and ResolvedContext, as
/// `/reset` in `warden chat`); its messages stay. 409 while a turn runs.
#[utoipa::path(post, path = "/api/sessions/{id}/reset", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "The session", body = SessionView)))]
pub async fn reset(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Operator>,
    Path(id): Path<String>,
) -> Result<Json<SessionView>, ApiError> {
    let live = Sessions::get_or_load(&app, &id).await?;
    let busy = || {
        ApiError::conflict(
            "a turn is running in this session; wait for it or cancel it",
            Some("running"),
        )
    };
    let Ok(mut runner) = live.runner.try_lock() else {
        return Err(busy());
    };
    if live.is_busy() {
        return Err(busy());
    }
    runner.reset();
    live.set_fsm(runner.session.fsm.state());
    drop(runner);
    app.audit_human(HumanAction {
        session_id: &live.id,
        actor: &caller.actor(),
        tool: "session",
        target: None,
        decision: "reset",
        detail: "forgot what the session discovered",
    });
    Ok(Json(live.view()))
}
