//! A recognised intent, resolved against the inventory into a [`Plan`]:
//! which resource, which host, which route. Changes are planned in
//! `writes`, Proxmox history and snapshot names in `guests`.

use warden_protocol::{Resource, ResourceKind};

use super::resolve::{self, NameProblem, Target};
use super::resolved::Plan;
use crate::ports::InventorySnapshot;
use crate::router::intent::{Intent, ListWhat, LogsRequest, Subject};
use crate::router::recognise::since::{Since, TimeUnit};

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
            super::writes::control(*operation, resolve::described(inventory, subject)?)
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
        Intent::Run { command, on } => {
            let verdict = warden_policy::classify(command);
            let host = match on {
                Some(name) => resolve::exec_target(inventory, name)?,
                None => resolve::default_host(inventory)?,
            };
            if verdict.read_allowed() || verdict.interactive.is_some() {
                Plan::RunRead {
                    host,
                    command: command.clone(),
                }
            } else if verdict.catastrophic {
                Plan::Say(format!(
                    "Refused: `{command}` is catastrophic ({}). Warden does not run it at any control level, whoever asks. Nothing was done.",
                    verdict.reason
                ))
            } else {
                Plan::Say(format!(
                    "`{command}` is not read-only ({}), and without a language model I only run read-only commands directly, so nothing was done. For changes, ask for a restart/start/stop of a service or container (those ask for your approval), or configure a model.",
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
