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
    pub metric: Option<String>,
    pub range: Option<String>,
}

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

/// `control`: change things (write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ControlArgs {
    Guest {
        target: String,
        operation: GuestOperation,
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
