//! The answer routing gives: a typed [`Route`], or why nothing can run the
//! call ([`Unreachable`]).

use std::fmt;

use crate::{ResourceId, ResourceKind};

/// Where and how a call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// A shell runs the command, here or on an agent, after one hop.
    Shell(ShellRoute),
    /// An infrastructure API answers (Proxmox VE).
    GuestApi(ApiRoute),
    Unreachable(Unreachable),
}

/// Who starts the shell command, and the hop it takes from there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellRoute {
    pub runner: Runner,
    pub hop: Hop,
}

/// Who starts the process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runner {
    /// The process that asked (Warden on its own host; an agent on its).
    ThisMachine,
    /// An agent: `agent_id` (named `agent_name`) is sent the command for
    /// `on`, which it routes again with its own facts to the same hop.
    Agent {
        agent_id: String,
        agent_name: String,
        on: ResourceId,
    },
}

/// The hop from the runner's shell to where the command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hop {
    /// The runner's own shell.
    HostShell,
    /// `docker exec CONTAINER` (no `-t`, no `-i`).
    DockerExec { container: String },
    /// `pct exec VMID --`.
    PctExec { vmid: String },
}

/// An API call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiRoute {
    /// The node whose API answers; `None` for cluster-wide calls.
    pub node: Option<ResourceId>,
    pub via: ApiVia,
}

/// Which part of the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiVia {
    /// A shell command inside a VM, through its QEMU guest agent.
    QemuGuestAgent,
    /// The Proxmox VE API itself (power, snapshots, history, storage).
    ProxmoxApi,
}

/// Why nothing can run a call. Each says what would make it reachable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// A shell command with no target.
    NoTarget,
    /// Storage and Kubernetes resources have no shell of their own.
    NoShell { id: ResourceId },
    /// No agent is enrolled for the machine, and it is not this machine.
    NoAgent {
        id: ResourceId,
        machine: String,
        this_machine: Vec<String>,
    },
    /// The machine's agent is enrolled but not connected.
    AgentDisconnected { machine: String },
    /// The machine is in this machine's inventory, but this machine runs
    /// commands only for itself.
    NotRunHere {
        machine: String,
        this_machine: Vec<String>,
    },
    /// A container this machine did not report.
    NotReported { id: ResourceId, machine: String },
    /// Only an agent named like this machine (shadowed by it) reports it.
    ShadowedAgent { id: ResourceId },
    /// This machine cannot enter containers of this kind (`pct exec`).
    NoContainerAccess { id: ResourceId, machine: String },
    /// A VM with no agent of its own and no guest API serving it.
    VmWithoutAgent {
        id: ResourceId,
        name: String,
        node: String,
    },
    /// A container id or VMID that could be read as an option.
    InvalidId { id: ResourceId },
    /// An API action, and no Proxmox API serves the target.
    NoGuestApi { id: Option<ResourceId> },
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::NoTarget => write!(f, "a command needs a target to run on"),
            Unreachable::NoShell { id } => match id.kind {
                ResourceKind::Storage => write!(
                    f,
                    "{id} is a storage pool, which has no shell of its own: run the command on its node"
                ),
                ResourceKind::K8sCluster | ResourceKind::K8sNode | ResourceKind::K8sPod => write!(
                    f,
                    "{id} is a {}: commands do not run in it (use the kubernetes tool)",
                    id.kind.label()
                ),
                ResourceKind::Host
                | ResourceKind::Node
                | ResourceKind::Vm
                | ResourceKind::Lxc
                | ResourceKind::DockerHost
                | ResourceKind::DockerContainer => {
                    write!(f, "{id} has no shell of its own")
                }
            },
            Unreachable::NoAgent {
                id,
                machine,
                this_machine,
            } => {
                write!(f, "no agent is enrolled for {machine} (where {id} runs)")?;
                match this_machine.as_slice() {
                    [] => write!(f, ", and this machine runs no commands itself"),
                    hosts => write!(
                        f,
                        ", and only this machine (host:{}) is reachable without an agent",
                        hosts.join(", host:")
                    ),
                }
            }
            Unreachable::AgentDisconnected { machine } => {
                write!(f, "the agent on {machine} is not connected")
            }
            Unreachable::NotRunHere {
                machine,
                this_machine,
            } => write!(
                f,
                "host:{machine} is in this machine's inventory, but commands run here only for host:{}",
                this_machine.join(", host:")
            ),
            Unreachable::NotReported { id, machine } => {
                write!(f, "{id} is not among the containers {machine} reported")
            }
            Unreachable::ShadowedAgent { id } => write!(
                f,
                "{id} is reported only by an agent named like this machine, and this machine does not know it"
            ),
            Unreachable::NoContainerAccess { id, machine } => write!(
                f,
                "{machine} does not run commands inside its {}s from here; an agent inside {id} or on {machine} could",
                id.kind.label()
            ),
            Unreachable::VmWithoutAgent { id, name, node } => write!(
                f,
                "{id} ({name}) has no agent of its own connected, no Proxmox API serves it, \
                 and the agent on {node} cannot run commands inside a VM"
            ),
            Unreachable::InvalidId { id } => write!(
                f,
                "{id}: `{}` is not a container id or VMID that can be passed on safely",
                id.uid
            ),
            Unreachable::NoGuestApi { id: Some(id) } => {
                write!(f, "no Proxmox API is connected for {id}")
            }
            Unreachable::NoGuestApi { id: None } => {
                write!(f, "no Proxmox API is connected for the cluster")
            }
        }
    }
}

impl std::error::Error for Unreachable {}
