//! The audit log: pages of records and a check of the hash chain.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use utoipa::IntoParams;
use warden_store::AuditEntry;

use crate::api::{AuditRecordView, AuditVerify, rfc3339};
use crate::auth::{Caller, Role};
use crate::error::ApiError;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Records after this sequence number.
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many (default 100, at most 1000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
}

/// The one place audit entries become API records (the store's record
/// has no actor yet; the summary is the command).
fn view(entry: AuditEntry) -> AuditRecordView {
    AuditRecordView {
        seq: entry.seq,
        at: rfc3339(u64::try_from(entry.at_ms).unwrap_or(0)),
        session_id: entry.record.session_id,
        actor: None,
        tool: entry.record.tool,
        target: entry.record.target,
        decision: entry.record.decision,
        code: entry.record.code,
        command: entry.record.summary,
        duration_ms: entry.record.duration_ms,
        hash: entry.hash,
    }
}

/// Audit records ascending by `seq`.
#[utoipa::path(get, path = "/api/audit", tag = "audit", params(AuditQuery),
    responses((status = 200, description = "Records after `after`", body = Vec<AuditRecordView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    caller: Caller,
    query: Result<Query<AuditQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<AuditRecordView>>, ApiError> {
    caller.require(Role::Viewer)?;
    let Query(query) = query.map_err(|e| ApiError::invalid(e.body_text()))?;
    let after = query.after.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::invalid_field("after", "must be 0 or more"));
    }
    let limit = query.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::invalid_field(
            "limit",
            "must be between 1 and 1000",
        ));
    }
    let entries = app
        .store
        .audit_after(after, limit)
        .map_err(ApiError::store)?;
    Ok(Json(entries.into_iter().map(view).collect()))
}

/// Recompute the hash chain.
#[utoipa::path(get, path = "/api/audit/verify", tag = "audit",
    responses((status = 200, description = "Whether the chain is intact", body = AuditVerify)))]
pub async fn verify(
    State(app): State<Arc<AppState>>,
    caller: Caller,
) -> Result<Json<AuditVerify>, ApiError> {
    caller.require(Role::Viewer)?;
    let store = Arc::clone(&app.store);
    let (checked, head) = tokio::task::spawn_blocking(move || {
        Ok::<_, ApiError>((
            store.verify_audit().map_err(ApiError::store)?,
            store.audit_head_hash().map_err(ApiError::store)?,
        ))
    })
    .await
    .map_err(|e| ApiError::Unavailable(e.to_string()))??;
    Ok(Json(match checked {
        Ok(records) => AuditVerify {
            intact: true,
            records: u64::try_from(records).unwrap_or(u64::MAX),
            head_hash: head,
            problem: None,
            at_seq: None,
        },
        Err(broken) => AuditVerify {
            intact: false,
            records: u64::try_from(broken.seq.saturating_sub(1)).unwrap_or(0),
            head_hash: head,
            problem: Some(broken.reason),
            at_seq: Some(broken.seq),
        },
    }))
}
