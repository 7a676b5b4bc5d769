//! A Proxmox world for whole turns: a cluster's inventory (a node, two
//! VMs, an LXC held by a backup lock, and a plain host), the simulated
//! guest API answering from the hosts' table, and the inventory refreshed
//! after a change as the real connector refreshes it.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use warden_llm::ScriptedProvider;
use warden_protocol::{ControlLevel, Resource, ResourceId};

use super::{Outcome, World, resource};
use crate::agent::Decision;
use crate::executor::snapshot_first::SnapshotPolicy;
use crate::ports::{
    ApiCall, ApiRequest, ApiResult, BoxFuture, GuestApi, Inventory, InventorySnapshot,
};
use crate::simulated::{Answer, SimulatedGuestApi, SimulatedHosts};

/// An inventory whose statuses change, as a refreshed one does.
pub struct LiveInventory {
    snapshot: Mutex<Arc<InventorySnapshot>>,
}

impl LiveInventory {
    pub fn new(resources: Vec<Resource>) -> Self {
        LiveInventory {
            snapshot: Mutex::new(Arc::new(InventorySnapshot::new(resources))),
        }
    }

    fn set_status(&self, id: &ResourceId, status: &str) {
        let mut snapshot = self.snapshot.lock().unwrap();
        let resources: Vec<Resource> = snapshot
            .all()
            .iter()
            .cloned()
            .map(|mut r| {
                if &r.id == id {
                    r.status = Some(status.to_string());
                }
                r
            })
            .collect();
        *snapshot = Arc::new(InventorySnapshot::new(resources));
    }
}

impl Inventory for LiveInventory {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        Arc::clone(&self.snapshot.lock().unwrap())
    }
}

/// The simulated API, refreshing the inventory after power changes and
/// rollbacks (a rollback without RAM leaves a guest stopped) when asked to.
struct RefreshingApi<'a> {
    api: SimulatedGuestApi<'a>,
    inventory: &'a LiveInventory,
    refresh: bool,
}

impl GuestApi for RefreshingApi<'_> {
    fn serves(&self, resource: Option<&Resource>) -> bool {
        self.api.serves(resource)
    }

    fn snapshot_support(&self, guest: &Resource) -> crate::ports::SnapshotSupport {
        self.api.snapshot_support(guest)
    }

    fn call<'a>(&'a self, request: ApiRequest<'a>) -> BoxFuture<'a, ApiResult> {
        Box::pin(async move {
            let result = self.api.call(request).await;
            let after = match (&result, request.call) {
                (Ok(data), ApiCall::Power { .. }) => data["status_after"].as_str(),
                (Ok(_), ApiCall::Rollback { .. }) => Some("stopped"),
                _ => None,
            };
            if let (true, Some(status), Some(target)) = (self.refresh, after, request.target) {
                self.inventory.set_status(&target.id, status);
            }
            result
        })
    }
}

fn guest(id: &str, name: &str, status: &str, aliases: &[&str], attributes: Value) -> Resource {
    let mut r = resource(id, name, Some("node:pve1"), attributes);
    r.status = Some(status.into());
    r.aliases = aliases.iter().map(|a| a.to_string()).collect();
    r
}

pub fn resources() -> Vec<Resource> {
    vec![
        resource("host:ops", "ops", None, json!({"systemd": true})),
        resource("node:pve1", "pve1", None, json!({"cluster": "lab"})),
        guest(
            "vm:pve1:101",
            "web",
            "running",
            &["101"],
            json!({"cluster": "lab", "vmid": 101, "node": "pve1", "tags": ["prod", "web"], "ha_state": "started"}),
        ),
        guest(
            "vm:pve1:102",
            "db",
            "stopped",
            &["102"],
            json!({"cluster": "lab", "vmid": 102, "node": "pve1"}),
        ),
        guest(
            "lxc:pve1:141",
            "homepage-docker",
            "running",
            &["141", "homepage"],
            json!({"cluster": "lab", "vmid": 141, "node": "pve1", "lock": "backup"}),
        ),
    ]
}

/// How a turn in the Proxmox world goes.
pub struct Pve {
    pub level: ControlLevel,
    pub decision: Decision,
    /// Whether the inventory shows a change afterwards.
    pub refresh: bool,
    pub model: Option<ScriptedProvider>,
    pub snapshots: SnapshotPolicy,
}

impl Default for Pve {
    fn default() -> Self {
        Pve {
            level: ControlLevel::Controlled,
            decision: Decision::Approve,
            refresh: true,
            model: None,
            snapshots: SnapshotPolicy::default(),
        }
    }
}

impl Pve {
    pub fn ask(self, message: &str, answers: Vec<Answer>) -> Outcome {
        let inventory = LiveInventory::new(resources());
        let hosts = SimulatedHosts::new(answers);
        let api = RefreshingApi {
            api: SimulatedGuestApi::new(&hosts),
            inventory: &inventory,
            refresh: self.refresh,
        };
        let world = World {
            inventory: &inventory,
            hosts: &hosts,
            guest_api: &api,
            snapshots: self.snapshots,
        };
        world.turn(message, self.level, self.decision, self.model)
    }
}

/// One turn with an approver who approves.
pub fn approved(message: &str, answers: Vec<Answer>) -> Outcome {
    Pve::default().ask(message, answers)
}

/// One read-only turn.
pub fn read(message: &str, answers: Vec<Answer>) -> Outcome {
    Pve {
        level: ControlLevel::ReadOnly,
        decision: Decision::Pending,
        ..Pve::default()
    }
    .ask(message, answers)
}

/// A node's command line answered with `stdout`, `stderr` and `exit_code`.
pub fn task(pattern: &'static str, stdout: &str, stderr: &str, exit_code: i32) -> Answer {
    let mut answer = super::answer(pattern, stdout, exit_code);
    answer.output.stderr = stderr.into();
    answer
}
