//! Router tests: recognition tables, planning, answers worded from recorded
//! outputs, and whole turns through the real loop and executor against
//! simulated hosts (`ask`), with or without a scripted model behind it.

use std::time::Duration;

use serde_json::{Value, json};
use warden_llm::{ModelReply, ScriptedProvider};
use warden_protocol::{ControlLevel, Resource};

use super::*;
use crate::agent::{
    Conversation, Decision, FixedApprover, LoopEvent, LoopLimits, TurnContext, run_turn,
};
use crate::executor::snapshot_first::SnapshotPolicy;
use crate::executor::{Executor, Moment, Ports, Session, Settings};
use crate::ports::{ExecOutput, MemoryApprovals, MemoryAudit};
use crate::simulated::{Answer, SimulatedHosts, StaticInventory};

mod aimed;
mod answers;
mod guest_writes;
mod guests;
mod log_windows;
mod model;
mod policy;
mod pve;
mod recognition;
mod recognition_facts;
mod recognition_guests;
mod routes;
mod writes;

pub fn resource(id: &str, name: &str, parent: Option<&str>, attributes: Value) -> Resource {
    Resource {
        id: id.parse().unwrap(),
        name: name.into(),
        aliases: vec![],
        parent: parent.map(|p| p.parse().unwrap()),
        status: Some("running".into()),
        attributes: attributes.as_object().cloned().unwrap_or_default(),
    }
}

/// web1 (systemd; reported nginx and ssh), bare (no systemd), the jellyfin
/// container on web1, and a VM on a Proxmox node.
pub fn inventory() -> StaticInventory {
    StaticInventory::new(vec![
        resource(
            "host:web1",
            "web1",
            None,
            json!({"systemd": true, "log_files": ["/var/log/syslog"], "services": [
                {"name": "nginx", "active": "active", "sub": "running", "description": "web server"},
                {"name": "ssh", "active": "active", "sub": "running"}
            ]}),
        ),
        resource(
            "host:bare",
            "bare",
            None,
            json!({"systemd": false, "log_files": []}),
        ),
        resource(
            "docker_container:web1:abc123",
            "jellyfin",
            Some("host:web1"),
            json!({}),
        ),
        resource(
            "docker_container:web1:def456",
            "redis",
            Some("host:web1"),
            json!({}),
        ),
        resource("node:pve1", "pve1", None, json!({})),
        resource("vm:pve1:101", "media-vm", Some("node:pve1"), json!({})),
    ])
}

/// A host answer for commands containing `pattern`.
pub fn answer(pattern: &'static str, stdout: &str, exit_code: i32) -> Answer {
    Answer {
        target: None,
        matches: Box::new(move |c: &str| c.contains(pattern)),
        output: ExecOutput {
            stdout: stdout.into(),
            stderr: String::new(),
            exit_code,
            truncated: false,
        },
    }
}

pub struct Outcome {
    pub text: String,
    pub events: Vec<LoopEvent>,
    /// (target, command) of every command that reached a host.
    pub commands: Vec<(String, String)>,
    pub route: RouteInfo,
}

impl Outcome {
    /// Tool names in the order they were called.
    pub fn tools(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match e {
                LoopEvent::ToolCall { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// (tool, arguments) of every call, in order.
    pub fn calls(&self) -> Vec<(&str, &Value)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                LoopEvent::ToolCall {
                    name, arguments, ..
                } => Some((name.as_str(), arguments)),
                _ => None,
            })
            .collect()
    }

    pub fn ran(&self, fragment: &str) -> bool {
        self.commands.iter().any(|(_, c)| c.contains(fragment))
    }
}

/// One turn without a model.
pub fn ask(
    message: &str,
    level: ControlLevel,
    decision: Decision,
    answers: Vec<Answer>,
) -> Outcome {
    turn(message, level, decision, answers, None)
}

/// One read-only turn without a model.
pub fn read(message: &str, answers: Vec<Answer>) -> Outcome {
    ask(message, ControlLevel::ReadOnly, Decision::Pending, answers)
}

/// One turn with a scripted model behind the router.
pub fn ask_with_model(message: &str, replies: Vec<ModelReply>, answers: Vec<Answer>) -> Outcome {
    turn(
        message,
        ControlLevel::Controlled,
        Decision::Pending,
        answers,
        Some(ScriptedProvider::new(replies)),
    )
}

fn turn(
    message: &str,
    level: ControlLevel,
    decision: Decision,
    answers: Vec<Answer>,
    model: Option<ScriptedProvider>,
) -> Outcome {
    let inventory = inventory();
    let hosts = SimulatedHosts::new(answers);
    let world = World {
        inventory: &inventory,
        hosts: &hosts,
        guest_api: &crate::ports::NoGuestApi,
        snapshots: SnapshotPolicy::default(),
    };
    world.turn(message, level, decision, model)
}

/// What a turn runs against: an inventory, hosts that answer from a
/// table, and an API for Proxmox calls.
pub struct World<'w> {
    pub inventory: &'w dyn crate::ports::Inventory,
    pub hosts: &'w SimulatedHosts,
    pub guest_api: &'w dyn crate::ports::GuestApi,
    /// When a snapshot of a guest is taken before a change.
    pub snapshots: SnapshotPolicy,
}

impl World<'_> {
    pub fn turn(
        &self,
        message: &str,
        level: ControlLevel,
        decision: Decision,
        model: Option<ScriptedProvider>,
    ) -> Outcome {
        let approvals = MemoryApprovals::default();
        let audit = MemoryAudit::default();
        let notes = crate::ports::MemoryNotes::default();
        let executor = Executor::new(
            Settings {
                control_level: level,
                snapshots: self.snapshots.clone(),
                ..Settings::default()
            },
            Ports {
                inventory: self.inventory,
                hosts: self.hosts,
                approvals: &approvals,
                audit: &audit,
                notes: &notes,
            },
        )
        .with_guest_api(self.guest_api);
        let fallback = model.map(|m| Box::new(m) as Box<dyn warden_llm::Provider + Send>);
        let frozen = crate::simulated::StaticInventory::from_snapshot(self.inventory.snapshot());
        let mut router = Router::new(std::sync::Arc::new(frozen), fallback);
        let mut session = Session::new("s");
        let mut approver = FixedApprover(decision);
        let clock = || Moment {
            session: Duration::ZERO,
            wall_ms: 0,
        };
        let mut events = Vec::new();
        let mut conversation = Conversation::default();
        let result = {
            let mut ctx = TurnContext {
                executor: &executor,
                session: &mut session,
                provider: &mut router,
                approver: &mut approver,
                clock: &clock,
                events: &mut events,
                limits: LoopLimits::default(),
                on_delta: None,
            };
            crate::executor::tests::block_on(run_turn(&mut ctx, &mut conversation, message))
        };
        Outcome {
            text: result.final_text.unwrap_or_default(),
            events,
            commands: self.hosts.received(),
            route: router.last_route().cloned().unwrap(),
        }
    }
}

/// A successful tool result with this stdout (for stepping plans by hand).
pub fn ok_with(stdout: &str) -> Value {
    json!({"ok": true, "data": {"stdout": stdout, "exit_code": 0}})
}

/// Every call of a plan stepped through with `result` as each call's
/// result, until it answers (at most 8 steps).
pub fn calls_of(plan: Plan, result: &Value) -> Vec<Call> {
    let mut progress = Progress::new(plan);
    let mut last: Vec<Value> = Vec::new();
    let mut calls = Vec::new();
    for _ in 0..8 {
        match progress.advance(&last) {
            Step::Calls(step) => {
                last = vec![result.clone(); step.len()];
                calls.extend(step);
            }
            Step::Answer(_) | Step::Decline(_) => break,
        }
    }
    calls
}
