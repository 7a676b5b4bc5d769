//! The seam for infrastructure that answers calls through its own API
//! (Proxmox VE): guest power with its task polled to the end, snapshots,
//! history, storage and backups, and commands in a VM through its QEMU guest
//! agent. The executor decides (every gate has run before a call gets
//! here); an implementation only carries the call out and reports what
//! really happened.

use std::time::Duration;

use serde_json::Value;
use warden_protocol::routing::{GuestApiService, node_of};
use warden_protocol::{CancelFlag, Resource, ResourceId, ResourceKind, ToolError};

use super::{Approval, BoxFuture, ExecClass};
use crate::tools::args::{GuestOperation, HistoryRange, ShutdownFallback};

/// A shutdown's patience: how long, then what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShutdownTimeout {
    pub timeout: Duration,
    pub on_timeout: ShutdownFallback,
}

/// One call a guest API answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiCall {
    /// Start, stop, shutdown or reboot a VM or LXC; the task is polled to its
    /// exit status and the guest's `status/current` read back.
    Power {
        operation: GuestOperation,
        /// Set for shutdowns.
        shutdown: Option<ShutdownTimeout>,
    },
    ListSnapshots,
    CreateSnapshot {
        name: String,
        description: Option<String>,
    },
    Rollback {
        name: String,
    },
    /// The snapshot taken before an approved change, named after the
    /// approval (`warden-<time>-<approval>`) and waited for.
    SnapshotBeforeChange {
        approval_id: String,
    },
    /// History of a node or guest (average and peak), at most `max_points`
    /// points per series; `metric` limits it to one metric.
    History {
        range: HistoryRange,
        metric: Option<String>,
        max_points: u32,
    },
    /// Storage pools with usage (of the target node, else of every node).
    StoragePools,
    /// Each guest's newest backup and its age, and the backup jobs.
    Backups,
    /// A shell command in a VM through its QEMU guest agent (`/bin/sh -c`),
    /// unsandboxed: the executor classified it before it got here.
    VmShell {
        command: String,
        class: ExecClass,
        timeout: Duration,
    },
}

impl ApiCall {
    /// Whether the call can change the guest (the FSM and the audit say so
    /// anyway; this is for implementations that want to know).
    pub fn changes_something(&self) -> bool {
        match self {
            ApiCall::Power { .. }
            | ApiCall::CreateSnapshot { .. }
            | ApiCall::Rollback { .. }
            | ApiCall::SnapshotBeforeChange { .. } => true,
            ApiCall::VmShell { class, .. } => *class == ExecClass::Write,
            ApiCall::ListSnapshots
            | ApiCall::History { .. }
            | ApiCall::StoragePools
            | ApiCall::Backups => false,
        }
    }

    /// Where the call "runs" and what it is, as the node's own command line
    /// would say it (`pct stop 141` on `node:pve1`): shown on approval cards,
    /// written to the audit log, and what a replay transcript's `exec` event
    /// carries (and a scenario's `exec` table matches). Guest calls run on
    /// the guest's node; a VM command runs in the VM; cluster-wide reads
    /// (no target) on `node:cluster`.
    pub fn as_command_line(&self, target: Option<&Resource>) -> (ResourceId, String) {
        let node = target.map_or_else(
            || ResourceId::global(ResourceKind::Node, "cluster"),
            node_of,
        );
        let Some(target) = target else {
            return (node, self.cluster_wide_text());
        };
        let vmid = target.id.uid.as_str();
        let tool = match target.id.kind {
            ResourceKind::Lxc => "pct",
            _ => "qm",
        };
        let guest_path = format!(
            "/nodes/{}/{}/{vmid}",
            node.uid,
            if tool == "pct" { "lxc" } else { "qemu" }
        );
        let text = match self {
            ApiCall::Power {
                operation,
                shutdown,
            } => {
                let mut text = format!("{tool} {} {vmid}", operation_verb(*operation));
                if let Some(shutdown) = shutdown {
                    text.push_str(&format!(" --timeout {}", shutdown.timeout.as_secs()));
                    if shutdown.on_timeout == ShutdownFallback::Stop {
                        text.push_str(" --forceStop 1");
                    }
                }
                text
            }
            ApiCall::ListSnapshots => format!("{tool} listsnapshot {vmid}"),
            ApiCall::CreateSnapshot { name, .. } => format!("{tool} snapshot {vmid} {name}"),
            ApiCall::Rollback { name } => format!("{tool} rollback {vmid} {name}"),
            ApiCall::SnapshotBeforeChange { approval_id } => {
                format!("{tool} snapshot {vmid} warden-<time>-{approval_id}")
            }
            ApiCall::History { range, .. } => {
                let path = match target.id.kind {
                    ResourceKind::Node => format!("/nodes/{}", target.id.uid),
                    _ => guest_path,
                };
                format!(
                    "pvesh get {path}/rrddata --timeframe {} --cf AVERAGE",
                    range.as_str()
                )
            }
            ApiCall::StoragePools => format!("pvesh get /nodes/{}/storage", node.uid),
            ApiCall::Backups => "pvesh get /cluster/backup".to_string(),
            ApiCall::VmShell { command, .. } => {
                return (target.id.clone(), command.clone());
            }
        };
        (node, text)
    }

    fn cluster_wide_text(&self) -> String {
        match self {
            ApiCall::StoragePools => "pvesh get /cluster/resources --type storage".into(),
            ApiCall::Backups => "pvesh get /cluster/backup".into(),
            other => format!("{other:?}"),
        }
    }
}

fn operation_verb(operation: GuestOperation) -> &'static str {
    match operation {
        GuestOperation::Start => "start",
        GuestOperation::Stop => "stop",
        GuestOperation::Shutdown => "shutdown",
        GuestOperation::Reboot => "reboot",
    }
}

/// One admitted call for an API.
#[derive(Debug, Clone, Copy)]
pub struct ApiRequest<'a> {
    /// The node, guest or storage it is about; `None` for cluster-wide
    /// reads (storage pools, backups).
    pub target: Option<&'a Resource>,
    pub call: &'a ApiCall,
    /// The human approval behind a write, when there was one.
    pub approval: Option<&'a Approval>,
    pub cancel: &'a CancelFlag,
}

/// What an API call did. A refusal before anything was sent (a locked
/// guest, a missing privilege) is an error with `blocked: true`; any other
/// error may have changed something and is treated as having reached the
/// target.
pub type ApiResult = Result<Value, ToolError>;

/// Answers calls through an infrastructure API (Proxmox VE in the binary;
/// simulated in replay).
pub trait GuestApi: Send + Sync {
    /// Whether this API answers for `resource` (a node, guest or storage of
    /// a connected cluster), or, for `None`, for cluster-wide reads.
    fn serves(&self, resource: Option<&Resource>) -> bool;

    /// [`GuestApi::serves`] as the fact routing decides from.
    fn service(&self, resource: Option<&Resource>) -> GuestApiService {
        if self.serves(resource) {
            GuestApiService::Serves
        } else {
            GuestApiService::NotServed
        }
    }

    fn call<'a>(&'a self, request: ApiRequest<'a>) -> BoxFuture<'a, ApiResult>;

    /// What is known of whether the guest's storage can take a snapshot
    /// (PVE's `feature?feature=snapshot`), without waiting: approval cards
    /// promise no undo PVE would refuse.
    fn snapshot_support(&self, _guest: &Resource) -> SnapshotSupport {
        SnapshotSupport::Unknown
    }
}

/// Whether a guest's disks can be snapshotted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotSupport {
    Supported,
    /// PVE says no (a disk on storage without snapshots, raw on a directory).
    Unsupported {
        reason: String,
    },
    /// Not checked yet: it is, before the change runs.
    Unknown,
}

/// No API connected: everything goes through commands on hosts.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoGuestApi;

impl GuestApi for NoGuestApi {
    fn serves(&self, _resource: Option<&Resource>) -> bool {
        false
    }

    fn call<'a>(&'a self, request: ApiRequest<'a>) -> BoxFuture<'a, ApiResult> {
        let what = request
            .target
            .map_or_else(|| "the cluster".to_string(), |t| t.id.to_string());
        Box::pin(std::future::ready(Err(ToolError::blocked(
            warden_protocol::ErrorCode::Unavailable,
            format!("no Proxmox API is connected for {what}"),
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guest(id: &str) -> Resource {
        let id: ResourceId = id.parse().unwrap();
        let mut r = Resource::new(id.clone(), "g");
        r.parent = id.host().map(|h| ResourceId::global(ResourceKind::Node, h));
        r
    }

    #[test]
    fn command_lines_name_the_node_and_the_vmid() {
        let lxc = guest("lxc:pve1:141");
        let vm = guest("vm:pve2:101");
        let node = Resource::new("node:pve1".parse().unwrap(), "pve1");
        let power = |operation, shutdown| ApiCall::Power {
            operation,
            shutdown,
        };
        let cases: Vec<(ApiCall, &Resource, &str, &str)> = vec![
            (
                power(GuestOperation::Stop, None),
                &lxc,
                "node:pve1",
                "pct stop 141",
            ),
            (
                power(GuestOperation::Start, None),
                &vm,
                "node:pve2",
                "qm start 101",
            ),
            (
                power(
                    GuestOperation::Shutdown,
                    Some(ShutdownTimeout {
                        timeout: Duration::from_secs(60),
                        on_timeout: ShutdownFallback::Stop,
                    }),
                ),
                &vm,
                "node:pve2",
                "qm shutdown 101 --timeout 60 --forceStop 1",
            ),
            (
                ApiCall::ListSnapshots,
                &lxc,
                "node:pve1",
                "pct listsnapshot 141",
            ),
            (
                ApiCall::Rollback {
                    name: "before".into(),
                },
                &vm,
                "node:pve2",
                "qm rollback 101 before",
            ),
            (
                ApiCall::History {
                    range: HistoryRange::Week,
                    metric: None,
                    max_points: 120,
                },
                &node,
                "node:pve1",
                "pvesh get /nodes/pve1/rrddata --timeframe week --cf AVERAGE",
            ),
            (
                ApiCall::History {
                    range: HistoryRange::Day,
                    metric: None,
                    max_points: 120,
                },
                &lxc,
                "node:pve1",
                "pvesh get /nodes/pve1/lxc/141/rrddata --timeframe day --cf AVERAGE",
            ),
            (
                ApiCall::VmShell {
                    command: "uptime".into(),
                    class: ExecClass::Read,
                    timeout: Duration::from_secs(5),
                },
                &vm,
                "vm:pve2:101",
                "uptime",
            ),
        ];
        for (call, target, host, text) in cases {
            let (got_host, got_text) = call.as_command_line(Some(target));
            assert_eq!(
                (got_host.to_string().as_str(), got_text.as_str()),
                (host, text),
                "{call:?}"
            );
        }
        let (host, text) = ApiCall::Backups.as_command_line(None);
        assert_eq!(host.to_string(), "node:cluster");
        assert_eq!(text, "pvesh get /cluster/backup");
    }

    #[test]
    fn writes_are_the_calls_that_change_something() {
        assert!(
            ApiCall::Power {
                operation: GuestOperation::Reboot,
                shutdown: None
            }
            .changes_something()
        );
        assert!(!ApiCall::ListSnapshots.changes_something());
        assert!(!ApiCall::Backups.changes_something());
    }
}
