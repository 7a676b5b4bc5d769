//! What every request handler shares: configuration, the store, the
//! ports, the live sessions, the approval waiters, login throttling,
//! metrics and the server's lifecycle.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use metrics_exporter_prometheus::PrometheusHandle;
use tokio::sync::{Notify, watch};
use warden_store::Store;
use warden_world::World;
use warden_world::agents::Agents;

use crate::auth::LoginLimiter;
use crate::config::ServerConfig;
use crate::live::{ApprovalWaiters, Sessions};

pub struct AppState {
    pub config: ServerConfig,
    /// Everything turns act on, built from the effective configuration.
    pub world: Arc<World>,
    /// The world's store (the same one).
    pub store: Arc<Store>,
    /// Host agents: their connections, inventory and commands.
    pub agents: Arc<Agents>,
    pub sessions: Sessions,
    /// The installation event stream (`GET /api/events`).
    pub installation: Arc<crate::live::InstallationEvents>,
    pub waiters: ApprovalWaiters,
    pub limiter: LoginLimiter,
    pub metrics: Option<PrometheusHandle>,
    pub lifecycle: Lifecycle,
    /// Under TLS, cookies get `Secure` and responses HSTS.
    pub transport: Transport,
    pub started: Instant,
    /// The OpenAPI document, serialised once.
    pub openapi_json: Arc<str>,
}

/// How the listener speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Plain,
    Tls,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Running → draining (no new turns) → closing (streams end).
pub struct Lifecycle {
    draining: AtomicBool,
    closing: watch::Sender<bool>,
    /// Woken whenever a turn ends (shutdown waits on it).
    pub turn_ended: Notify,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            draining: AtomicBool::new(false),
            closing: watch::Sender::new(false),
            turn_ended: Notify::new(),
        }
    }
}

impl Lifecycle {
    pub fn accepting_turns(&self) -> bool {
        !self.draining.load(Ordering::SeqCst)
    }

    pub fn drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// End every event stream.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Becomes true when streams must end.
    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }
}

/// A human decision, for the audit log (approve, deny, run, level change,
/// a turn cancelled at shutdown), with who did it.
pub struct HumanAction<'a> {
    pub session_id: &'a str,
    pub actor: &'a str,
    pub tool: &'a str,
    pub target: Option<&'a str>,
    /// `approved`, `denied`, `run`, `level_changed`, `cancelled`.
    pub decision: &'a str,
    pub detail: &'a str,
}

impl AppState {
    pub fn audit_human(&self, action: HumanAction<'_>) {
        let record = warden_protocol::AuditRecord {
            session_id: action.session_id.to_string(),
            actor: action.actor.to_string(),
            tool: action.tool.to_string(),
            target: action.target.map(str::to_string),
            decision: action.decision.to_string(),
            code: None,
            command: action.detail.to_string(),
            reason: None,
            duration_ms: 0,
        };
        if let Err(error) = self.world.backends.audit.append(record) {
            tracing::error!(%error, "cannot audit a human decision");
        }
    }
}
