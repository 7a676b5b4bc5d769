//! `warden serve`: the control plane. The HTTP API of `spec/api.md` on
//! axum/hyper (optionally TLS), live sessions streaming over SSE through
//! the same loop, executor, FSM and router as the CLI, approvals that wake
//! the waiting turn, users/roles/tokens, Prometheus metrics, an OpenAPI
//! document generated from the handlers, and a graceful shutdown.
//!
//! Start it with [`start`], giving it a [`ServerConfig`], the store and the
//! [`ServerPorts`] (inventory, hosts, approvals, audit, notes, model,
//! Proxmox clusters).

mod agents;
mod api;
pub mod auth;
pub mod clusters;
pub mod config;
mod error;
mod extract;
mod live;
pub mod metrics;
pub mod ports;
mod routes;
mod serve;
mod state;
mod store_writer;
pub mod tls;
mod ui;

pub use agents::AgentSettings;
pub use api::rfc3339;
pub use config::{FourEyes, MetricsAccess, ServerConfig, TlsMode, cap_level};
pub use ports::{ModelFactory, ModelPrice, ServerPorts};
pub use serve::{ServerError, ShutdownHandle, ShutdownReport, Started, start};

/// The OpenAPI document of the API, as served at `/api/openapi.json`.
pub fn openapi_json() -> Result<String, String> {
    routes::build().1.to_json().map_err(|e| e.to_string())
}
