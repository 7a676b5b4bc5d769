//! The audit log: pages of records and a check of the hash chain.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use utoipa::IntoParams;
use warden_store::AuditEntry;

use crate::api::{AuditRecordView, AuditVerify};
use crate::auth::{Authorized, needs};
use crate::error::ApiError;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Records after this sequence number.
    #[param(minimum = 0)]
    pub after: Option<u64>,
    /// At most this many (default 100, at most 1000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
}

/// The one place audit entries become API records.
fn view(entry: AuditEntry) -> AuditRecordView {
    AuditRecordView {
        seq: entry.seq,
        at: entry.at,
        session_id: entry.record.session_id,
        actor: entry.record.actor,
        tool: entry.record.tool,
        target: entry.record.target,
        decision: entry.record.decision,
        code: entry.record.code,
        command: entry.record.command,
        duration_ms: entry.record.duration_ms,
        hash: entry.hash,
    }
}

/// Audit records ascending by `seq`.
#[utoipa::path(get, path = "/api/audit", tag = "audit", params(AuditQuery),
    responses((status = 200, description = "Records after `after`", body = Vec<AuditRecordView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    query: Result<Query<AuditQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<AuditRecordView>>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::invalid(e.body_text()))?;
    let after = query.after.unwrap_or(0);
    let limit = query.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::invalid_field(
            "limit",
            "must be between 1 and 1000",
        ));
    }
    let entries = app
        .store
        .audit_page(after, limit)
        .map_err(ApiError::store)?;
    Ok(Json(entries.into_iter().map(view).collect()))
}

/// Recompute the hash chain.
#[utoipa::path(get, path = "/api/audit/verify", tag = "audit",
    responses((status = 200, description = "Whether the chain is intact", body = AuditVerify)))]
pub async fn verify(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
) -> Result<Json<AuditVerify>, ApiError> {
    let store = Arc::clone(&app.store);
    let checked =
        tokio::task::spawn_blocking(move || store.verify_audit().map_err(ApiError::store))
            .await
            .map_err(|e| ApiError::Unavailable(e.to_string()))??;
    Ok(Json(AuditVerify {
        intact: checked.intact,
        records: checked.records,
        head_hash: checked.head_hash,
        problem: checked.problem.map(|p| p.to_string()),
        at_seq: checked.at_seq,
    }))
}
