//! [`Plan`]: an intent resolved against the inventory, one variant per
//! route, each with the resources it acts on. The plan advances one step
//! per model call of the loop; each step sees the results of the calls the
//! previous step proposed.

use warden_protocol::{Resource, ResourceKind};

use crate::executor::host_metrics::Metric;
use crate::router::intent::{ControlOp, Endpoint, Fact, LogsRequest, Window};
use crate::router::recognise::since::Since;

/// An intent resolved against the inventory.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    Metric {
        host: Resource,
        metric: Metric,
    },
    HostStatus {
        host: Resource,
    },
    GuestStatus {
        guest: Resource,
    },
    ContainerStatus {
        container: Resource,
    },
    ServiceStatus {
        host: Resource,
        service: String,
    },
    SystemLogs {
        host: Resource,
        request: LogsRequest,
    },
    ServiceLogs {
        host: Resource,
        service: String,
        request: LogsRequest,
    },
    ContainerLogs {
        container: Resource,
        request: LogsRequest,
    },
    ListServices {
        host: Resource,
    },
    ListContainers {
        host: Resource,
    },
    /// Resources of these kinds (every kind when empty).
    ListResources {
        kinds: Vec<ResourceKind>,
    },
    ServiceControl {
        host: Resource,
        service: String,
        operation: ControlOp,
    },
    ContainerControl {
        container: Resource,
        operation: ControlOp,
    },
    GuestControl {
        guest: Resource,
        operation: ControlOp,
    },
    Remember {
        host: Resource,
        note: String,
    },
    Recall {
        query: String,
    },
    RunRead {
        host: Resource,
        command: String,
    },
    HostFact {
        host: Resource,
        fact: Fact,
    },
    Errors {
        host: Resource,
        since: Since,
    },
    Certificate {
        /// The host the check runs from.
        runner: Resource,
        endpoint: Endpoint,
    },
    ContainerExit {
        container: Resource,
    },
    /// A Proxmox node's or guest's history: one `metrics` call per metric
    /// name (none: every metric in one call).
    History {
        target: Resource,
        metrics: Vec<&'static str>,
        window: Window,
    },
    ListSnapshots {
        guest: Resource,
    },
    TakeSnapshot {
        guest: Resource,
        name: String,
    },
    Rollback {
        guest: Resource,
        snapshot: String,
    },
    ServiceExit {
        host: Resource,
        service: String,
    },
    /// One plan per target ("stop A and B"), carried out in order.
    Each(Vec<Plan>),
    /// Answered without any tool call (help, policy explanations, names
    /// that resolve to nothing, refusals).
    Say(String),
}

impl Plan {
    /// The canonical target(s), for `--verbose` and `warden explain`.
    pub fn target(&self) -> Option<String> {
        let resource = match self {
            Plan::Metric { host, .. }
            | Plan::HostStatus { host }
            | Plan::ServiceStatus { host, .. }
            | Plan::SystemLogs { host, .. }
            | Plan::ServiceLogs { host, .. }
            | Plan::ListServices { host }
            | Plan::ListContainers { host }
            | Plan::ServiceControl { host, .. }
            | Plan::Remember { host, .. }
            | Plan::RunRead { host, .. }
            | Plan::HostFact { host, .. }
            | Plan::Errors { host, .. }
            | Plan::ServiceExit { host, .. }
            | Plan::Certificate { runner: host, .. } => host,
            Plan::GuestStatus { guest }
            | Plan::GuestControl { guest, .. }
            | Plan::ListSnapshots { guest }
            | Plan::TakeSnapshot { guest, .. }
            | Plan::Rollback { guest, .. }
            | Plan::History { target: guest, .. } => guest,
            Plan::ContainerStatus { container }
            | Plan::ContainerLogs { container, .. }
            | Plan::ContainerControl { container, .. }
            | Plan::ContainerExit { container } => container,
            Plan::Each(parts) => {
                let targets: Vec<String> = parts.iter().filter_map(Plan::target).collect();
                return (!targets.is_empty()).then(|| targets.join(", "));
            }
            Plan::ListResources { .. } | Plan::Recall { .. } | Plan::Say(_) => return None,
        };
        Some(resource.id.to_string())
    }

    /// A service this plan acts on or asks about, with its host: with a
    /// model configured, the router handles it only when the host reported
    /// a service by that name.
    pub fn service(&self) -> Option<(&Resource, &str)> {
        match self {
            Plan::ServiceControl { host, service, .. }
            | Plan::ServiceExit { host, service }
            | Plan::ServiceLogs { host, service, .. } => Some((host, service)),
            Plan::Each(parts) => parts.iter().find_map(Plan::service),
            _ => None,
        }
    }

    /// The plan's parts: itself, or the plans of a multi-target request.
    pub fn parts(&self) -> Vec<&Plan> {
        match self {
            Plan::Each(parts) => parts.iter().flat_map(Plan::parts).collect(),
            other => vec![other],
        }
    }
}
