//! The one world builder: Warden's effective configuration and everything
//! it names, wired into the core's ports once, for every front end (`warden
//! ask`, `chat`, `serve`, the agent's server side, Patrol). Nothing above
//! this crate builds a backend; the server never reaches into the binary.
//!
//! - [`config`]: the one loader — defaults, then the TOML file, then
//!   `WARDEN_*` variables, then flags — into [`Config`], every value with
//!   where it came from, and the [`TurnConfig`](warden_core::turn::TurnConfig)
//!   the turn runner reads;
//! - [`world`]: [`World`] and its [`WorldBuilder`]: the store, the inventory
//!   (this machine, Proxmox clusters, agents), the hosts (this machine,
//!   its containers, agents), the guest API, approvals, audit, notes,
//!   conversations and the model, each built when first needed;
//! - [`storage`]: the SQLite store behind the core's ports (approvals,
//!   audit, notes, conversations) and where the database lives;
//! - [`local`]: this machine as an inventory source and a host;
//! - [`proxmox`]: the configured Proxmox VE clusters (inventory, guest API,
//!   refresh) and the clusters an admin adds through the API;
//! - [`known_secrets`]: Warden's own secrets, which the executor withholds
//!   from every tool output (the known-secret canary);
//! - [`agents`]: host agents seen from the server: the hub of connections,
//!   their inventory, the write grants, and commands routed through them.
#![forbid(unsafe_code)]

pub mod agents;
pub mod config;
pub mod known_secrets;
pub mod local;
pub mod protected;
pub mod proxmox;
pub mod storage;
mod store_writer;
pub mod world;

pub use config::{Config, ConfigError, Overrides, Source, Sourced};
pub use world::{ModelSource, Simulated, World, WorldBuilder, WorldError};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    warden_core::turn::wall_ms()
}

/// `prefix` and 128 random bits in hex.
pub fn random_id(prefix: &str) -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{prefix}{}", hex::encode(bytes)))
}
