use serde_json::{Map, Value, json};
use warden_protocol::{FsmState, Resource};

use std::time::Duration;

use super::*;
use crate::context::Registration;
use crate::ports::{ApprovalState, AuditRecord};
use crate::ports::{MemoryApprovals, MemoryAudit};
use crate::simulated::{SimulatedHosts, StaticInventory};

/// The executor's async calls, driven to completion on a test runtime.
trait RunNow {
    fn execute_now(&self, session: &mut Session, call: &ProposedCall, at: Moment) -> Outcome;
    fn execute_approved_now(&self, session: &mut Session, id: &str, at: Moment) -> Outcome;
}

impl RunNow for Executor<'_> {
    fn execute_now(&self, session: &mut Session, call: &ProposedCall, at: Moment) -> Outcome {
        block_on(self.execute(session, call, at))
    }

    fn execute_approved_now(&self, session: &mut Session, id: &str, at: Moment) -> Outcome {
        block_on(self.execute_approved(session, id, at))
    }
}

pub(crate) fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

fn res(id: &str, name: &str, parent: Option<&str>) -> Resource {
    Resource {
        id: id.parse().unwrap(),
        name: name.into(),
        aliases: Vec::new(),
        parent: parent.map(|p| p.parse().unwrap()),
        status: Some("running".into()),
        attributes: Map::new(),
    }
}

struct World {
    inventory: StaticInventory,
    hosts: SimulatedHosts,
    approvals: MemoryApprovals,
    audit: MemoryAudit,
    notes: crate::ports::MemoryNotes,
}

impl World {
    fn new() -> Self {
        World {
            inventory: StaticInventory::new(vec![
                res("node:delly", "delly", None),
                res("lxc:delly:141", "homepage-docker", Some("node:delly")),
                res(
                    "docker_container:homepage-docker:abc",
                    "jellyfin",
                    Some("lxc:delly:141"),
                ),
                res("vm:delly:101", "web1", Some("node:delly")),
            ]),
            hosts: SimulatedHosts::default(),
            approvals: MemoryApprovals::default(),
            audit: MemoryAudit::default(),
            notes: crate::ports::MemoryNotes::default(),
        }
    }

    fn executor(&self, level: ControlLevel) -> Executor<'_> {
        Executor::new(
            Settings {
                control_level: level,
                ..Settings::default()
            },
            Ports {
                inventory: &self.inventory,
                hosts: &self.hosts,
                approvals: &self.approvals,
                audit: &self.audit,
                notes: &self.notes,
            },
        )
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

fn code(outcome: &Outcome) -> Option<ErrorCode> {
    outcome.response.error_code()
}

#[test]
fn write_needs_discovery_then_approval_then_verification() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Controlled);
    let mut session = Session::new("s1");
    let restart = call(
        "control",
        json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
    );

    let first = executor.execute_now(&mut session, &restart, at(0));
    assert!(matches!(
        code(&first),
        Some(ErrorCode::FsmBlocked | ErrorCode::StrictResolution)
    ));

    let get = executor.execute_now(
        &mut session,
        &call("query", json!({"action": "get", "target": "web1"})),
        at(1),
    );
    assert!(get.response.ok);
    assert_eq!(session.fsm.state(), FsmState::Reading);

    let pending = executor.execute_now(&mut session, &restart, at(2));
    assert_eq!(code(&pending), Some(ErrorCode::ApprovalRequired));
    let approval = pending.approval.clone().unwrap();
    assert_eq!(approval.command, "systemctl restart 'nginx'");
    assert!(
        world.hosts.received().is_empty(),
        "nothing ran before approval"
    );

    world
        .approvals
        .decide(&approval.id, ApprovalState::Approved, None, at(3).wall_ms)
        .unwrap();
    let done = executor.execute_approved_now(&mut session, &approval.id, at(4));
    assert!(done.response.ok, "{:?}", done.response);
    assert_eq!(session.fsm.state(), FsmState::Verifying);
    assert_eq!(
        world.hosts.received(),
        vec![(
            "vm:delly:101".to_string(),
            "systemctl restart 'nginx'".to_string()
        )]
    );

    // Single use.
    let again = executor.execute_approved_now(&mut session, &approval.id, at(5));
    assert!(!again.response.ok);

    let verify = executor.execute_now(
        &mut session,
        &call(
            "read",
            json!({"action": "exec", "target": "web1", "command": "systemctl is-active nginx"}),
        ),
        at(6),
    );
    assert!(verify.response.ok);
    assert_eq!(session.fsm.state(), FsmState::Reading);
}

#[test]
fn read_tool_refuses_writes_and_unbounded_commands() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Autonomous);
    let mut session = Session::new("s");
    let cases = [
        ("rm -rf /tmp/x", ErrorCode::ReadOnlyViolation),
        ("journalctl -f", ErrorCode::NonInteractive),
        ("rm -rf /", ErrorCode::PolicyBlocked),
    ];
    for (command, expected) in cases {
        let outcome = executor.execute_now(
            &mut session,
            &call(
                "read",
                json!({"action": "exec", "target": "web1", "command": command}),
            ),
            at(0),
        );
        assert_eq!(code(&outcome), Some(expected), "{command}");
    }
    let follow = executor.execute_now(
        &mut session,
        &call(
            "read",
            json!({"action": "exec", "target": "web1", "command": "journalctl -f -u nginx"}),
        ),
        at(0),
    );
    let details = &follow.response.error.unwrap().details;
    assert_eq!(
        details.extra["rewrite"],
        json!("journalctl -n 200 --since \"10 min ago\" -u nginx")
    );
    assert!(details.auto_recoverable);
    assert!(world.hosts.received().is_empty());
}

/// Rewrites are for reads: a write that follows a log is refused at every
/// level without a rewrite to apply (Warden never runs a write nobody
/// proposed), whichever tool carries it; its hint names the bounded form.
#[test]
fn a_write_is_never_rewritten() {
    let world = World::new();
    for level in [ControlLevel::Autonomous, ControlLevel::Controlled] {
        let executor = world.executor(level);
        let mut session = Session::new("s");
        // Discovery first: the FSM lets writes through only after it.
        let get = executor.execute_now(
            &mut session,
            &call("query", json!({"action": "get", "target": "web1"})),
            at(0),
        );
        assert!(get.response.ok);
        for (tool, arguments) in [
            (
                "control",
                json!({"action": "command", "target": "web1",
                       "command": "systemctl restart nginx && journalctl -fu nginx"}),
            ),
            (
                "read",
                json!({"action": "exec", "target": "web1",
                       "command": "touch /tmp/x; tail -f /var/log/syslog"}),
            ),
        ] {
            let outcome = executor.execute_now(&mut session, &call(tool, arguments), at(1));
            assert_eq!(code(&outcome), Some(ErrorCode::NonInteractive));
            let error = outcome.response.error.unwrap();
            assert!(error.details.extra.get("rewrite").is_none(), "{error:?}");
            assert!(!error.details.auto_recoverable, "{error:?}");
            assert!(
                error
                    .details
                    .recovery_hint
                    .as_deref()
                    .is_some_and(|h| h.contains("never rewritten")),
                "{error:?}"
            );
        }
    }
    assert!(world.hosts.received().is_empty());
}

/// Regression: a stderr redirect to /dev/null is not a write.
#[test]
fn stderr_redirect_is_not_blocked() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    let outcome = executor.execute_now(&mut session, &call("read", json!({"action": "exec", "target": "web1", "command": "find /var/log -name '*.log' 2>/dev/null"})), at(0));
    assert!(outcome.response.ok, "{:?}", outcome.response);
}

/// Regression: a file edit on the parent host of what the user named.
#[test]
fn file_edit_on_the_parent_host_is_a_routing_mismatch() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Autonomous);
    let mut session = Session::new("s");
    // What an @mention does: the child explicit, its parents registered.
    session.context.register(
        res("node:delly", "delly", None),
        Registration::RoutingParent,
        Duration::ZERO,
    );
    session.context.register(
        res("lxc:delly:141", "homepage-docker", Some("node:delly")),
        Registration::Mention,
        Duration::ZERO,
    );
    session.fsm.on_discovery();
    let edit = call(
        "file_edit",
        json!({"action": "append", "target": "delly", "path": "/opt/homepage/config/services.yaml", "content": "- InfluxDB: {}"}),
    );
    let outcome = executor.execute_now(&mut session, &edit, at(1));
    assert_eq!(code(&outcome), Some(ErrorCode::RoutingMismatch));
    assert!(
        outcome
            .response
            .error
            .unwrap()
            .message
            .contains("homepage-docker")
    );
    assert!(world.hosts.received().is_empty());
}

#[test]
fn read_only_level_refuses_writes_and_system_arguments_are_refused() {
    let world = World::new();
    let executor = world.executor(ControlLevel::ReadOnly);
    let mut session = Session::new("s");
    executor.execute_now(
        &mut session,
        &call("query", json!({"action": "get", "target": "web1"})),
        at(0),
    );
    let outcome = executor.execute_now(
        &mut session,
        &call(
            "control",
            json!({"action": "guest", "target": "web1", "operation": "stop"}),
        ),
        at(1),
    );
    assert_eq!(code(&outcome), Some(ErrorCode::PolicyBlocked));
    let sneaky = executor.execute_now(&mut session, &call("control", json!({"action": "guest", "target": "web1", "operation": "stop", "_approval_id": "appr-1"})), at(1));
    assert_eq!(code(&sneaky), Some(ErrorCode::InvalidInput));
}

#[test]
fn guest_control_runs_on_the_node() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Autonomous);
    let mut session = Session::new("s");
    executor.execute_now(
        &mut session,
        &call(
            "query",
            json!({"action": "get", "target": "homepage-docker"}),
        ),
        at(0),
    );
    let outcome = executor.execute_now(
        &mut session,
        &call(
            "control",
            json!({"action": "guest", "target": "homepage-docker", "operation": "reboot"}),
        ),
        at(1),
    );
    assert!(outcome.response.ok, "{:?}", outcome.response);
    assert_eq!(
        world.hosts.received(),
        vec![("node:delly".to_string(), "pct reboot '141'".to_string())]
    );
}

#[test]
fn every_decision_is_audited() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    executor.execute_now(&mut session, &call("bogus", json!({})), at(0));
    executor.execute_now(
        &mut session,
        &call(
            "read",
            json!({"action": "exec", "target": "web1", "command": "uptime"}),
        ),
        at(0),
    );
    let decisions: Vec<String> = world
        .audit
        .records()
        .into_iter()
        .map(|r| r.decision)
        .collect();
    assert_eq!(decisions, vec!["blocked", "allowed", "executed"]);
}

#[test]
fn arguments_hash_is_bound_to_the_exact_call() {
    let a = arguments_hash("control", &json!({"command": "ls"}));
    assert_eq!(a, arguments_hash("control", &json!({"command": "ls"})));
    assert_ne!(a, arguments_hash("control", &json!({"command": "ls -la"})));
}

/// An audit log that cannot be written (a full disk, a lost database).
struct BrokenAudit;

impl AuditSink for BrokenAudit {
    fn append(&self, _record: AuditRecord) -> Result<(), crate::ports::AuditError> {
        Err(crate::ports::AuditError("disk full".into()))
    }
}

#[test]
fn nothing_runs_unaudited() {
    let world = World::new();
    let broken = BrokenAudit;
    let executor = Executor::new(
        Settings {
            control_level: ControlLevel::Autonomous,
            ..Settings::default()
        },
        Ports {
            inventory: &world.inventory,
            hosts: &world.hosts,
            approvals: &world.approvals,
            audit: &broken,
            notes: &world.notes,
        },
    );
    let mut session = Session::new("s");
    let outcome = executor.execute_now(
        &mut session,
        &call(
            "read",
            json!({"action": "exec", "target": "web1", "command": "uptime"}),
        ),
        at(0),
    );
    assert_eq!(code(&outcome), Some(ErrorCode::Internal));
    assert!(world.hosts.received().is_empty());
}

#[test]
fn blocks_increment_their_counters() {
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let world = World::new();
        let executor = world.executor(ControlLevel::Controlled);
        let mut session = Session::new("s");
        let restart = call(
            "control",
            json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
        );
        executor.execute_now(&mut session, &restart, at(0));
        session.fsm.on_discovery();
        executor.execute_now(&mut session, &restart, at(1));
    });
    let counters: Vec<(String, Vec<String>, u64)> = snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .filter_map(|(key, _, _, value)| match value {
            DebugValue::Counter(n) => Some((
                key.key().name().to_string(),
                key.key()
                    .labels()
                    .map(|l| format!("{}={}", l.key(), l.value()))
                    .collect(),
                n,
            )),
            _ => None,
        })
        .collect();
    assert!(
        counters
            .iter()
            .any(|(name, labels, n)| name == "warden_fsm_tool_block_total"
                && labels.contains(&"state=RESOLVING".to_string())
                && labels.contains(&"tool=control".to_string())
                && *n == 1),
        "{counters:?}"
    );
    assert!(
        counters.iter().any(
            |(name, labels, _)| name == "warden_strict_resolution_block_total"
                && labels.contains(&"action=service".to_string())
        ),
        "{counters:?}"
    );
}

/// The most recent explicit reference by the user wins: naming the parent
/// after the child lifts the block; naming the child again restores it.
#[test]
fn the_most_recent_user_reference_wins_routing() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Autonomous);
    let mut session = Session::new("s");
    let inventory = crate::ports::Inventory::snapshot(&world.inventory);
    let exec_on_node = call(
        "read",
        json!({"action": "exec", "target": "delly", "command": "uptime"}),
    );
    let table = [
        ("check @homepage-docker", Some(ErrorCode::RoutingMismatch)),
        ("now look at delly itself", None),
        (
            "and back to homepage-docker",
            Some(ErrorCode::RoutingMismatch),
        ),
    ];
    for (turn, (message, expected)) in table.into_iter().enumerate() {
        crate::agent::mentions::prefetch(
            &inventory,
            &mut session,
            message,
            at(turn as u64).session,
        );
        let outcome = executor.execute_now(&mut session, &exec_on_node, at(turn as u64));
        assert_eq!(code(&outcome), expected, "after {message:?}");
    }
}

#[test]
fn audit_records_carry_the_command_they_concern() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    for command in ["uptime", "rm -rf /tmp/x"] {
        executor.execute_now(
            &mut session,
            &call(
                "read",
                json!({"action": "exec", "target": "web1", "command": command}),
            ),
            at(0),
        );
    }
    let records = world.audit.records();
    let summary: Vec<(&str, &str, &str)> = records
        .iter()
        .map(|r| (r.decision.as_str(), r.command.as_str(), r.actor.as_str()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("allowed", "uptime", "assistant"),
            ("executed", "uptime", "assistant"),
            ("blocked", "rm -rf /tmp/x", "assistant"),
        ]
    );
    let blocked = &records[2];
    assert!(
        blocked
            .reason
            .as_deref()
            .is_some_and(|r| !r.is_empty() && r != "rm -rf /tmp/x"),
        "a block says why: {blocked:?}"
    );
    assert_eq!(records[0].reason, None);
}

mod canary;
mod stored;
