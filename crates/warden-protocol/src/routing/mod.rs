//! Where and how a call for a resource runs — the one answer, for every
//! resource kind and every backend (DESIGN "Resource model", "Agents").
//!
//! Pure: the caller gathers the [`Facts`] (what this machine runs itself,
//! the enrolled agents and whether each is connected, whether a Proxmox
//! API serves the target), [`route`] decides, and [`invocation`] turns the
//! hop and the command into the process to start. The executor asks here
//! (shell or guest API, which backend), the server's agent hub carries out
//! what it says, and Warden's own host and every agent build their
//! `docker exec`/`pct exec` lines here. Nothing else decides.
//!
//! **A shell command for …** (X, N: the machine in the id; "this machine":
//! the process that asks — Warden on its host, or an agent on its):
//!
//! | target | runs |
//! |---|---|
//! | `host:X`, `node:X`, `docker_host:X` | X is this machine: its own shell. Else the agent named X, in its shell (sent as `host:X`). That agent disconnected, or none: unreachable. |
//! | `docker_container:X:C` | X is this machine: `docker exec C` from here (an agent only into containers it reported). Else the agent named X, which runs `docker exec C` (sent as the container's id). Else unreachable. |
//! | `lxc:N:V` | Its **own agent** (a connected agent named like the guest or one of its aliases), in its shell. Else N is this machine and it enters its LXCs (an agent on a Proxmox node does; Warden's own host does not): `pct exec V --` from here. Else the **agent on node N**, which runs `pct exec V --`. Else unreachable. |
//! | `vm:N:V` | Its own agent, in its shell. Else the **QEMU guest agent through the Proxmox API** of its cluster, when one serves it. Else unreachable: a node's agent cannot run commands inside a VM. |
//! | `storage:N:S`, `k8s_cluster`, `k8s_node`, `k8s_pod` | Unreachable: no shell of their own (storage commands run on the node; Kubernetes through the `kubernetes` tool). |
//!
//! Precedence, where it matters: a guest's own agent first; then this
//! machine's own inventory (an agent named like one of its `host:`
//! resources is never used, and a container only that agent reports runs
//! nowhere); then the machine's agent; then this machine for what no agent
//! serves (simulated hosts, [`Machines::All`], answer for everything
//! there). A container id or VMID that could pass for an option
//! (`--privileged`) is refused everywhere.
//!
//! **An API action** (guest power, snapshots, history, storage pools,
//! backups) goes to the Proxmox API when one serves the target
//! ([`ApiVia::ProxmoxApi`]; [`route_api_action`] when no shell backend is
//! at hand); otherwise it is unreachable as an API call and
//! the executor plans its command-line equivalent (`pct stop 141` on the
//! node), which is routed as a shell command.
//!
//! **How it runs** ([`invocation`]): in the runner's own shell as
//! `SHELL -c COMMAND` (bash on Warden's host, `/bin/sh` on agents); inside a
//! container as `docker exec C /bin/sh -c WRAPPER TAG COMMAND` or `pct exec
//! V -- /bin/sh -c WRAPPER TAG COMMAND`, no terminal, no stdin, with a tag
//! unique to the run ([`ExecTag`], [`EXEC_TAG_VAR`]) by which a cancel or
//! timeout finds and stops the command's processes inside the container.
//!
//! So: a command for an LXC runs in the LXC's own agent if one is
//! connected, else as `pct exec` by its node's agent (or by this machine,
//! when this machine is that node's agent).

mod answer;
mod decide;
mod facts;
mod invocation;
#[cfg(test)]
mod tests;

pub use answer::{ApiRoute, ApiVia, Hop, Route, Runner, ShellRoute, Unreachable};
pub use decide::{machine_of, node_of, route, route_api_action};
pub use facts::{
    AgentFacts, CallKind, Children, Facts, GuestApiService, Machines, Presence, RouteFacts,
    ThisMachine,
};
pub use invocation::{
    CONTAINER_SHELL, CONTAINER_WRAPPER, EXEC_TAG_VAR, ExecTag, Invocation, invocation,
    is_plain_tag, is_wrapper_of,
};
