//! `warden serve`: the control plane. The HTTP API of `spec/api.md` on
//! axum/hyper (optionally TLS), live sessions streaming over SSE through
//! the same loop, executor, FSM and router as the CLI, approvals that wake
//! the waiting turn, users/roles/tokens, Prometheus metrics, an OpenAPI
//! document generated from the handlers, and a graceful shutdown.
//!
//! Start it with [`start`], giving it a [`ServerConfig`] (where it listens,
//! TLS, the control-level ceiling, timings) and the [`World`] the world
//! builder made from the effective configuration (store, inventory, hosts,
//! agents, Proxmox, model, the turn configuration). Sessions run their
//! turns through the one turn runner of `warden-core`; their events are
//! the one vocabulary of `warden-protocol`.
//!
//! Map: [`config`] (the server's own knobs), `serve` (start, connections,
//! graceful shutdown), `state` (what handlers share), `live` (sessions,
//! their turns and event logs, approvals that wake waiting turns),
//! `routes` (one file per area of `spec/api.md`), `api` (request and
//! response bodies), [`auth`] (users, tokens, cookies, roles), `agents`
//! (the agents' WebSocket endpoint; the hub itself is the world's),
//! [`metrics`], [`tls`], `ui` (the embedded web UI).
//!
//! [`World`]: warden_world::World

mod agents;
mod api;
pub mod auth;
pub mod config;
mod error;
mod extract;
mod live;
pub mod metrics;
mod routes;
mod serve;
mod state;
pub mod tls;
mod ui;

pub use api::rfc3339;
pub use config::{
    FourEyes, ListenCheck, MetricsAccess, PlainHttp, ServerConfig, TlsMode, cap_level, is_loopback,
};
pub use serve::{ServerError, ShutdownHandle, ShutdownReport, Started, start};

/// The OpenAPI document of the API, as served at `/api/openapi.json`.
pub fn openapi_json() -> Result<String, String> {
    routes::build().1.to_json().map_err(|e| e.to_string())
}
