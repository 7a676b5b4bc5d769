//! Which agent runs a command for a resource (DESIGN "Resource model",
//! "Agents"). Pure: the caller gathers the facts.
//!
//! - a resource of this machine (an agent named like one of the server's
//!   own `host:` resources is shadowed: this machine's inventory comes
//!   first, so do its commands) → the server's own host backend;
//! - an LXC or a VM whose own agent is connected (an agent named like the
//!   guest, its hostname) → that agent, on its `host:` id;
//! - a VM without its own agent → unreachable: a node's agent cannot run
//!   commands inside a VM;
//! - `host:X`, `node:X`, `docker_host:X` and anything scoped to host `X`
//!   (`docker_container:X:…`, `lxc:X:…`) → the agent named `X` (for a node
//!   or a Docker host, on its `host:X` id; the agent runs `docker exec` or
//!   `pct exec` itself for the containers it reported);
//! - no agent for that machine → the server's own host backend decides.

use warden_protocol::{Resource, ResourceId, ResourceKind};

/// Whether an agent holds a live connection now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Connected,
    Disconnected,
}

/// What routing knows of one enrolled agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFacts<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub presence: Presence,
}

/// Where a command goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentRoute {
    /// Not an agent's resource: the server's own host backend.
    Local,
    /// Through agent `agent_id` (named `agent_name`), on `target`.
    Agent {
        agent_id: String,
        agent_name: String,
        target: String,
    },
    /// An agent's machine, but nothing can run the command now.
    Unreachable(String),
}

/// The machine a resource id lives on: the uid of a host, node or Docker
/// host; the host part of a scoped id.
pub fn machine_of(id: &ResourceId) -> Option<&str> {
    match id.kind {
        ResourceKind::Host | ResourceKind::Node | ResourceKind::DockerHost => Some(&id.uid),
        ResourceKind::Vm
        | ResourceKind::Lxc
        | ResourceKind::DockerContainer
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => id.host(),
    }
}

/// The route for a command on `target`. `is_local_host(name)` says whether
/// `host:{name}` belongs to the server's own inventory.
pub fn route(
    target: &Resource,
    agents: &[AgentFacts<'_>],
    is_local_host: &dyn Fn(&str) -> bool,
) -> AgentRoute {
    let id = &target.id;
    let machine = machine_of(id);
    let to_agent = |agent: &AgentFacts<'_>, target: String| AgentRoute::Agent {
        agent_id: agent.id.to_string(),
        agent_name: agent.name.to_string(),
        target,
    };
    if matches!(id.kind, ResourceKind::Lxc | ResourceKind::Vm) {
        let own = agents.iter().find(|a| {
            a.presence == Presence::Connected
                && Some(a.name) != machine
                && target.is_called(a.name)
                && !is_local_host(a.name)
        });
        if let Some(agent) = own {
            return to_agent(agent, format!("host:{}", agent.name));
        }
    }
    let Some(machine) = machine else {
        return AgentRoute::Local;
    };
    if is_local_host(machine) {
        return AgentRoute::Local;
    }
    let Some(agent) = agents.iter().find(|a| a.name == machine) else {
        return AgentRoute::Local;
    };
    if id.kind == ResourceKind::Vm {
        return AgentRoute::Unreachable(format!(
            "{id} ({}) has no agent of its own connected, and the agent on {machine} cannot run commands inside a VM",
            target.name
        ));
    }
    if agent.presence == Presence::Disconnected {
        return AgentRoute::Unreachable(format!("the agent on {machine} is not connected"));
    }
    let on = match id.kind {
        ResourceKind::Node | ResourceKind::DockerHost => format!("host:{machine}"),
        ResourceKind::Host
        | ResourceKind::Vm
        | ResourceKind::Lxc
        | ResourceKind::DockerContainer
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => id.to_string(),
    };
    to_agent(agent, on)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(id: &str, name: &str) -> Resource {
        Resource::new(id.parse().unwrap(), name)
    }

    fn agent<'a>(id: &'a str, name: &'a str, presence: Presence) -> AgentFacts<'a> {
        AgentFacts { id, name, presence }
    }

    fn show(route: AgentRoute) -> String {
        match route {
            AgentRoute::Local => "local".into(),
            AgentRoute::Agent {
                agent_id, target, ..
            } => format!("{agent_id} {target}"),
            AgentRoute::Unreachable(why) => format!("unreachable: {why}"),
        }
    }

    #[test]
    fn routes_table() {
        use Presence::*;
        let agents = [
            agent("a-web1", "web1", Connected),
            agent("a-pve1", "pve1", Connected),
            agent("a-media", "media", Connected),
            agent("a-down", "down", Disconnected),
            agent("a-here", "here", Connected),
        ];
        let local = |name: &str| name == "here";
        // (id, name, expected)
        let cases = [
            ("host:web1", "web1", "a-web1 host:web1"),
            ("host:other", "other", "local"),
            ("host:here", "here", "local"),
            ("docker_container:here:abc", "x", "local"),
            ("node:pve1", "pve1", "a-pve1 host:pve1"),
            ("docker_host:web1", "web1", "a-web1 host:web1"),
            (
                "docker_container:web1:abc123",
                "nginx",
                "a-web1 docker_container:web1:abc123",
            ),
            ("lxc:pve1:141", "cache", "a-pve1 lxc:pve1:141"),
            ("lxc:pve1:142", "media", "a-media host:media"),
            ("vm:pve1:101", "media", "a-media host:media"),
            (
                "vm:pve1:102",
                "db",
                "unreachable: vm:pve1:102 (db) has no agent of its own connected, and the agent on pve1 cannot run commands inside a VM",
            ),
            (
                "vm:pve1:103",
                "down",
                "unreachable: vm:pve1:103 (down) has no agent of its own connected, and the agent on pve1 cannot run commands inside a VM",
            ),
            ("lxc:pve1:143", "here", "a-pve1 lxc:pve1:143"),
            (
                "host:down",
                "down",
                "unreachable: the agent on down is not connected",
            ),
            ("lxc:pve9:1", "x", "local"),
            ("k8s_cluster:prod", "prod", "local"),
        ];
        for (id, name, expected) in cases {
            let got = show(route(&resource(id, name), &agents, &local));
            assert_eq!(got, expected, "{id} ({name})");
        }
    }

    #[test]
    fn a_guest_is_matched_by_alias_too() {
        let agents = [agent("a-m", "media", Presence::Connected)];
        let mut guest = resource("lxc:pve1:142", "ct142");
        guest.aliases = vec!["MEDIA".into()];
        assert_eq!(show(route(&guest, &agents, &|_| false)), "a-m host:media");
    }
}
