//! Approvals: list and read them, approve or deny (waking the turn that
//! waits), and run an approved one whose session is gone.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa::IntoParams;
use warden_core::executor::Moment;
use warden_core::ports::{Approval, ApprovalError, ApprovalState, check_consumable};
use warden_store::ApprovalFilter;

use warden_protocol::ControlLevel;
use warden_protocol::views::ApprovalView;

use crate::api::{ApprovalStateView, ApproveRequest, DenyRequest, RunResult, approval_view};
use crate::auth::{Authorized, Caller, Person, needs};
use crate::config::FourEyes;
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::state::{AppState, HumanAction, now_ms};

/// Listed at most.
const MAX_LISTED: usize = 1000;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ApprovalsQuery {
    /// Only approvals in this state.
    pub state: Option<ApprovalStateView>,
}

fn view(app: &AppState, approval: &Approval) -> ApprovalView {
    let people = app.store.approval_people(&approval.id).unwrap_or_default();
    approval_view(approval, &people, now_ms())
}

fn load(app: &AppState, id: &str) -> Result<Approval, ApiError> {
    match app.world.backends.approvals.get(id) {
        Ok(approval) => Ok(approval),
        Err(ApprovalError::NotFound(_)) => Err(ApiError::NotFound(format!("no approval `{id}`"))),
        Err(error) => Err(ApiError::store(error)),
    }
}

/// Why an approval cannot be decided or run, as a 409 naming its state.
fn refused(app: &AppState, error: ApprovalError, now: u64) -> ApiError {
    let state = match &error {
        ApprovalError::NotFound(id) => return ApiError::NotFound(format!("no approval `{id}`")),
        ApprovalError::Store(e) => return ApiError::store(e),
        ApprovalError::Expired(_) => {
            if let Err(e) = app.store.expire_approvals(now) {
                tracing::warn!(error = %e, "cannot mark an approval expired");
            }
            "expired"
        }
        ApprovalError::AlreadyUsed(_) => "consumed",
        ApprovalError::AlreadyDecided(_, state) => state,
        ApprovalError::Denied(_) => "denied",
        ApprovalError::Pending(_) => "pending",
        ApprovalError::Mismatch(_) => "mismatch",
    };
    ApiError::conflict(error.to_string(), Some(state))
}

/// The four-eyes rule compares people: no credential of the person whose
/// message caused the request (a browser login, any token they own, one
/// minted after asking included) may approve or run it.
fn four_eyes(app: &AppState, caller: &Caller, approval: &Approval) -> Result<(), ApiError> {
    if app.config.four_eyes == FourEyes::Off {
        return Ok(());
    }
    let people = app
        .store
        .approval_people(&approval.id)
        .map_err(ApiError::store)?;
    let asked = people.requested_by.as_deref().map(Person::from_stored);
    if asked.is_some_and(|asked| asked == caller.person()) {
        return Err(ApiError::Forbidden(format!(
            "four-eyes rule: someone else must approve a request {} caused",
            caller.person()
        )));
    }
    Ok(())
}

/// Approvals, newest first.
#[utoipa::path(get, path = "/api/approvals", tag = "approvals", params(ApprovalsQuery),
    responses((status = 200, description = "Approvals", body = Vec<ApprovalView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    query: Result<Query<ApprovalsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<ApprovalView>>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::invalid_field("state", e.body_text()))?;
    let filter = match query.state {
        None => ApprovalFilter::All,
        Some(ApprovalStateView::Pending) => ApprovalFilter::Pending,
        Some(ApprovalStateView::Expired) => ApprovalFilter::Expired,
        Some(ApprovalStateView::Approved) => ApprovalFilter::Approved,
        Some(ApprovalStateView::Denied) => ApprovalFilter::Denied,
        Some(ApprovalStateView::Consumed) => ApprovalFilter::Consumed,
    };
    let now = now_ms();
    let ids = app
        .store
        .approval_ids(filter, now, MAX_LISTED)
        .map_err(ApiError::store)?;
    let mut views = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(approval) = app.store.approval(&id).map_err(ApiError::store)? {
            let view = view(&app, &approval);
            // The state may have moved between the two reads.
            if query.state.is_none_or(|s| s == view.state) {
                views.push(view);
            }
        }
    }
    Ok(Json(views))
}

/// One approval.
#[utoipa::path(get, path = "/api/approvals/{id}", tag = "approvals",
    params(("id" = String, Path, description = "Approval id")),
    responses((status = 200, description = "The approval", body = ApprovalView)))]
pub async fn get(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    Path(id): Path<String>,
) -> Result<Json<ApprovalView>, ApiError> {
    let approval = load(&app, &id)?;
    Ok(Json(view(&app, &approval)))
}

/// Record a decision, audit it, and wake the turn waiting on it.
fn decide(
    app: &AppState,
    caller: &Caller,
    id: &str,
    state: ApprovalState,
    reason: Option<String>,
) -> Result<ApprovalView, ApiError> {
    let approval = load(app, id)?;
    if state == ApprovalState::Approved {
        four_eyes(app, caller, &approval)?;
    }
    let now = now_ms();
    // The store records the decision, who made it and why, and audits it
    // in the same transaction.
    let decided = app
        .world
        .backends
        .approvals
        .decide_as(id, state, &caller.actor(), reason.clone(), now)
        .map_err(|e| refused(app, e, now))?;
    let decision = match state {
        ApprovalState::Approved => "approved",
        ApprovalState::Denied => "denied",
        ApprovalState::Pending | ApprovalState::Expired | ApprovalState::Consumed => "decided",
    };
    crate::metrics::approval_decided(decision);
    app.waiters.wake(id);
    Ok(view(app, &decided))
}

/// Approve: a waiting turn runs the call at once.
#[utoipa::path(post, path = "/api/approvals/{id}/approve", tag = "approvals",
    params(("id" = String, Path, description = "Approval id")),
    request_body = ApproveRequest,
    responses((status = 200, description = "Approved", body = ApprovalView)))]
pub async fn approve(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Approver>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ApproveRequest>,
) -> Result<Json<ApprovalView>, ApiError> {
    decide(&app, &caller, &id, ApprovalState::Approved, body.reason).map(Json)
}

/// Deny, with the reason the model is told.
#[utoipa::path(post, path = "/api/approvals/{id}/deny", tag = "approvals",
    params(("id" = String, Path, description = "Approval id")),
    request_body = DenyRequest,
    responses((status = 200, description = "Denied", body = ApprovalView)))]
pub async fn deny(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Approver>,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<DenyRequest>,
) -> Result<Json<ApprovalView>, ApiError> {
    if body.reason.trim().is_empty() {
        return Err(ApiError::invalid_field("reason", "say why"));
    }
    decide(&app, &caller, &id, ApprovalState::Denied, Some(body.reason)).map(Json)
}

/// Run an approved approval whose session is gone: target re-resolved,
/// every gate but the approval, then a verification read.
#[utoipa::path(post, path = "/api/approvals/{id}/run", tag = "approvals",
    params(("id" = String, Path, description = "Approval id")),
    responses((status = 200, description = "What running it did", body = RunResult)))]
pub async fn run(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Approver>,
    Path(id): Path<String>,
) -> Result<Json<RunResult>, ApiError> {
    let approval = load(&app, &id)?;
    let now = now_ms();
    if app.waiters.is_waiting(&id) {
        return Err(ApiError::conflict(
            "a live turn is waiting for this approval and runs it once approved",
            Some(ApprovalStateView::of(&approval, now).as_str()),
        ));
    }
    check_consumable(&approval, now).map_err(|e| refused(&app, e, now))?;
    four_eyes(&app, &caller, &approval)?;
    let at = Moment {
        session: Duration::ZERO,
        wall_ms: now,
    };
    // An approved call runs as any approved write does: every gate again.
    let world = &app.world;
    let executor = world
        .backends
        .executor(world.turn.settings(ControlLevel::Controlled));
    let run = executor.run_stored_approval(&id, at).await;
    app.audit_human(HumanAction {
        session_id: &approval.session_id,
        actor: &caller.actor(),
        tool: &approval.tool,
        target: Some(&approval.target),
        decision: "run",
        detail: &approval.command,
    });
    let outcome = serde_json::to_value(&run.outcome.response)
        .map_err(|e| ApiError::Unavailable(e.to_string()))?;
    let verification = run
        .verification
        .map(|v| serde_json::to_value(&v.response))
        .transpose()
        .map_err(|e| ApiError::Unavailable(e.to_string()))?;
    Ok(Json(RunResult {
        outcome,
        verification,
    }))
}
