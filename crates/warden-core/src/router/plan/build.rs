//! A recognised intent, resolved against the inventory into a plan: which
//! resource, which host, which tool calls in which order. The plan advances
//! one step per model call of the loop; each step sees the results of the
//! calls the previous step proposed.

use serde_json::{Value, json};
use warden_protocol::{Resource, ResourceKind};

use super::resolve::{self, NameProblem, Target};
use crate::executor::host_metrics::Metric;
use crate::ports::InventorySnapshot;
use crate::router::intent::{
    ControlOp, Endpoint, Fact, Intent, ListWhat, LogsRequest, Subject, Window,
};
use crate::router::recognise::since::{Since, TimeUnit};

/// One tool call the router proposes.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool: &'static str,
    pub arguments: Value,
}

impl Call {
    pub fn new(tool: &'static str, arguments: Value) -> Self {
        Call { tool, arguments }
    }
}

/// What the router does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Calls(Vec<Call>),
    Answer(String),
}

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

/// The window of "errors" when the request names none.
const DEFAULT_ERRORS_WINDOW: Since = Since::Ago {
    amount: 1,
    unit: TimeUnit::Day,
};

/// Resolve an intent's names. Problems become a plan that says so.
pub fn plan(inventory: &InventorySnapshot, intent: &Intent) -> Plan {
    build(inventory, intent).unwrap_or_else(|problem| Plan::Say(refusal(intent, &problem)))
}

/// What to say when a name did not resolve.
pub fn refusal(intent: &Intent, problem: &NameProblem) -> String {
    match intent {
        Intent::Each(_) if intent.writes() => format!("{} Nothing was done.", problem.describe()),
        _ => problem.describe(),
    }
}

/// Resolve an intent's names, or the first name that did not resolve.
pub fn build(inventory: &InventorySnapshot, intent: &Intent) -> Result<Plan, NameProblem> {
    Ok(match intent {
        Intent::Metric { metric, on } => Plan::Metric {
            host: resolve::host(inventory, on.as_deref())?,
            metric: *metric,
        },
        Intent::Status(subject) => match resolve::described(inventory, subject)? {
            Target::Service { host, name } => Plan::ServiceStatus {
                host,
                service: name,
            },
            Target::Resource(r) => match r.id.kind {
                ResourceKind::DockerContainer => Plan::ContainerStatus { container: r },
                ResourceKind::Host | ResourceKind::Node | ResourceKind::DockerHost => {
                    Plan::HostStatus { host: r }
                }
                ResourceKind::Vm
                | ResourceKind::Lxc
                | ResourceKind::K8sCluster
                | ResourceKind::K8sNode
                | ResourceKind::K8sPod
                | ResourceKind::Storage => Plan::GuestStatus { guest: r },
            },
        },
        Intent::Logs(request) => logs(inventory, request)?,
        Intent::List { what, on } => match what {
            ListWhat::Services => Plan::ListServices {
                host: resolve::host(inventory, on.as_deref())?,
            },
            // Where Docker is unknown and Proxmox is, containers are LXCs.
            ListWhat::Containers if on.is_none() && only_lxc_containers(inventory) => {
                Plan::ListResources {
                    kinds: vec![ResourceKind::Lxc],
                }
            }
            ListWhat::Containers => Plan::ListContainers {
                host: resolve::host(inventory, on.as_deref())?,
            },
            ListWhat::Guests => Plan::ListResources {
                kinds: vec![ResourceKind::Vm, ResourceKind::Lxc],
            },
            ListWhat::Resources(kind) => Plan::ListResources {
                kinds: kind.iter().copied().collect(),
            },
        },
        Intent::Control { operation, subject } => {
            control(*operation, resolve::described(inventory, subject)?)
        }
        Intent::Fact { fact, on } => Plan::HostFact {
            host: resolve::host(inventory, on.as_deref())?,
            fact: *fact,
        },
        Intent::Errors { since, on } => Plan::Errors {
            host: resolve::host(inventory, on.as_deref())?,
            since: since.unwrap_or(DEFAULT_ERRORS_WINDOW),
        },
        Intent::Certificate { endpoint, on } => Plan::Certificate {
            runner: resolve::host(inventory, on.as_deref())?,
            endpoint: endpoint.clone(),
        },
        Intent::WhyExit(subject) => match resolve::described(inventory, subject)? {
            Target::Service { host, name } => Plan::ServiceExit {
                host,
                service: name,
            },
            Target::Resource(r) if r.id.kind == ResourceKind::DockerContainer => {
                Plan::ContainerExit { container: r }
            }
            Target::Resource(r) => Plan::Say(format!(
                "I can tell why a container or a systemd service exited; {} is a {}. Ask for its status, or \"failed units on {}\".",
                r.name,
                r.id.kind.label(),
                r.name
            )),
        },
        Intent::History {
            metric,
            subject,
            window,
        } => super::guests::history(inventory, *metric, subject.as_ref(), window)?,
        Intent::Snapshots(subject) => Plan::ListSnapshots {
            guest: guest(inventory, subject)?,
        },
        Intent::TakeSnapshot { subject, name } => {
            super::guests::take_snapshot(guest(inventory, subject)?, name.as_deref())
        }
        Intent::Rollback { subject, snapshot } => Plan::Rollback {
            guest: guest(inventory, subject)?,
            snapshot: snapshot.clone(),
        },
        Intent::Each(parts) => {
            let mut plans = Vec::with_capacity(parts.len());
            for part in parts {
                let plan = match build(inventory, part) {
                    Ok(plan) => plan,
                    Err(problem) if intent.writes() => return Err(problem),
                    Err(problem) => Plan::Say(problem.describe()),
                };
                // A change to several targets happens for all or for none.
                if let (Plan::Say(text), true) = (&plan, intent.writes()) {
                    return Ok(Plan::Say(format!("{text} Nothing was done.")));
                }
                plans.push(plan);
            }
            Plan::Each(plans)
        }
        Intent::Remember { note } => Plan::Remember {
            host: resolve::default_host(inventory)?,
            note: note.clone(),
        },
        Intent::Recall { query } => Plan::Recall {
            query: query.clone(),
        },
        Intent::Explain { command } => Plan::Say(crate::router::explain::policy_answer(command)),
        Intent::Run { command } => {
            let verdict = warden_policy::classify(command);
            if verdict.read_allowed() || verdict.interactive.is_some() {
                Plan::RunRead {
                    host: resolve::default_host(inventory)?,
                    command: command.clone(),
                }
            } else {
                Plan::Say(format!(
                    "`{command}` is not read-only ({}), and without a language model I only run read-only commands directly. For changes, ask for a restart/start/stop of a service or container (those ask for your approval), or configure a model.",
                    verdict.reason
                ))
            }
        }
        Intent::Help => Plan::Say(crate::router::explain::HELP.to_string()),
    })
}

fn logs(inventory: &InventorySnapshot, request: &LogsRequest) -> Result<Plan, NameProblem> {
    let Some(subject) = &request.subject else {
        return Ok(Plan::SystemLogs {
            host: resolve::host(inventory, request.on.as_deref())?,
            request: request.clone(),
        });
    };
    Ok(
        match resolve::subject(inventory, subject, request.on.as_deref())? {
            Target::Service { host, name } => Plan::ServiceLogs {
                host,
                service: name,
                request: request.clone(),
            },
            Target::Resource(r) if r.id.kind == ResourceKind::DockerContainer => {
                Plan::ContainerLogs {
                    container: r,
                    request: request.clone(),
                }
            }
            Target::Resource(r) => Plan::SystemLogs {
                host: r,
                request: request.clone(),
            },
        },
    )
}

/// A VM or LXC a snapshot request names.
fn guest(inventory: &InventorySnapshot, subject: &Subject) -> Result<Resource, NameProblem> {
    resolve::guest(inventory, subject, &[ResourceKind::Vm, ResourceKind::Lxc])
}

/// No Docker container or host is known, and an LXC is.
fn only_lxc_containers(inventory: &InventorySnapshot) -> bool {
    let all = inventory.all();
    let docker = all.iter().any(|r| {
        matches!(
            r.id.kind,
            ResourceKind::DockerContainer | ResourceKind::DockerHost
        )
    });
    !docker && all.iter().any(|r| r.id.kind == ResourceKind::Lxc)
}

/// "kill nginx": only guests are stopped without a clean shutdown. `what`
/// is what the name is, when the inventory knows it.
fn only_for_guests(operation: ControlOp, name: &str, what: Option<&str>) -> Plan {
    let known = match what {
        Some(what) => format!("{name} is a {what}"),
        None => format!("I know no VM or LXC called {name}"),
    };
    Plan::Say(format!(
        "A {} is for VMs and LXC containers, and {known}. To stop a service or a container, say \"stop {name}\"; nothing was done.",
        operation.as_str()
    ))
}

fn control(operation: ControlOp, target: Target) -> Plan {
    let r = match target {
        Target::Service { host, name } => {
            return match operation.for_services() {
                Some(operation) => Plan::ServiceControl {
                    host,
                    service: name,
                    operation,
                },
                None => only_for_guests(operation, &name, None),
            };
        }
        Target::Resource(r) => r,
    };
    match r.id.kind {
        ResourceKind::DockerContainer if operation == ControlOp::Reload => Plan::Say(format!(
            "A container cannot be reloaded; ask to restart {} instead.",
            r.name
        )),
        ResourceKind::DockerContainer => match operation.for_services() {
            Some(operation) => Plan::ContainerControl {
                container: r,
                operation,
            },
            None => only_for_guests(operation, &r.name, Some("Docker container")),
        },
        ResourceKind::Vm | ResourceKind::Lxc if operation == ControlOp::Reload => {
            Plan::Say(format!(
                "A guest cannot be reloaded; ask to restart {} instead.",
                r.name
            ))
        }
        ResourceKind::Vm | ResourceKind::Lxc => Plan::GuestControl {
            guest: r,
            operation,
        },
        ResourceKind::Host
        | ResourceKind::Node
        | ResourceKind::DockerHost
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => Plan::Say(format!(
            "I won't {} {} ({}) from a one-line request: that takes down everything on it. If you mean a service on it, say \"{} <service> on {}\".",
            operation.as_str(),
            r.name,
            r.id.kind.label(),
            operation.as_str(),
            r.name
        )),
    }
}

/// `{"action": …, "target": …}` plus more fields.
pub fn args(action: &str, target: &Resource, more: Value) -> Value {
    let mut value = json!({"action": action, "target": target.id.to_string()});
    if let (Some(object), Value::Object(extra)) = (value.as_object_mut(), more) {
        object.extend(extra);
    }
    value
}
