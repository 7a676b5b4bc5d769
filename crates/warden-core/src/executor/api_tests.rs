//! The executor with a guest API (the simulated one: answers come from the
//! hosts' table, matched on the node's command line): guest power through
//! the API, a failing task, snapshot first, rollback, history, the guest
//! agent for VMs no agent reaches, migrated guests, and that every gate
//! still applies.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::{Value, json};
use warden_protocol::routing::RouteFacts;
use warden_protocol::{ControlLevel, ErrorCode, FsmState, Resource, ResourceId};

use super::snapshot_first::{SnapshotMode, SnapshotPolicy};
use super::tests::block_on;
use super::*;
use crate::ports::ApprovalState;
use crate::ports::{
    BoxFuture, ExecOutput, ExecRequest, HostError, InventorySnapshot, MemoryApprovals, MemoryAudit,
    MemoryNotes,
};
use crate::simulated::{Answer, SimulatedGuestApi, SimulatedHosts, reaching_machines};

fn res(id: &str, name: &str, parent: Option<&str>) -> Resource {
    let mut r = Resource::new(id.parse().unwrap(), name);
    r.parent = parent.map(|p| p.parse().unwrap());
    r.status = Some("running".into());
    r
}

fn answer(pattern: &'static str, exit_code: i32, stdout: &str, stderr: &str) -> Answer {
    Answer {
        target: None,
        matches: Box::new(move |c: &str| c.contains(pattern)),
        output: ExecOutput {
            stdout: stdout.into(),
            stderr: stderr.into(),
            exit_code,
            truncated: false,
        },
    }
}

/// An inventory a test can change (a refresh) and that knows moves.
struct Changing {
    snapshot: RwLock<Arc<InventorySnapshot>>,
    moves: RwLock<Vec<(ResourceId, ResourceId)>>,
}

impl Changing {
    fn new(resources: Vec<Resource>) -> Self {
        Changing {
            snapshot: RwLock::new(Arc::new(InventorySnapshot::new(resources))),
            moves: RwLock::new(Vec::new()),
        }
    }

    fn migrate(&self, resources: Vec<Resource>, from: &str, to: &str) {
        *self.snapshot.write().unwrap() = Arc::new(InventorySnapshot::new(resources));
        self.moves
            .write()
            .unwrap()
            .push((from.parse().unwrap(), to.parse().unwrap()));
    }
}

impl Inventory for Changing {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        Arc::clone(&self.snapshot.read().unwrap())
    }

    fn moved_to(&self, id: &ResourceId) -> Option<ResourceId> {
        self.moves
            .read()
            .unwrap()
            .iter()
            .find(|(from, _)| from == id)
            .map(|(_, to)| to.clone())
    }
}

/// Hosts no agent connects: every VM is unreachable, the rest answers "ok".
struct NoAgentInVms<'h>(&'h SimulatedHosts);

impl HostBackend for NoAgentInVms<'_> {
    fn route_facts<'a>(&'a self, target: &'a Resource) -> BoxFuture<'a, RouteFacts> {
        Box::pin(std::future::ready(reaching_machines(target)))
    }

    fn exec<'a>(
        &'a self,
        request: ExecRequest<'a>,
    ) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        self.0.exec(request)
    }
}

struct World {
    inventory: Changing,
    hosts: SimulatedHosts,
    approvals: MemoryApprovals,
    audit: MemoryAudit,
    notes: MemoryNotes,
}

fn resources() -> Vec<Resource> {
    vec![
        res("node:pve1", "pve1", None),
        res("lxc:pve1:141", "homepage-docker", Some("node:pve1")),
        res("vm:pve1:101", "web", Some("node:pve1")),
        res(
            "docker_container:homepage-docker:abc",
            "homepage",
            Some("lxc:pve1:141"),
        ),
    ]
}

impl World {
    fn new(answers: Vec<Answer>) -> Self {
        World {
            inventory: Changing::new(resources()),
            hosts: SimulatedHosts::new(answers),
            approvals: MemoryApprovals::default(),
            audit: MemoryAudit::default(),
            notes: MemoryNotes::default(),
        }
    }

    fn run(&self, level: ControlLevel, steps: &mut dyn FnMut(&Executor<'_>)) {
        let api = SimulatedGuestApi::new(&self.hosts);
        let hosts = NoAgentInVms(&self.hosts);
        let executor = Executor::new(
            Settings {
                control_level: level,
                snapshots: SnapshotPolicy::default(),
                ..Settings::default()
            },
            Ports {
                inventory: &self.inventory,
                hosts: &hosts,
                approvals: &self.approvals,
                audit: &self.audit,
                notes: &self.notes,
            },
        )
        .with_guest_api(&api);
        steps(&executor);
    }
}

fn at(secs: u64) -> Moment {
    Moment {
        session: Duration::from_secs(secs),
        wall_ms: 1_000_000 + secs * 1000,
    }
}

fn call(tool: &str, arguments: Value) -> ProposedCall {
    ProposedCall {
        tool: tool.into(),
        arguments,
    }
}

fn get(executor: &Executor<'_>, session: &mut Session, target: &str) {
    let found = block_on(executor.execute(
        session,
        &call("query", json!({"action": "get", "target": target})),
        at(1),
    ));
    assert!(found.response.ok, "{:?}", found.response);
}

/// Propose, approve, run: the approval and the run's outcome.
fn approved(
    executor: &Executor<'_>,
    session: &mut Session,
    proposed: &ProposedCall,
) -> (Approval, Outcome) {
    let asked = block_on(executor.execute(session, proposed, at(2)));
    assert_eq!(
        asked.response.error_code(),
        Some(ErrorCode::ApprovalRequired),
        "{:?}",
        asked.response
    );
    let approval = asked.approval.unwrap();
    executor
        .approvals()
        .decide(&approval.id, ApprovalState::Approved, None, at(3).wall_ms)
        .unwrap();
    let ran = block_on(executor.execute_approved(session, &approval.id, at(4)));
    (approval, ran)
}

fn commands(outcome: &Outcome) -> Vec<(String, String)> {
    outcome
        .execs
        .iter()
        .map(|e| (e.target.clone(), e.command.clone()))
        .collect()
}

#[test]
fn guest_power_goes_through_the_api_with_approval_and_verification() {
    let world = World::new(vec![]);
    world.run(ControlLevel::Controlled, &mut |executor| {
        let mut session = Session::new("s");
        get(executor, &mut session, "web");
        let stop = call(
            "control",
            json!({"action": "guest", "target": "web", "operation": "stop"}),
        );
        let (approval, ran) = approved(executor, &mut session, &stop);
        assert_eq!(approval.command, "qm stop 101");
        let offer = approval.snapshot.unwrap();
        assert!(!offer.take, "power changes are not snapshotted by default");
        assert!(
            approval.description.contains("not undoable"),
            "{}",
            approval.description
        );
        assert!(ran.response.ok, "{:?}", ran.response);
        let data = ran.response.data.clone().unwrap();
        assert_eq!(data["status_after"], "stopped");
        assert_eq!(
            commands(&ran),
            vec![("node:pve1".to_string(), "qm stop 101".to_string())]
        );
        assert_eq!(session.fsm.state(), FsmState::Verifying);
        // The verification read.
        let health = block_on(executor.execute(
            &mut session,
            &call("query", json!({"action": "health", "target": "web"})),
            at(5),
        ));
        assert!(health.response.ok);
        assert_eq!(session.fsm.state(), FsmState::Reading);
    });
    let audit = world.audit.records();
    assert!(
        audit
            .iter()
            .any(|r| r.decision == "executed" && r.command == "qm stop 101"),
        "{audit:?}"
    );
}

#[test]
fn a_failing_task_is_reported_with_its_exit_status_and_still_verified() {
    let world = World::new(vec![answer(
        "pct shutdown 141",
        1,
        "",
        "TASK ERROR: timeout waiting on systemd",
    )]);
    world.run(ControlLevel::Autonomous, &mut |executor| {
        let mut session = Session::new("s");
        get(executor, &mut session, "homepage-docker");
        let ran = block_on(executor.execute(
            &mut session,
            &call(
                "control",
                json!({"action": "guest", "target": "lxc:pve1:141", "operation": "shutdown", "timeout_secs": 30}),
            ),
            at(2),
        ));
        let error = ran.response.error.clone().unwrap();
        assert_eq!(error.code, ErrorCode::ExecutionFailed);
        assert!(error.message.contains("timeout waiting on systemd"), "{}", error.message);
        assert_eq!(
            commands(&ran),
            vec![(
                "node:pve1".to_string(),
                "pct shutdown 141 --timeout 30".to_string()
            )]
        );
        assert_eq!(ran.execs[0].exit_code, 1);
        // It reached the cluster: the guest's state must be checked.
        assert_eq!(session.fsm.state(), FsmState::Verifying);
    });
}

#[test]
fn snapshot_first_before_a_file_change_inside_a_guest() {
    let world = World::new(vec![]);
    world.run(ControlLevel::Controlled, &mut |executor| {
        let mut session = Session::new("s");
        get(executor, &mut session, "homepage-docker");
        let edit = call(
            "file_edit",
            json!({"action": "append", "target": "homepage-docker", "path": "/opt/homepage/services.yaml", "content": "- x: {}"}),
        );
        let (approval, ran) = approved(executor, &mut session, &edit);
        let offer = approval.snapshot.clone().unwrap();
        assert!(offer.take);
        assert_eq!(offer.guest, "lxc:pve1:141");
        assert!(approval.description.contains("undoable: a snapshot"), "{}", approval.description);
        assert!(ran.response.ok, "{:?}", ran.response);
        let ran_commands = commands(&ran);
        assert_eq!(ran_commands.len(), 2, "{ran_commands:?}");
        let short: String = approval.id.chars().take(12).collect();
        assert_eq!(
            ran_commands[0],
            (
                "node:pve1".to_string(),
                format!("pct snapshot 141 warden-replay-{short}")
            )
        );
        assert_eq!(ran_commands[1].0, "lxc:pve1:141");
        assert!(ran_commands[1].1.starts_with("cat >> "), "{ran_commands:?}");
        let data = ran.response.data.clone().unwrap();
        assert_eq!(
            data["snapshot_before_change"]["undo"]["arguments"]["name"],
            format!("warden-replay-{short}")
        );
    });
}

#[test]
fn a_failed_snapshot_stops_the_change() {
    let world = World::new(vec![answer(
        "pct snapshot",
        1,
        "",
        "snapshot feature is not available",
    )]);
    world.run(ControlLevel::Controlled, &mut |executor| {
        let mut session = Session::new("s");
        get(executor, &mut session, "homepage-docker");
        let edit = call(
            "control",
            json!({"action": "command", "target": "homepage-docker", "command": "apt-get -y upgrade"}),
        );
        let (_, ran) = approved(executor, &mut session, &edit);
        let error = ran.response.error.clone().unwrap();
        assert_eq!(error.code, ErrorCode::ExecutionFailed);
        assert!(error.message.contains("the change was not made"), "{}", error.message);
        assert_eq!(error.details.extra["change_made"], false);
        assert!(!commands(&ran).iter().any(|(_, c)| c.contains("apt-get")));
        // Nothing changed: no verification is owed.
        assert_eq!(session.fsm.state(), FsmState::Reading);
    });
    assert!(
        !world
            .hosts
            .received()
            .iter()
            .any(|(_, c)| c.contains("apt-get")),
        "the change must not reach the guest"
    );
}

#[test]
fn snapshots_are_listed_created_and_rolled_back_with_approval() {
    let world = World::new(vec![answer(
        "qm listsnapshot 101",
        0,
        r#"[{"name": "before-upgrade"}]"#,
        "",
    )]);
    world.run(ControlLevel::Controlled, &mut |executor| {
        let mut session = Session::new("s");
        let list = call("snapshot", json!({"action": "list", "target": "web"}));
        let listed = block_on(executor.execute(&mut session, &list, at(1)));
        assert!(listed.response.ok, "{:?}", listed.response);
        assert_eq!(
            listed.response.data.unwrap()["snapshots"][0]["name"],
            "before-upgrade"
        );
        get(executor, &mut session, "web");
        let rollback = call(
            "snapshot",
            json!({"action": "rollback", "target": "web", "name": "before-upgrade"}),
        );
        let (approval, ran) = approved(executor, &mut session, &rollback);
        assert_eq!(approval.command, "qm rollback 101 before-upgrade");
        assert!(ran.response.ok, "{:?}", ran.response);
        assert_eq!(
            commands(&ran),
            vec![(
                "node:pve1".to_string(),
                "qm rollback 101 before-upgrade".to_string()
            )]
        );
        assert_eq!(session.fsm.state(), FsmState::Verifying);
        assert_eq!(
            stored::verification_for("snapshot", &rollback.arguments).map(|c| c.tool),
            Some("snapshot".to_string())
        );
        let verified = block_on(executor.execute(&mut session, &list, at(5)));
        assert!(verified.response.ok);
        assert_eq!(session.fsm.state(), FsmState::Reading);
        // Names PVE would refuse never get that far.
        let bad = block_on(executor.execute(
            &mut session,
            &call(
                "snapshot",
                json!({"action": "create", "target": "web", "name": "x; reboot"}),
            ),
            at(6),
        ));
        assert_eq!(bad.response.error_code(), Some(ErrorCode::InvalidInput));
        let node = block_on(executor.execute(
            &mut session,
            &call("snapshot", json!({"action": "list", "target": "pve1"})),
            at(7),
        ));
        assert_eq!(node.response.error_code(), Some(ErrorCode::InvalidInput));
    });
}

#[test]
fn history_storage_and_backups_are_api_reads() {
    let world = World::new(vec![answer("rrddata", 0, r#"{"series": []}"#, "")]);
    world.run(ControlLevel::ReadOnly, &mut |executor| {
        let mut session = Session::new("s");
        let history = block_on(executor.execute(
            &mut session,
            &call(
                "metrics",
                json!({"target": "web", "metric": "memory", "range": "7d", "max_points": 60}),
            ),
            at(1),
        ));
        assert!(history.response.ok, "{:?}", history.response);
        assert_eq!(
            commands(&history),
            vec![(
                "node:pve1".to_string(),
                "pvesh get /nodes/pve1/qemu/101/rrddata --timeframe week --cf AVERAGE".to_string()
            )]
        );
        let pools = block_on(executor.execute(
            &mut session,
            &call("storage", json!({"action": "pools", "target": "pve1"})),
            at(2),
        ));
        assert!(pools.response.ok, "{:?}", pools.response);
        assert_eq!(commands(&pools)[0].1, "pvesh get /nodes/pve1/storage");
        // Reads through the API move nothing.
        assert_ne!(session.fsm.state(), FsmState::Verifying);
    });
}

#[test]
fn a_vm_without_an_agent_runs_reads_through_its_guest_agent_after_every_check() {
    let world = World::new(vec![answer("uptime", 0, " 10:00 up 3 days\n", "")]);
    world.run(ControlLevel::Autonomous, &mut |executor| {
        let mut session = Session::new("s");
        let read = block_on(executor.execute(
            &mut session,
            &call(
                "read",
                json!({"action": "exec", "target": "web", "command": "uptime"}),
            ),
            at(1),
        ));
        assert!(read.response.ok, "{:?}", read.response);
        let data = read.response.data.clone().unwrap();
        assert_eq!(data["via"], "qemu-guest-agent");
        assert_eq!(data["sandboxed"], false);
        assert_eq!(data["stdout"], " 10:00 up 3 days\n");
        assert_eq!(
            commands(&read),
            vec![("vm:pve1:101".to_string(), "uptime".to_string())]
        );
        // The read tool still refuses writes, and catastrophic commands are
        // refused whatever the level, before anything is sent.
        let write = block_on(executor.execute(
            &mut session,
            &call(
                "read",
                json!({"action": "exec", "target": "web", "command": "touch /etc/x"}),
            ),
            at(2),
        ));
        assert_eq!(
            write.response.error_code(),
            Some(ErrorCode::ReadOnlyViolation)
        );
        get(executor, &mut session, "web");
        let wipe = block_on(executor.execute(
            &mut session,
            &call(
                "control",
                json!({"action": "command", "target": "web", "command": "rm -rf /"}),
            ),
            at(3),
        ));
        assert_eq!(wipe.response.error_code(), Some(ErrorCode::PolicyBlocked));
        assert!(wipe.execs.is_empty());
    });
    assert!(
        !world
            .hosts
            .received()
            .iter()
            .any(|(_, c)| c.contains("rm -rf")),
        "{:?}",
        world.hosts.received()
    );
}

#[test]
fn a_migrated_guest_keeps_its_identity_and_the_session_is_told() {
    let world = World::new(vec![]);
    world.run(ControlLevel::Autonomous, &mut |executor| {
        let mut session = Session::new("s");
        get(executor, &mut session, "web");
        // A refresh finds web on pve2.
        let mut moved = resources();
        moved.retain(|r| r.id.to_string() != "vm:pve1:101");
        moved.push(res("node:pve2", "pve2", None));
        moved.push(res("vm:pve2:101", "web", Some("node:pve2")));
        world.inventory.migrate(moved, "vm:pve1:101", "vm:pve2:101");
        let ran = block_on(executor.execute(
            &mut session,
            &call(
                "control",
                json!({"action": "guest", "target": "vm:pve1:101", "operation": "reboot"}),
            ),
            at(2),
        ));
        assert!(ran.response.ok, "{:?}", ran.response);
        assert_eq!(
            commands(&ran),
            vec![("node:pve2".to_string(), "qm reboot 101".to_string())]
        );
        let data = ran.response.data.clone().unwrap();
        assert_eq!(data["moved"]["from"], "vm:pve1:101");
        assert_eq!(data["moved"]["to"], "vm:pve2:101");
        assert!(data["moved"]["note"].as_str().unwrap().contains("pve2"));
        // The session knows it by its new id now, and by its name.
        let id: ResourceId = "vm:pve2:101".parse().unwrap();
        assert!(
            session
                .context
                .get(&id, Duration::from_secs(3))
                .unwrap()
                .explicit
        );
        assert!(matches!(
            session.context.resolve("web", Duration::from_secs(3)),
            crate::context::Lookup::Found(e) if e.resource.id == id
        ));
        assert!(session.moves.is_empty(), "told once");
    });
}

#[test]
fn the_policy_per_tag_decides_what_is_snapshotted() {
    let mut tagged = res("vm:pve1:101", "web", Some("node:pve1"));
    tagged.attributes.insert("tags".into(), json!(["prod"]));
    let world = World {
        inventory: Changing::new(vec![res("node:pve1", "pve1", None), tagged]),
        ..World::new(vec![])
    };
    let api = SimulatedGuestApi::new(&world.hosts);
    let executor = Executor::new(
        Settings {
            snapshots: SnapshotPolicy {
                default: SnapshotMode::Never,
                per_tag: [("prod".to_string(), SnapshotMode::Always)].into(),
            },
            ..Settings::default()
        },
        Ports {
            inventory: &world.inventory,
            hosts: &world.hosts,
            approvals: &world.approvals,
            audit: &world.audit,
            notes: &world.notes,
        },
    )
    .with_guest_api(&api);
    let mut session = Session::new("s");
    get(&executor, &mut session, "web");
    let (approval, ran) = approved(
        &executor,
        &mut session,
        &call(
            "control",
            json!({"action": "guest", "target": "web", "operation": "start"}),
        ),
    );
    assert!(approval.snapshot.unwrap().take);
    assert!(ran.response.ok);
    assert_eq!(commands(&ran).len(), 2);
    assert!(commands(&ran)[0].1.starts_with("qm snapshot 101 warden-"));
}
