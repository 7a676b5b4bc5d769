//! Proxmox VE clusters (admin): list, add (connected and checked before it
//! is kept), remove. Every change is audited with who made it.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use crate::auth::{Authorized, Caller, needs};
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::state::{AppState, HumanAction};
use warden_world::proxmox::admin::ProxmoxAdmin;
use warden_world::proxmox::clusters::{AddCluster, ClusterAdminError, ClusterView};

fn admin_error(error: ClusterAdminError) -> ApiError {
    match error {
        ClusterAdminError::Invalid { field, message } => ApiError::invalid_field(field, message),
        ClusterAdminError::Conflict(message) => ApiError::conflict(message, None),
        ClusterAdminError::NotFound(message) => ApiError::NotFound(message),
        ClusterAdminError::Unavailable(message) => ApiError::Unavailable(message),
    }
}

/// The clusters this server manages; none in a simulated world.
fn clusters(app: &AppState) -> Result<&ProxmoxAdmin, ApiError> {
    app.world.cluster_admin.as_ref().ok_or_else(|| {
        // The server's state, not a passing failure: 409, not 503.
        ApiError::conflict(
            "this server runs a simulated world: Proxmox clusters cannot be managed",
            None,
        )
    })
}

fn audit(app: &AppState, caller: &Caller, decision: &str, name: &str, detail: &str) {
    let target = format!("proxmox:{name}");
    app.audit_human(HumanAction {
        session_id: "",
        actor: &caller.actor(),
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
    _: Authorized<needs::Admin>,
) -> Result<Json<Vec<ClusterView>>, ApiError> {
    Ok(Json(
        app.world
            .cluster_admin
            .as_ref()
            .map(ProxmoxAdmin::list)
            .unwrap_or_default(),
    ))
}

/// Connect a cluster: its first inventory is read before anything is kept,
/// so a wrong secret or certificate is a 400 naming the field.
#[utoipa::path(post, path = "/api/proxmox/clusters", tag = "proxmox", request_body = AddCluster,
    responses((status = 201, description = "Connected", body = ClusterView)))]
pub async fn add(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Admin>,
    ApiJson(body): ApiJson<AddCluster>,
) -> Result<(StatusCode, Json<ClusterView>), ApiError> {
    let name = body.name.clone();
    let url = body.url.clone();
    let view = clusters(&app)?.add(body).await.map_err(admin_error)?;
    audit(&app, &caller, "cluster_added", &name, &url);
    Ok((StatusCode::CREATED, Json(view)))
}

/// Disconnect a cluster added through the API and forget its settings.
#[utoipa::path(delete, path = "/api/proxmox/clusters/{name}", tag = "proxmox",
    params(("name" = String, Path, description = "Cluster name")),
    responses((status = 204, description = "Removed")))]
pub async fn remove(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Admin>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    match app.world.cluster_admin.as_ref() {
        Some(admin) => admin.remove(&name).map_err(admin_error)?,
        None => return Err(ApiError::NotFound(format!("no Proxmox cluster `{name}`"))),
    }
    audit(&app, &caller, "cluster_removed", &name, "");
    Ok(StatusCode::NO_CONTENT)
}
