//! A fixed inventory and simulated hosts, for replay scenarios and tests:
//! the hosts answer from a table (first match wins) instead of a machine,
//! and remember every command that reached them. A simulated guest API
//! answers Proxmox-backed calls from the same table.

use std::sync::{Arc, Mutex};

use warden_protocol::routing::{Children, Machines, RouteFacts, ThisMachine, machine_of};
use warden_protocol::{Resource, ResourceId};

use crate::ports::{
    BoxFuture, ExecOutput, ExecRequest, HostBackend, HostError, Inventory, InventorySnapshot,
};

mod guest_api;

pub use guest_api::SimulatedGuestApi;

/// An inventory that is exactly the resources it was given.
#[derive(Debug, Clone, Default)]
pub struct StaticInventory {
    snapshot: Arc<InventorySnapshot>,
}

impl StaticInventory {
    pub fn new(resources: Vec<Resource>) -> Self {
        StaticInventory {
            snapshot: Arc::new(InventorySnapshot::new(resources)),
        }
    }

    /// An inventory that always answers with `snapshot`.
    pub fn from_snapshot(snapshot: Arc<InventorySnapshot>) -> Self {
        StaticInventory { snapshot }
    }
}

impl Inventory for StaticInventory {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        Arc::clone(&self.snapshot)
    }
}

/// One rule of the answer table: a pattern on the command (a substring, or a
/// regular expression when the caller compiles one) and the answer.
pub struct Answer {
    /// Only for this canonical target; `None` matches any.
    pub target: Option<ResourceId>,
    pub matches: Box<dyn Fn(&str) -> bool + Send + Sync>,
    pub output: ExecOutput,
}

/// Hosts that answer from a table.
#[derive(Default)]
pub struct SimulatedHosts {
    answers: Vec<Answer>,
    received: Mutex<Vec<(String, String)>>,
}

impl SimulatedHosts {
    pub fn new(answers: Vec<Answer>) -> Self {
        SimulatedHosts {
            answers,
            received: Mutex::new(Vec::new()),
        }
    }

    /// Every (target, command) that reached a host, in order.
    pub fn received(&self) -> Vec<(String, String)> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl SimulatedHosts {
    /// The table's answer for `command` on `target` (recorded as received).
    fn answer(&self, target: &ResourceId, command: &str) -> ExecOutput {
        if let Ok(mut received) = self.received.lock() {
            received.push((target.to_string(), command.to_string()));
        }
        let answer = self
            .answers
            .iter()
            .find(|a| a.target.as_ref().is_none_or(|t| t == target) && (a.matches)(command));
        answer.map_or_else(
            || ExecOutput {
                stdout: String::new(),
                stderr: String::new(),
                exit_code: 0,
                truncated: false,
            },
            |a| a.output.clone(),
        )
    }
}

/// Facts under which every shell command is run here, as simulated hosts
/// answer every target: this machine answers for every machine (guests
/// included) and enters every container. What has no shell (storage,
/// Kubernetes) stays unreachable.
pub fn reaching_everything() -> RouteFacts {
    RouteFacts::only(ThisMachine {
        hosts: Machines::All,
        docker: Children::Any,
        lxc: Children::Any,
    })
}

/// Facts under which a command for `target` runs here when it is for a
/// machine or a container (this machine is `target`'s machine), but a VM
/// has no agent of its own: hosts with no agent inside any VM.
pub fn reaching_machines(target: &Resource) -> RouteFacts {
    let hosts = machine_of(&target.id).map(str::to_string).into_iter();
    RouteFacts::only(ThisMachine {
        hosts: Machines::Named(hosts.collect()),
        docker: Children::Any,
        lxc: Children::Any,
    })
}

impl HostBackend for SimulatedHosts {
    fn route_facts<'a>(&'a self, _target: &'a Resource) -> BoxFuture<'a, RouteFacts> {
        Box::pin(std::future::ready(reaching_everything()))
    }

    fn exec<'a>(
        &'a self,
        request: ExecRequest<'a>,
    ) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        let output = self.answer(&request.target.id, request.command);
        Box::pin(std::future::ready(Ok(output)))
    }
}
