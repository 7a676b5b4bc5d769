//! What routing decides from: what the asking process runs itself, the
//! enrolled agents, and whether a Proxmox API serves the target. Gathered
//! by the caller (from its inventory, its agent hub, its guest API); plain
//! data here.

use std::collections::BTreeSet;

use crate::{Resource, ResourceId, ResourceKind};

/// Which containers of one kind (Docker, LXC) this machine runs commands in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Children {
    /// Any of them (Warden's own host: it runs `docker exec` on whatever id
    /// the inventory resolved).
    Any,
    /// Only those it reported (an agent: what its own inventory listed).
    Reported(BTreeSet<ResourceId>),
    /// None: this machine has no way into them.
    Nothing,
}

impl Children {
    pub fn contains(&self, id: &ResourceId) -> bool {
        match self {
            Children::Any => true,
            Children::Reported(ids) => ids.contains(id),
            Children::Nothing => false,
        }
    }
}

/// The machines the asking process runs commands for itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Machines {
    /// These, by the uid of their `host:` id (usually one: this machine).
    /// `node:X` and `docker_host:X` are the same machine as `host:X`.
    Named(BTreeSet<String>),
    /// Every machine no agent serves, guests included: simulated hosts
    /// (replay, tests), which answer for anything.
    All,
}

/// The process that asks (Warden itself, or an agent): the machines it
/// runs commands for itself, and the containers it can enter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThisMachine {
    pub hosts: Machines,
    /// Docker containers on it, entered with `docker exec`.
    pub docker: Children,
    /// LXC containers on it (a Proxmox node), entered with `pct exec`.
    pub lxc: Children,
}

impl ThisMachine {
    /// A machine that runs commands for nothing (a server whose local
    /// backend reaches no host).
    pub fn nothing() -> Self {
        ThisMachine {
            hosts: Machines::Named(BTreeSet::new()),
            docker: Children::Nothing,
            lxc: Children::Nothing,
        }
    }

    /// Warden's own host `name`: its shell and `docker exec` into any of
    /// its containers; no `pct exec`.
    pub fn warden_host(name: impl Into<String>) -> Self {
        ThisMachine {
            hosts: Machines::Named(BTreeSet::from([name.into()])),
            docker: Children::Any,
            lxc: Children::Nothing,
        }
    }

    /// An agent on host `host`, from its own inventory: its shell, and the
    /// Docker and LXC containers it reported on that host.
    pub fn reported_by(host: &str, resources: &[Resource]) -> Self {
        let of_kind = |kind: ResourceKind| -> BTreeSet<ResourceId> {
            resources
                .iter()
                .filter(|r| r.id.kind == kind && r.id.host() == Some(host))
                .map(|r| r.id.clone())
                .collect()
        };
        ThisMachine {
            hosts: Machines::Named(BTreeSet::from([host.to_string()])),
            docker: Children::Reported(of_kind(ResourceKind::DockerContainer)),
            lxc: Children::Reported(of_kind(ResourceKind::Lxc)),
        }
    }

    /// Whether it runs commands for `machine`.
    pub fn is(&self, machine: &str) -> bool {
        match &self.hosts {
            Machines::Named(names) => names.contains(machine),
            Machines::All => true,
        }
    }

    /// Its names, for messages (none for [`Machines::All`]).
    pub fn names(&self) -> Vec<String> {
        match &self.hosts {
            Machines::Named(names) => names.iter().cloned().collect(),
            Machines::All => Vec::new(),
        }
    }
}

/// Whether an agent holds a live connection now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Connected,
    Disconnected,
}

/// One enrolled agent, as routing sees it. An agent is named after the
/// machine it runs on (`host:{name}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFacts {
    pub id: String,
    pub name: String,
    pub presence: Presence,
}

/// Everything that can run a shell command, as the asker knows it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteFacts {
    pub this_machine: ThisMachine,
    /// Names of every `host:` resource this machine's own inventory reports
    /// (those of [`RouteFacts::this_machine`] and any other): an agent named
    /// like one is never used, since this machine's report comes first,
    /// and so do its commands.
    pub own_hosts: BTreeSet<String>,
    pub agents: Vec<AgentFacts>,
}

impl RouteFacts {
    /// Only this machine: no agents, nothing else in its inventory (the
    /// CLI without a server; an agent).
    pub fn only(this_machine: ThisMachine) -> Self {
        RouteFacts {
            own_hosts: this_machine.names().into_iter().collect(),
            this_machine,
            agents: Vec::new(),
        }
    }

    /// The agent named `name`, connected or not, unless it is shadowed by
    /// this machine's own inventory.
    pub(super) fn agent_named(&self, name: &str) -> Option<&AgentFacts> {
        if self.own_hosts.contains(name) {
            return None;
        }
        self.agents.iter().find(|a| a.name == name)
    }
}

/// Whether a Proxmox API (of a connected cluster) serves the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuestApiService {
    Serves,
    NotServed,
}

/// What is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// A shell command on the target.
    Shell,
    /// An action an infrastructure API answers (guest power, snapshots,
    /// history, storage pools, backups).
    ApiAction,
}

/// The facts one decision is made from.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub backends: &'a RouteFacts,
    pub guest_api: GuestApiService,
}
