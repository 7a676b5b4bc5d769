//! The Proxmox VE connector: API-token HTTPS client with pinned or
//! CA-verified TLS, inventory from `/cluster/resources`, guest power control
//! with tasks polled to their exit status, snapshots, commands through the
//! QEMU guest agent, history from `rrddata`, storage and backups.

pub mod client;
pub mod config;
pub mod error;
pub mod inventory;
pub mod snapshot;
pub mod tasks;
pub mod tls;
mod values;

pub use client::{ApiPath, PveClient};
pub use config::{ApiToken, CertFingerprint, ConfigError, ConnectionSettings, ProxmoxConfig, TlsTrust};
pub use error::ProxmoxError;
pub use inventory::{GuestInfo, GuestKind, NodeInfo, StorageInfo};
pub use snapshot::{GuestMove, InventorySnapshot, detect_moves};
pub use tasks::{TaskExit, TaskOutcome, TaskWait, Upid};
