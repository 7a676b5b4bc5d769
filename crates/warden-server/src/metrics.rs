//! Prometheus metrics: the core's gate counters (emitted through the
//! `metrics` facade), plus the server's own: request latency, tool
//! durations, model tokens, sessions, turns, approvals, stream clients and
//! agents. Every label value comes from a fixed set (route templates, tool
//! names, enums) or is sanitised by the core.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use warden_world::agents::metrics::{AcceptedMetrics, SampleRejection};

use crate::auth::LockoutScope;
use crate::state::{AppState, now_ms};

/// Seconds: from 1 ms to 1 min.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// The gate counters of DESIGN "Telemetry" (incremented by the core).
const GATE_COUNTERS: &[&str] = &[
    "warden_fsm_tool_block_total",
    "warden_fsm_final_block_total",
    "warden_strict_resolution_block_total",
    "warden_routing_mismatch_block_total",
    "warden_phantom_detected_total",
    "warden_auto_recovery_attempt_total",
    "warden_auto_recovery_success_total",
    "warden_agentic_iterations_total",
    "warden_gate_block_total",
];

#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot install the metrics recorder: {0}")]
pub struct MetricsError(String);

/// Install the Prometheus recorder for this process (once; later calls
/// get the same handle). The recorder is global: one per process.
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    static HANDLE: OnceLock<Result<PrometheusHandle, MetricsError>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".to_string()), LATENCY_BUCKETS)
                .map_err(|e| MetricsError(e.to_string()))?
                .install_recorder()
                .map_err(|e| MetricsError(e.to_string()))?;
            describe();
            Ok(handle)
        })
        .clone()
}

/// Every family appears from the first scrape, before anything happened.
fn describe() {
    for name in GATE_COUNTERS {
        counter!(*name).absolute(0);
    }
    counter!("warden_model_tokens_total", "direction" => "input").absolute(0);
    counter!("warden_model_tokens_total", "direction" => "output").absolute(0);
    counter!("warden_logins_total", "result" => "ok").absolute(0);
    for scope in [LockoutScope::UserAddress, LockoutScope::Address] {
        counter!("warden_login_lockouts_total", "scope" => scope.as_str()).absolute(0);
    }
    counter!("warden_approval_decisions_total", "decision" => "approved").absolute(0);
    counter!("warden_agent_metric_samples_total", "result" => "accepted").absolute(0);
    for why in SampleRejection::ALL {
        counter!("warden_agent_metric_samples_total", "result" => why.as_str()).absolute(0);
    }
    gauge!("warden_connected_agents").set(0.0);
    gauge!("warden_running_turns").set(0.0);
    gauge!("warden_sse_clients").set(0.0);
    gauge!("warden_active_sessions").set(0.0);
    gauge!("warden_pending_approvals").set(0.0);
}

/// The text exposition, with the gauges read now.
pub fn render(app: &AppState) -> Option<String> {
    let handle = app.metrics.as_ref()?;
    gauge!("warden_active_sessions").set(app.sessions.len() as f64);
    if let Ok(pending) = app.store.pending_approval_count(now_ms()) {
        gauge!("warden_pending_approvals").set(pending as f64);
    }
    gauge!("warden_waiting_approvals").set(app.waiters.len() as f64);
    gauge!("warden_uptime_seconds").set(app.started.elapsed().as_secs_f64());
    handle.run_upkeep();
    Some(handle.render())
}

/// The samples of one agent `metrics` frame: kept, or dropped and why.
pub fn agent_metric_samples(accepted: &AcceptedMetrics) {
    counter!("warden_agent_metric_samples_total", "result" => "accepted")
        .increment(accepted.samples.len() as u64);
    for (_, why) in &accepted.rejected {
        counter!("warden_agent_metric_samples_total", "result" => why.as_str()).increment(1);
    }
}

/// How many agents hold a live connection.
pub fn connected_agents(count: usize) {
    gauge!("warden_connected_agents").set(count as f64);
}

/// Keep histogram memory bounded between scrapes.
pub fn spawn_upkeep(handle: PrometheusHandle) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        loop {
            every.tick().await;
            handle.run_upkeep();
        }
    });
}

/// Request latency by method, route template and status class.
pub async fn track_requests(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = match *request.method() {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::PUT => "PUT",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    };
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let response = next.run(request).await;
    let status = match response.status().as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    };
    histogram!("warden_http_request_duration_seconds", "method" => method, "route" => route, "status" => status)
        .record(started.elapsed().as_secs_f64());
    response
}

pub fn turn_started() {
    counter!("warden_turns_total").increment(1);
    gauge!("warden_running_turns").increment(1.0);
}

pub fn turn_ended() {
    gauge!("warden_running_turns").decrement(1.0);
}

pub fn sessions(app: &Arc<AppState>) {
    gauge!("warden_active_sessions").set(app.sessions.len() as f64);
}

/// `ok`, `failed` or `throttled`.
pub fn login(result: &'static str) {
    counter!("warden_logins_total", "result" => result).increment(1);
}

/// A run of wrong passwords made a key wait (see `auth::LoginLimiter`).
pub fn login_lockout(scope: LockoutScope) {
    counter!("warden_login_lockouts_total", "scope" => scope.as_str()).increment(1);
}

pub fn approval_decided(decision: &'static str) {
    counter!("warden_approval_decisions_total", "decision" => decision).increment(1);
}

/// Counts a connected event-stream client while it lives.
pub struct StreamClient(());

impl StreamClient {
    pub fn connect() -> Self {
        gauge!("warden_sse_clients").increment(1.0);
        StreamClient(())
    }
}

impl Drop for StreamClient {
    fn drop(&mut self) {
        gauge!("warden_sse_clients").decrement(1.0);
    }
}
