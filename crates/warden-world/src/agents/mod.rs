//! The server side of host agents (spec/agent.md): enrollment and the
//! agents' keys ([`grants`]), their WebSocket connections
//! (the server's WebSocket endpoint), the hub of live connections and commands in flight
//! ([`hub`]), what they report merged into the inventory ([`inventory`]),
//! without names that shadow anyone else's ([`names`]), which of their
//! `metrics` samples are theirs to send ([`metrics`]), and commands routed
//! through them ([`backend`], which carries out what
//! `warden_protocol::routing` decides).
//!
//! Merge order: this machine's inventory first, then the other sources the
//! server was given, then the agents (in enrollment order). An agent named
//! like one of this machine's `host:` resources adds nothing that this
//! machine does not already report first, and commands for that machine
//! stay local. An agent's aliases never take a name this machine, a
//! cluster or an earlier agent holds; a revoked agent never comes back.

pub mod backend;
pub mod grants;
pub mod hub;
pub mod inventory;
pub mod metrics;
pub mod names;

use std::sync::Arc;
use std::time::Duration;

use ed25519_dalek::SigningKey;
use tokio::sync::watch;
use warden_store::Store;

use crate::now_ms;
use hub::AgentHub;
use inventory::AgentInventory;

/// How the server treats agents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    /// How often the server pings each agent (`welcome.heartbeat_secs`).
    pub heartbeat: Duration,
    /// `timeout_ms` of every command sent to an agent.
    pub command_timeout: Duration,
    /// `max_output_bytes` of every command (per stream).
    pub max_output_bytes: u64,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            heartbeat: Duration::from_secs(15),
            command_timeout: Duration::from_secs(30),
            max_output_bytes: 64 * 1024,
        }
    }
}

/// Everything the agent endpoints and the agent backend share.
pub struct Agents {
    pub hub: AgentHub,
    pub store: Arc<Store>,
    /// Signs write grants; its public half is given to agents at enrollment.
    pub signing_key: SigningKey,
    pub settings: AgentSettings,
    /// Turns true when the server shuts down: connections close.
    closing: watch::Sender<bool>,
}

impl Agents {
    pub fn new(store: Arc<Store>, signing_key: SigningKey, settings: AgentSettings) -> Self {
        Agents {
            hub: AgentHub::new(Arc::new(AgentInventory::default())),
            store,
            signing_key,
            settings,
            closing: watch::Sender::new(false),
        }
    }

    /// The agents' resources, as an inventory source.
    pub fn inventory(&self) -> Arc<AgentInventory> {
        Arc::clone(self.hub.inventory())
    }

    /// Close every agent connection (server shutdown).
    pub fn close_all(&self) {
        self.closing.send_replace(true);
    }

    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Records that the agent was seen now (off the async workers).
    pub fn touch(&self, agent_id: &str) {
        let store = Arc::clone(&self.store);
        let agent_id = agent_id.to_string();
        tokio::task::spawn_blocking(move || {
            if let Err(error) = store.touch_agent(&agent_id, now_ms()) {
                tracing::warn!(%error, agent_id, "cannot record when an agent was seen");
            }
        });
    }
}
