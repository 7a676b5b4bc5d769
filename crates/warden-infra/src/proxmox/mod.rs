//! The Proxmox VE connector: API-token HTTPS client with pinned or
//! CA-verified TLS, inventory from `/cluster/resources`, guest power control
//! with tasks polled to their exit status, snapshots, commands through the
//! QEMU guest agent, history from `rrddata`, storage and backups.
//!
//! [`ProxmoxCluster`] is the handle for one configured cluster; the other
//! modules hold its parts, the pure ones (parsing, mapping, decisions) free
//! of IO.

pub mod client;
pub mod cluster;
pub mod config;
pub mod control;
pub mod error;
pub mod failures;
pub mod follow;
pub mod guest_agent;
pub mod history;
pub mod inventory;
pub mod refresh_task;
pub mod rrd;
pub mod series;
pub mod shutdown;
pub mod snapshot;
pub mod snapshot_support;
pub mod snapshots;
pub mod storage;
pub mod tasks;
pub mod tls;
mod values;

pub use client::{ApiPath, PveClient};
pub use cluster::{
    BackupReport, ClusterStatus, GuestBackup, NodeState, PreChangeSnapshot, ProxmoxCluster,
    RefreshReport,
};
pub use config::{
    ApiToken, CertFingerprint, ConfigError, ConnectionSettings, DEFAULT_REFRESH_INTERVAL,
    ProxmoxConfig, TlsTrust, resolve_all,
};
pub use control::{
    GuestState, HaManagement, PowerOperation, PowerOutcome, PowerPlan, ShutdownFallback, plan_power,
};
pub use error::{PermissionDenied, ProxmoxError};
pub use guest_agent::{Confinement, GuestCommandOutput};
pub use inventory::{GuestInfo, GuestKind, NodeInfo, StorageInfo};
pub use refresh_task::RefreshTask;
pub use rrd::{
    DEFAULT_MAX_POINTS, Metric, MetricHistory, Point, Summary, Timeframe, sparkline, sparkline_of,
};
pub use snapshot::{GuestMove, InventorySnapshot, detect_moves};
pub use snapshots::{RollbackOutcome, SnapshotInfo, pre_change_snapshot_name};
pub use storage::{BackupArchive, BackupJob, BackupSelection, LastBackup, StoragePool};
pub use tasks::{TaskExit, TaskOutcome, TaskWait, Upid};
