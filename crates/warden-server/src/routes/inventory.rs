//! The inventory, from the shared snapshot (one `Arc`, indexed lookups).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use warden_core::ports::InventorySnapshot;
use warden_protocol::ResourceId;

use crate::api::ResourceView;
use crate::auth::{Authorized, needs};
use crate::error::ApiError;
use crate::state::AppState;

/// Taking a snapshot may discover (run commands): off the async workers.
async fn snapshot(app: &Arc<AppState>) -> Result<Arc<InventorySnapshot>, ApiError> {
    let app = Arc::clone(app);
    tokio::task::spawn_blocking(move || app.world.backends.inventory.snapshot())
        .await
        .map_err(|e| ApiError::Unavailable(format!("inventory unavailable: {e}")))
}

/// Every known resource.
#[utoipa::path(get, path = "/api/inventory", tag = "inventory",
    responses((status = 200, description = "Every resource", body = Vec<ResourceView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
) -> Result<Json<Vec<ResourceView>>, ApiError> {
    let snapshot = snapshot(&app).await?;
    Ok(Json(snapshot.all().iter().map(ResourceView::of).collect()))
}

/// One resource by its canonical id (URL-encoded: `lxc%3Apve1%3A141`).
#[utoipa::path(get, path = "/api/inventory/{id}", tag = "inventory",
    params(("id" = String, Path, description = "Canonical resource id")),
    responses((status = 200, description = "The resource", body = ResourceView)))]
pub async fn get(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    Path(id): Path<String>,
) -> Result<Json<ResourceView>, ApiError> {
    let not_found = || ApiError::NotFound(format!("no resource `{id}`"));
    let parsed: ResourceId = id.parse().map_err(|_| not_found())?;
    let snapshot = snapshot(&app).await?;
    snapshot
        .get(&parsed)
        .map(|r| Json(ResourceView::of(r)))
        .ok_or_else(not_found)
}
