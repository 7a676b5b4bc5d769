//! Health, the OpenAPI document and Prometheus metrics.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::api::Health;
use crate::auth::{Caller, Role};
use crate::config::MetricsAccess;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

/// Whether the server answers (no credentials needed).
#[utoipa::path(get, path = "/api/health", tag = "system",
    responses((status = 200, description = "The server answers", body = Health)))]
pub async fn health(State(app): State<Arc<AppState>>) -> Json<Health> {
    // Probed once, at start (`warden serve` reports it).
    let world = Arc::clone(&app.world);
    let confinement = tokio::task::spawn_blocking(move || world.confinement().mode().as_str())
        .await
        .unwrap_or("unknown");
    Json(Health {
        status: "ok".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        confinement: confinement.to_string(),
    })
}

/// This document (no credentials needed).
#[utoipa::path(get, path = "/api/openapi.json", tag = "system",
    responses((status = 200, description = "OpenAPI 3.1", content_type = "application/json", body = Object)))]
pub async fn openapi(State(app): State<Arc<AppState>>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        app.openapi_json.to_string(),
    )
        .into_response()
}

/// Prometheus metrics (viewer, or anyone with `metrics_public`).
#[utoipa::path(get, path = "/metrics", tag = "system",
    responses(
        (status = 200, description = "Prometheus text format", content_type = "text/plain", body = String),
        (status = 401, description = "No credentials", body = ErrorBody),
    ))]
pub async fn metrics(
    State(app): State<Arc<AppState>>,
    caller: Result<Caller, ApiError>,
) -> Response {
    if app.config.metrics == MetricsAccess::Viewer {
        if let Err(error) = caller.and_then(|c| c.require(Role::Viewer)) {
            return error.into_response();
        }
    }
    match crate::metrics::render(&app) {
        Some(text) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        None => ApiError::Unavailable("metrics are not installed".into()).into_response(),
    }
}
