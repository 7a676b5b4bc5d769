//! Writes on a real fakepve: power with approval, a failing task, snapshot
//! first and the guest agent, rollback.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use serde_json::json;
use warden_core::executor::Session;
use warden_core::ports::ApprovalState;
use warden_protocol::{ControlLevel, ErrorCode, FsmState};

use super::{Rig, approve_and_run, at, data, run};
use warden_testkit::fixtures::fakepve::FakeOptions;

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
