//! Proxmox VE clusters (admin): list, add (connected and checked before it
//! is kept), remove. Every change is audited with who made it.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use crate::auth::{Caller, Role};
use crate::clusters::{AddCluster, ClusterAdminError, ClusterView};
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::state::{AppState, HumanAction};

fn admin_error(error: ClusterAdminError) -> ApiError {
    match error {
        ClusterAdminError::Invalid { field, message } => ApiError::invalid_field(field, message),
        ClusterAdminError::Conflict(message) => ApiError::conflict(message, None),
        ClusterAdminError::NotFound(message) => ApiError::NotFound(message),
        ClusterAdminError::Unavailable(message) => ApiError::Unavailable(message),
    }
}

fn audit(app: &AppState, caller: &Caller, decision: &str, name: &str, detail: &str) {
    let target = format!("proxmox:{name}");
    app.audit_human(HumanAction {
        session_id: "",
        actor: &caller.user,
        tool: "proxmox_cluster",
        target: Some(&target),
        decision,
        detail,
    });
}

/// The connected clusters (never a secret).
#[utoipa::path(get, path = "/api/proxmox/clusters", tag = "proxmox",
    responses((status = 200, description = "Clusters", body = Vec<ClusterView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    caller: Caller,
) -> Result<Json<Vec<ClusterView>>, ApiError> {
    caller.require(Role::Admin)?;
    Ok(Json(app.clusters.list()))
}

/// Connect a cluster: its first inventory is read before anything is kept,
/// so a wrong secret or certificate is a 400 naming the field.
#[utoipa::path(post, path = "/api/proxmox/clusters", tag = "proxmox", request_body = AddCluster,
    responses((status = 201, description = "Connected", body = ClusterView)))]
pub async fn add(
    State(app): State<Arc<AppState>>,
    caller: Caller,
    ApiJson(body): ApiJson<AddCluster>,
) -> Result<(StatusCode, Json<ClusterView>), ApiError> {
    caller.require(Role::Admin)?;
    let name = body.name.clone();
    let url = body.url.clone();
    let view = app.clusters.add(body).await.map_err(admin_error)?;
    audit(&app, &caller, "cluster_added", &name, &url);
    Ok((StatusCode::CREATED, Json(view)))
}

/// Disconnect a cluster added through the API and forget its settings.
#[utoipa::path(delete, path = "/api/proxmox/clusters/{name}", tag = "proxmox",
    params(("name" = String, Path, description = "Cluster name")),
    responses((status = 204, description = "Removed")))]
pub async fn remove(
    State(app): State<Arc<AppState>>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    caller.require(Role::Admin)?;
    app.clusters.remove(&name).map_err(admin_error)?;
    audit(&app, &caller, "cluster_removed", &name, "");
    Ok(StatusCode::NO_CONTENT)
}
