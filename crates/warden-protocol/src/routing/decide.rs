//! The decision itself (the table in the [module docs](super)).

use super::answer::{ApiRoute, ApiVia, Hop, Route, Runner, ShellRoute, Unreachable};
use super::facts::{AgentFacts, CallKind, Children, Facts, GuestApiService, Machines, Presence};
use crate::{Resource, ResourceId, ResourceKind};

/// Where and how `call` for `target` runs. `None` as the target is a
/// cluster-wide API action (storage pools, backups of every node).
pub fn route(target: Option<&Resource>, call: CallKind, facts: &Facts<'_>) -> Route {
    match (call, target) {
        (CallKind::ApiAction, target) => route_api_action(target, facts.guest_api),
        (CallKind::Shell, None) => Route::Unreachable(Unreachable::NoTarget),
        (CallKind::Shell, Some(target)) => shell_route(target, facts),
    }
}

/// [`route`] for an API action, which needs no shell backend: the API
/// that serves the target, or [`Unreachable::NoGuestApi`].
pub fn route_api_action(target: Option<&Resource>, guest_api: GuestApiService) -> Route {
    match guest_api {
        GuestApiService::Serves => Route::GuestApi(ApiRoute {
            node: target.map(node_of),
            via: ApiVia::ProxmoxApi,
        }),
        GuestApiService::NotServed => Route::Unreachable(Unreachable::NoGuestApi {
            id: target.map(|t| t.id.clone()),
        }),
    }
}

fn shell_route(target: &Resource, facts: &Facts<'_>) -> Route {
    let id = &target.id;
    let backends = facts.backends;
    let unreachable = Route::Unreachable;
    let Some(machine) = machine_of(id) else {
        return unreachable(Unreachable::NoShell { id: id.clone() });
    };
    // A guest's own agent (named like the guest) beats everything below.
    if matches!(id.kind, ResourceKind::Lxc | ResourceKind::Vm) {
        let own = backends.agents.iter().find(|a| {
            a.presence == Presence::Connected
                && a.name != machine
                && target.is_called(&a.name)
                && !backends.own_hosts.contains(&a.name)
        });
        if let Some(agent) = own {
            let on = ResourceId::global(ResourceKind::Host, agent.name.as_str());
            return through_agent(agent, on, Hop::HostShell);
        }
    }
    let Some(hop) = hop_into(id) else {
        return unreachable(Unreachable::InvalidId { id: id.clone() });
    };
    // This machine's own inventory comes first: an agent named like one
    // of its hosts is never used.
    if backends.own_hosts.contains(machine) {
        if backends.this_machine.is(machine) {
            return this_machine_route(target, machine, hop, facts);
        }
        return unreachable(Unreachable::NotRunHere {
            machine: machine.to_string(),
            this_machine: backends.this_machine.names(),
        });
    }
    if let Some(agent) = backends.agent_named(machine) {
        if id.kind == ResourceKind::Vm {
            return vm_without_agent(target, machine, facts.guest_api);
        }
        if agent.presence == Presence::Disconnected {
            return unreachable(Unreachable::AgentDisconnected {
                machine: machine.to_string(),
            });
        }
        // The agent is told the container itself (it enters it again by
        // its own facts); a node or Docker host is its `host:` id.
        let on = match hop {
            Hop::HostShell => ResourceId::global(ResourceKind::Host, machine),
            Hop::DockerExec { .. } | Hop::PctExec { .. } => id.clone(),
        };
        return through_agent(agent, on, hop);
    }
    if backends.this_machine.is(machine) {
        return this_machine_route(target, machine, hop, facts);
    }
    if id.kind == ResourceKind::Vm {
        return vm_without_agent(target, machine, facts.guest_api);
    }
    unreachable(Unreachable::NoAgent {
        id: id.clone(),
        machine: machine.to_string(),
        this_machine: backends.this_machine.names(),
    })
}

/// A command this machine runs: in its shell, or entering its container.
fn this_machine_route(target: &Resource, machine: &str, hop: Hop, facts: &Facts<'_>) -> Route {
    let id = &target.id;
    let backends = facts.backends;
    let here = |hop| {
        Route::Shell(ShellRoute {
            runner: Runner::ThisMachine,
            hop,
        })
    };
    let children = match id.kind {
        ResourceKind::DockerContainer => &backends.this_machine.docker,
        ResourceKind::Lxc => &backends.this_machine.lxc,
        // Only a simulated machine answers for a VM as a whole.
        ResourceKind::Vm => {
            return match backends.this_machine.hosts {
                Machines::All => here(Hop::HostShell),
                Machines::Named(_) => vm_without_agent(target, machine, facts.guest_api),
            };
        }
        ResourceKind::Host
        | ResourceKind::Node
        | ResourceKind::DockerHost
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => return here(hop),
    };
    match children {
        Children::Nothing => Route::Unreachable(Unreachable::NoContainerAccess {
            id: id.clone(),
            machine: machine.to_string(),
        }),
        children if children.contains(id) => here(hop),
        _ if backends.agents.iter().any(|a| a.name == machine) => {
            Route::Unreachable(Unreachable::ShadowedAgent { id: id.clone() })
        }
        _ => Route::Unreachable(Unreachable::NotReported {
            id: id.clone(),
            machine: machine.to_string(),
        }),
    }
}

/// A VM no agent of its own serves: its QEMU guest agent through the API
/// of its cluster, else nothing (a node's agent cannot enter a VM).
fn vm_without_agent(target: &Resource, node: &str, guest_api: GuestApiService) -> Route {
    match guest_api {
        GuestApiService::Serves => Route::GuestApi(ApiRoute {
            node: Some(node_of(target)),
            via: ApiVia::QemuGuestAgent,
        }),
        GuestApiService::NotServed => Route::Unreachable(Unreachable::VmWithoutAgent {
            id: target.id.clone(),
            name: target.name.clone(),
            node: node.to_string(),
        }),
    }
}

fn through_agent(agent: &AgentFacts, on: ResourceId, hop: Hop) -> Route {
    Route::Shell(ShellRoute {
        runner: Runner::Agent {
            agent_id: agent.id.clone(),
            agent_name: agent.name.clone(),
            on,
        },
        hop,
    })
}

/// The hop from its machine's shell into `id`; `None` when its uid could
/// be read as an option by `docker` or `pct`.
fn hop_into(id: &ResourceId) -> Option<Hop> {
    match id.kind {
        ResourceKind::DockerContainer => is_container_ref(&id.uid).then(|| Hop::DockerExec {
            container: id.uid.clone(),
        }),
        ResourceKind::Lxc => is_vmid(&id.uid).then(|| Hop::PctExec {
            vmid: id.uid.clone(),
        }),
        ResourceKind::Host
        | ResourceKind::Node
        | ResourceKind::DockerHost
        | ResourceKind::Vm
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => Some(Hop::HostShell),
    }
}

/// The machine a resource's shell commands run on, from its canonical id:
/// the uid of a host, node or Docker host; the host part of a container or
/// guest. `None` for what has no shell (storage, Kubernetes).
pub fn machine_of(id: &ResourceId) -> Option<&str> {
    match id.kind {
        ResourceKind::Host | ResourceKind::Node | ResourceKind::DockerHost => Some(&id.uid),
        ResourceKind::Vm | ResourceKind::Lxc | ResourceKind::DockerContainer => id.host(),
        ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => None,
    }
}

/// The Proxmox node a resource lives on: itself for a node, its parent
/// when that is a node, else the host part of its id.
pub fn node_of(resource: &Resource) -> ResourceId {
    if resource.id.kind == ResourceKind::Node {
        return resource.id.clone();
    }
    match (&resource.parent, resource.id.host()) {
        (Some(parent), _) if parent.kind == ResourceKind::Node => parent.clone(),
        (_, Some(host)) => ResourceId::global(ResourceKind::Node, host),
        (Some(parent), None) => parent.clone(),
        (None, None) => resource.id.clone(),
    }
}

/// A Docker container id or name: letters, digits, `_`, `.`, `-`, not
/// starting with `-` (which `docker exec` would read as an option).
fn is_container_ref(uid: &str) -> bool {
    uid.len() <= 128
        && uid
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && uid
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

fn is_vmid(uid: &str) -> bool {
    !uid.is_empty() && uid.len() <= 10 && uid.bytes().all(|b| b.is_ascii_digit())
}
