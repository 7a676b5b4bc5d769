//! Warden's executor on a real `fakepve` (the infra tests' launcher): the
//! clusters connected by [`connect`], their inventory merged, the guest API
//! answering API-backed plans. Every gate runs as in `warden ask`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use warden_core::executor::{Executor, Moment, Outcome, Ports, ProposedCall, Session, Settings};
use warden_core::ports::{
    ApprovalState, BoxFuture, CompositeInventory, ExecOutput, ExecRequest, HostBackend, HostError,
    Inventory, MemoryApprovals, MemoryAudit, MemoryNotes,
};
use warden_core::tools::history_text::render_history;
use warden_protocol::{ControlLevel, ErrorCode, FsmState};

use super::fakepve::{FakeOptions, FakePve};
use super::{ProxmoxWorld, connect};

/// No agents anywhere: every command is unreachable by a host backend.
struct NoAgents;

impl HostBackend for NoAgents {
    fn exec<'a>(
        &'a self,
        request: ExecRequest<'a>,
    ) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        let id = request.target.id.to_string();
        Box::pin(std::future::ready(Err(HostError::Unreachable(
            id,
            "no agent is connected".into(),
        ))))
    }
}

struct Rig {
    fake: FakePve,
    proxmox: ProxmoxWorld,
    inventory: CompositeInventory,
    approvals: MemoryApprovals,
    audit: MemoryAudit,
    notes: MemoryNotes,
}

impl Rig {
    async fn start(options: FakeOptions, setup: impl AsyncFnOnce(&FakePve)) -> Rig {
        let fake = FakePve::start(options).await;
        setup(&fake).await;
        let proxmox = connect(&[fake.config()]).await;
        assert!(proxmox.problems().is_empty(), "{:?}", proxmox.problems());
        let inventory = CompositeInventory::new(
            proxmox
                .inventories
                .iter()
                .map(|i| Arc::clone(i) as Arc<dyn Inventory>)
                .collect(),
        );
        Rig {
            fake,
            proxmox,
            inventory,
            approvals: MemoryApprovals::default(),
            audit: MemoryAudit::default(),
            notes: MemoryNotes::default(),
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
                hosts: &NoAgents,
                approvals: &self.approvals,
                audit: &self.audit,
                notes: &self.notes,
            },
        )
        .with_guest_api(&self.proxmox.api)
    }

    async fn sent(&self, method: &str, suffix: &str) -> usize {
        self.fake
            .requests()
            .await
            .iter()
            .filter(|(m, p)| m == method && p.ends_with(suffix))
            .count()
    }
}

fn at(secs: u64) -> Moment {
    Moment {
        session: Duration::from_secs(secs),
        wall_ms: jiff::Timestamp::now().as_millisecond().unsigned_abs() + secs * 1000,
    }
}

fn call(tool: &str, arguments: Value) -> ProposedCall {
    ProposedCall {
        tool: tool.into(),
        arguments,
    }
}

async fn run(executor: &Executor<'_>, session: &mut Session, tool: &str, args: Value) -> Outcome {
    executor.execute(session, &call(tool, args), at(1)).await
}

/// Propose, approve as the operator, run the stored call.
async fn approve_and_run(
    executor: &Executor<'_>,
    session: &mut Session,
    tool: &str,
    args: Value,
) -> (warden_protocol::Approval, Outcome) {
    let asked = run(executor, session, tool, args).await;
    assert_eq!(
        asked.response.error_code(),
        Some(ErrorCode::ApprovalRequired),
        "{:?}",
        asked.response
    );
    let approval = asked.approval.unwrap();
    executor
        .approvals()
        .decide(&approval.id, ApprovalState::Approved, None, at(2).wall_ms)
        .unwrap();
    let ran = executor
        .execute_approved(session, &approval.id, at(3))
        .await;
    (approval, ran)
}

fn data(outcome: &Outcome) -> Value {
    assert!(outcome.response.ok, "{:?}", outcome.response);
    outcome.response.data.clone().unwrap()
}

#[tokio::test]
async fn stop_a_vm_with_approval_the_task_polled_then_verified() {
    let options = FakeOptions {
        time_scale: 0.02,
        ..FakeOptions::default()
    };
    let rig = Rig::start(options, async |fake| {
        fake.add_vm(101, "web", "running").await
    })
    .await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    assert!(
        run(
            &executor,
            &mut session,
            "query",
            json!({"action": "get", "target": "web"})
        )
        .await
        .response
        .ok
    );
    let (approval, ran) = approve_and_run(
        &executor,
        &mut session,
        "control",
        json!({"action": "guest", "target": "web", "operation": "stop"}),
    )
    .await;
    assert_eq!(approval.command, "qm stop 101");
    assert_eq!(approval.target, "vm:pve1:101");
    let result = data(&ran);
    assert_eq!(result["task"]["exit"]["result"], "ok", "{result}");
    assert_eq!(result["task"]["exit_status"], "OK");
    assert_eq!(result["status_before"], "running");
    assert_eq!(result["status_after"], "stopped");
    assert_eq!(ran.execs[0].target, "node:pve1");
    assert_eq!(
        rig.sent("POST", "/nodes/pve1/qemu/101/status/stop").await,
        1
    );
    assert!(rig.sent("GET", "/status").await >= 1, "the task was polled");
    assert!(rig.sent("GET", "/qemu/101/status/current").await >= 2);
    // The FSM holds the answer until a read verifies; the inventory was
    // refreshed after the write, so the read sees the new state.
    assert_eq!(session.fsm.state(), FsmState::Verifying);
    let health = run(
        &executor,
        &mut session,
        "query",
        json!({"action": "health", "target": "web"}),
    )
    .await;
    assert_eq!(data(&health)["status"], "stopped");
    assert_eq!(session.fsm.state(), FsmState::Reading);
}

#[tokio::test]
async fn a_failing_task_is_reported_with_its_exit_status() {
    let rig = Rig::start(FakeOptions::default(), async |fake| {
        fake.add_vm(100, "db", "stopped").await;
        fake.set(
            100,
            json!({"start_error": "unable to open file '/dev/pve/vm-100-disk-0' - No such file"}),
        )
        .await;
    })
    .await;
    let executor = rig.executor(ControlLevel::Autonomous);
    let mut session = Session::new("s");
    run(
        &executor,
        &mut session,
        "query",
        json!({"action": "get", "target": "db"}),
    )
    .await;
    let ran = run(
        &executor,
        &mut session,
        "control",
        json!({"action": "guest", "target": "db", "operation": "start"}),
    )
    .await;
    let error = ran.response.error.clone().unwrap();
    assert_eq!(error.code, ErrorCode::ExecutionFailed);
    assert!(!error.blocked && error.failed);
    assert!(error.message.contains("vm-100-disk-0"), "{}", error.message);
    assert!(
        error.details.extra["exit_status"]
            .as_str()
            .unwrap()
            .contains("No such file")
    );
    assert!(
        !error.details.extra["log_tail"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(ran.execs[0].exit_code, 1);
    // It ran: the guest's state must be read before anything else.
    assert_eq!(session.fsm.state(), FsmState::Verifying);
}

#[tokio::test]
async fn snapshot_first_then_a_command_through_the_guest_agent() {
    let rig = Rig::start(FakeOptions::default(), async |fake| {
        fake.add_vm(100, "web", "running").await;
        fake.set(
            100,
            json!({"agent": {"exec": {
                "/bin/sh -c systemctl restart nginx": {"exitcode": 0, "out-data": ""},
                "/bin/sh -c uptime": {"exitcode": 0, "out-data": " up 3 days\n"}
            }}}),
        )
        .await;
    })
    .await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    // A read goes through the guest agent, unsandboxed and saying so.
    let read = run(
        &executor,
        &mut session,
        "read",
        json!({"action": "exec", "target": "web", "command": "uptime"}),
    )
    .await;
    let read = data(&read);
    assert_eq!(
        (read["via"].as_str(), read["sandboxed"].as_bool()),
        (Some("qemu-guest-agent"), Some(false))
    );
    assert_eq!(read["stdout"], " up 3 days\n");
    run(
        &executor,
        &mut session,
        "query",
        json!({"action": "get", "target": "web"}),
    )
    .await;
    let (approval, ran) = approve_and_run(
        &executor,
        &mut session,
        "control",
        json!({"action": "command", "target": "web", "command": "systemctl restart nginx"}),
    )
    .await;
    let offer = approval.snapshot.clone().unwrap();
    assert!(offer.take, "{offer:?}");
    assert!(
        approval.description.contains("undoable"),
        "{}",
        approval.description
    );
    let result = data(&ran);
    let name = result["snapshot_before_change"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(name.starts_with("warden-"), "{name}");
    let commands: Vec<&str> = ran.execs.iter().map(|e| e.command.as_str()).collect();
    assert_eq!(
        commands,
        vec![
            format!("qm snapshot 100 {name}").as_str(),
            "systemctl restart nginx"
        ]
    );
    assert_eq!(result["via"], "qemu-guest-agent");
    // The snapshot exists on the cluster, and the undo is a rollback to it.
    let listed = run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "list", "target": "web"}),
    )
    .await;
    let names: Vec<&str> = listed.response.data.as_ref().unwrap()["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&name.as_str()), "{names:?}");
    assert_eq!(
        result["snapshot_before_change"]["undo"]["arguments"]["action"],
        "rollback"
    );
    // A locked guest cannot be snapshotted: the change does not run.
    rig.fake
        .control(json!({"op": "lock", "vmid": 100, "lock": "backup"}))
        .await;
    let before = rig.sent("POST", "/agent/exec").await;
    let (_, refused) = approve_and_run(
        &executor,
        &mut session,
        "control",
        json!({"action": "command", "target": "web", "command": "systemctl restart nginx"}),
    )
    .await;
    let error = refused.response.error.clone().unwrap();
    assert!(
        error.message.contains("the change was not made"),
        "{}",
        error.message
    );
    assert!(error.message.contains("locked"), "{}", error.message);
    assert_eq!(rig.sent("POST", "/agent/exec").await, before);
}

#[tokio::test]
async fn rollback_is_a_write_with_approval() {
    let rig = Rig::start(FakeOptions::default(), async |fake| {
        fake.add_ct(141, "homepage", "running").await
    })
    .await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    run(
        &executor,
        &mut session,
        "query",
        json!({"action": "get", "target": "homepage"}),
    )
    .await;
    let (approval, created) = approve_and_run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "create", "target": "homepage", "name": "before-upgrade"}),
    )
    .await;
    assert_eq!(approval.command, "pct snapshot 141 before-upgrade");
    assert!(
        approval.snapshot.is_none(),
        "taking a snapshot needs no snapshot first"
    );
    assert_eq!(data(&created)["task"]["exit_status"], "OK");
    let listed = run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "list", "target": "homepage"}),
    )
    .await;
    assert_eq!(data(&listed)["snapshots"][0]["name"], "before-upgrade");
    let (approval, rolled) = approve_and_run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "rollback", "target": "homepage", "name": "before-upgrade"}),
    )
    .await;
    assert_eq!(approval.command, "pct rollback 141 before-upgrade");
    assert!(
        approval.description.contains("not undoable"),
        "{}",
        approval.description
    );
    assert_eq!(data(&rolled)["rolled_back_to"], "before-upgrade");
    assert_eq!(
        rig.sent("POST", "/lxc/141/snapshot/before-upgrade/rollback")
            .await,
        1
    );
    assert_eq!(session.fsm.state(), FsmState::Verifying);
    // A denied rollback never reaches the cluster.
    run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "list", "target": "homepage"}),
    )
    .await;
    let asked = run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "rollback", "target": "homepage", "name": "before-upgrade"}),
    )
    .await;
    let id = asked.approval.unwrap().id;
    executor
        .approvals()
        .decide(&id, ApprovalState::Denied, None, at(2).wall_ms)
        .unwrap();
    let denied = executor.execute_approved(&mut session, &id, at(3)).await;
    assert_eq!(
        denied.response.error_code(),
        Some(ErrorCode::ApprovalDenied)
    );
    assert_eq!(
        rig.sent("POST", "/lxc/141/snapshot/before-upgrade/rollback")
            .await,
        1
    );
}

#[tokio::test]
async fn history_storage_and_backups_from_the_api() {
    let now = jiff::Timestamp::now().as_second();
    let rig = Rig::start(FakeOptions::default(), async |fake| {
        fake.add_vm(101, "web", "running").await;
        let rows: Vec<Value> = (0..200)
            .map(|i| json!({"time": now - (200 - i) * 60, "cpu": 0.1 + (i % 10) as f64 / 100.0,
                            "mem": 1000 + i * 10, "maxmem": 5000}))
            .collect();
        fake.control(json!({"op": "rrd", "suffix": "/nodes/pve1/qemu/101/rrddata", "rows": rows}))
            .await;
        fake.control(json!({"op": "store_backup", "storage": "local",
            "name": "vzdump-qemu-101-2026_11_22-02_00_00.vma.zst", "size": 1000, "ctime": now - 7200}))
            .await;
    })
    .await;
    let executor = rig.executor(ControlLevel::ReadOnly);
    let mut session = Session::new("s");
    let history = run(
        &executor,
        &mut session,
        "metrics",
        json!({"target": "web", "metric": "memory", "range": "day", "max_points": 50}),
    )
    .await;
    let history = data(&history);
    let series = &history["series"][0];
    assert_eq!(series["metric"], "memory");
    assert_eq!(series["average"].as_array().unwrap().len(), 50);
    assert_eq!(series["summary"]["samples"], 200);
    let text = render_history(&history).unwrap();
    assert!(text.starts_with("web (vm:pve1:101), past day:"), "{text}");
    assert!(text.contains('▁') && text.contains('█'), "{text}");
    assert!(
        text.contains("min 20.0 %") && text.contains("latest 59.8 %"),
        "{text}"
    );
    let pools = run(
        &executor,
        &mut session,
        "storage",
        json!({"action": "pools"}),
    )
    .await;
    let pools = data(&pools);
    assert_eq!(
        pools["clusters"][0]["pools"][0]["storage"], "local",
        "{pools}"
    );
    let backups = run(
        &executor,
        &mut session,
        "storage",
        json!({"action": "backups", "target": "web"}),
    )
    .await;
    let backups = data(&backups);
    let last = &backups["guests"][0]["last_backup"];
    assert_eq!(last["age"], "2 h", "{backups}");
    assert!(last["volid"].as_str().unwrap().contains("vzdump-qemu-101"));
    // Reads owe no verification; nothing asked for approval.
    assert_ne!(session.fsm.state(), FsmState::Verifying);
    assert!(history.get("approval_id").is_none());
}

#[tokio::test]
async fn a_migrated_guest_keeps_its_identity_and_the_session_is_told() {
    let rig = Rig::start(
        FakeOptions {
            nodes: 2,
            ..FakeOptions::default()
        },
        async |fake| {
            fake.add_vm(100, "web", "running").await;
        },
    )
    .await;
    let executor = rig.executor(ControlLevel::Autonomous);
    let mut session = Session::new("s");
    let found = run(
        &executor,
        &mut session,
        "query",
        json!({"action": "get", "target": "web"}),
    )
    .await;
    assert_eq!(data(&found)["resource"]["id"], "vm:pve1:100");
    // A migration, then the refresh finds the guest on pve2.
    rig.fake
        .control(json!({"op": "move", "vmid": 100, "node": "pve2"}))
        .await;
    rig.proxmox.inventories[0]
        .cluster()
        .refresh()
        .await
        .unwrap();
    let ran = run(
        &executor,
        &mut session,
        "control",
        json!({"action": "guest", "target": "web", "operation": "reboot"}),
    )
    .await;
    let result = data(&ran);
    assert_eq!(result["moved"]["from"], "vm:pve1:100");
    assert_eq!(result["moved"]["to"], "vm:pve2:100");
    assert_eq!(ran.execs[0].target, "node:pve2");
    assert_eq!(
        rig.sent("POST", "/nodes/pve2/qemu/100/status/reboot").await,
        1
    );
    let health = run(
        &executor,
        &mut session,
        "query",
        json!({"action": "health", "target": "web"}),
    )
    .await;
    assert_eq!(data(&health)["resource"]["id"], "vm:pve2:100");
}

#[tokio::test]
async fn five_hundred_guests_within_the_issue_s_numbers() {
    let started = Instant::now();
    let rig = Rig::start(
        FakeOptions {
            generate: 500,
            nodes: 3,
            ..FakeOptions::default()
        },
        async |_| {},
    )
    .await;
    let connected = &rig.proxmox.connected[0];
    let report = connected.result.as_ref().unwrap();
    assert_eq!(report.guests, 500);
    let cluster = rig.proxmox.inventories[0].cluster();
    let mut refreshes = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        cluster.refresh().await.unwrap();
        refreshes.push(t.elapsed());
        // Each refresh is a new snapshot: converted and merged once.
        rig.inventory.snapshot();
    }
    refreshes.sort();
    let t = Instant::now();
    let snapshot = rig.inventory.snapshot();
    for i in 0..10_000 {
        // The launcher names every third guest `ct-N` (an LXC), the rest `vm-N`.
        let n = i % 500;
        let name = format!("{}-{}", if n % 3 == 2 { "ct" } else { "vm" }, 100 + n);
        let found = snapshot.find(&name);
        assert_eq!(found.len(), 1, "{name}");
    }
    assert!(
        Arc::ptr_eq(&snapshot, &rig.inventory.snapshot()),
        "no new merge without a refresh"
    );
    let lookups = t.elapsed();
    eprintln!(
        "500 guests: first inventory {:?} (fake started {:?} before), refreshes {refreshes:?}, 10 000 lookups {lookups:?}",
        connected.elapsed,
        started.elapsed()
    );
    assert!(
        connected.elapsed <= Duration::from_secs(2),
        "{:?}",
        connected.elapsed
    );
    assert!(refreshes[1] <= Duration::from_millis(500), "{refreshes:?}");
    assert!(lookups <= Duration::from_millis(500), "{lookups:?}");
}
