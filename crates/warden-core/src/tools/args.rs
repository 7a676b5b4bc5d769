//! Typed arguments of every tool in the catalogue (DESIGN.md, "Tool
//! catalogue"). The JSON Schemas the model sees are generated from these
//! types; validation is deserialisation into them, with unknown fields
//! refused, so a call that does not match its schema never runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use warden_protocol::ResourceKind;

/// `query`: find resources (resolve).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueryArgs {
    /// Resources whose name, alias or id contains `text`.
    Search {
        text: String,
        kind: Option<ResourceKind>,
    },
    /// One resource by id, name or alias (counts as explicit access).
    Get { target: String },
    /// Every resource, optionally of one kind.
    List { kind: Option<ResourceKind> },
    /// How the resources hang together.
    Topology {},
    /// A health summary, of one resource or all.
    Health { target: Option<String> },
}

/// `discovery`: services, ports, config and log paths, bind mounts, routing chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum DiscoveryArgs {
    Get { target: String },
}

/// `read`: read-only commands and files on a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReadArgs {
    /// Run a provably read-only, bounded command.
    Exec {
        target: String,
        command: String,
    },
    File {
        target: String,
        path: String,
    },
    Find {
        target: String,
        path: String,
        pattern: String,
    },
    Tail {
        target: String,
        path: String,
        lines: Option<u32>,
    },
    Logs {
        target: String,
        service: Option<String>,
        lines: Option<u32>,
        since: Option<String>,
    },
}

/// `metrics`: current and historical CPU, memory, disk, network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricsArgs {
    pub target: String,
    /// `cpu`, `memory`, `disk`, `network`, `load`, … (default: all).
    pub metric: Option<String>,
    /// History over this window (Proxmox nodes and guests); absent: current values.
    pub range: Option<HistoryRange>,
    /// At most this many points per history series (default 120).
    pub max_points: Option<u32>,
}

/// A window of history, as Proxmox keeps it (`rrddata` timeframes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HistoryRange {
    #[serde(alias = "1h", alias = "last_hour")]
    Hour,
    #[serde(alias = "24h", alias = "1d", alias = "today")]
    Day,
    #[serde(alias = "7d", alias = "1w", alias = "this_week")]
    Week,
    #[serde(alias = "30d", alias = "this_month")]
    Month,
    #[serde(alias = "365d", alias = "1y", alias = "this_year")]
    Year,
}

impl HistoryRange {
    pub fn as_str(self) -> &'static str {
        match self {
            HistoryRange::Hour => "hour",
            HistoryRange::Day => "day",
            HistoryRange::Week => "week",
            HistoryRange::Month => "month",
            HistoryRange::Year => "year",
        }
    }
}

/// Points per history series when the call does not say.
pub const DEFAULT_MAX_POINTS: u32 = 120;
/// The most points a history series may have.
pub const MAX_POINTS_LIMIT: u32 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StorageAction {
    Pools,
    Disks,
    Backups,
}

/// `storage`: pools, disks (SMART), backups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StorageArgs {
    pub action: StorageAction,
    pub target: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KubernetesAction {
    Pods,
    Deployments,
    Events,
    Logs,
}

/// `kubernetes`: read-only cluster views.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KubernetesArgs {
    pub action: KubernetesAction,
    pub target: Option<String>,
    pub namespace: Option<String>,
    pub lines: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GuestOperation {
    Start,
    Stop,
    Shutdown,
    Reboot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServiceOperation {
    Start,
    Stop,
    Restart,
    Reload,
}

/// What a shutdown does when the guest outlasts its timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShutdownFallback {
    /// Stop it hard (pulls the plug).
    Stop,
    /// Leave it running and report that the shutdown did not finish.
    LeaveRunning,
}

/// Seconds a shutdown waits for the guest when the call does not say.
pub const DEFAULT_SHUTDOWN_TIMEOUT_SECS: u32 = 180;

/// `control`: change things (write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ControlArgs {
    /// Power a VM or LXC: start, stop (immediate), shutdown (clean), reboot.
    Guest {
        target: String,
        operation: GuestOperation,
        /// Shutdown only: seconds to wait for a clean shutdown (default 180).
        timeout_secs: Option<u32>,
        /// Shutdown only: what to do when it outlasts the timeout (default leave_running).
        on_timeout: Option<ShutdownFallback>,
    },
    Service {
        target: String,
        service: String,
        operation: ServiceOperation,
    },
    Command {
        target: String,
        command: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContainerOperation {
    Start,
    Stop,
    Restart,
    Pause,
    Unpause,
}

/// `docker`: containers (list/logs/inspect/stats read; control/update write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum DockerArgs {
    List {
        target: Option<String>,
    },
    Logs {
        target: String,
        lines: Option<u32>,
    },
    Inspect {
        target: String,
    },
    Stats {
        target: Option<String>,
    },
    Control {
        target: String,
        operation: ContainerOperation,
    },
    /// Pull the container's image and recreate it.
    Update {
        target: String,
    },
}

/// `alerts`: list and findings read; acknowledge, resolve, dismiss write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum AlertsArgs {
    List {},
    Findings {},
    Acknowledge { id: String },
    Resolve { id: String },
    Dismiss { id: String },
}

/// `knowledge`: recall reads; remember writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum KnowledgeArgs {
    Recall {
        query: String,
        target: Option<String>,
    },
    Remember {
        note: String,
        target: Option<String>,
    },
}

/// `file_edit`: read reads; write, append and replace write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum FileEditArgs {
    Read {
        target: String,
        path: String,
    },
    Write {
        target: String,
        path: String,
        content: String,
    },
    Append {
        target: String,
        path: String,
        content: String,
    },
    Replace {
        target: String,
        path: String,
        old: String,
        new: String,
    },
}

/// `snapshot`: a Proxmox guest's snapshots (list reads; create and rollback write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum SnapshotArgs {
    /// The guest's snapshots with their time and description.
    List { target: String },
    /// Take a snapshot of the guest (disk and config) and wait for it.
    Create {
        target: String,
        /// A letter, then letters, digits, `-` and `_` (at most 40).
        name: String,
        description: Option<String>,
    },
    /// Roll the guest back to a snapshot: every change since is lost.
    Rollback { target: String, name: String },
}
