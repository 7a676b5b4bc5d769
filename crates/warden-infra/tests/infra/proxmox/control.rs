//! Guest power control against the fake: each operation's task is polled
//! to its real exit status and the result verified with `status/current`.

use std::time::Duration;

use serde_json::json;
use warden_infra::proxmox::{PowerOperation, PowerPlan, ProxmoxError, ShutdownFallback, TaskExit};
use warden_protocol::ResourceId;

use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve};

fn id(text: &str) -> ResourceId {
    text.parse().unwrap()
}

fn shutdown(secs: u64, on_timeout: ShutdownFallback) -> PowerOperation {
    PowerOperation::Shutdown {
        timeout: Duration::from_secs(secs),
        on_timeout,
    }
}

#[tokio::test]
async fn every_operation_on_a_vm_and_a_container() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "stopped").await;
    fake.add_ct(101, "dns", "stopped").await;
    let cluster = fake.cluster();
    cluster.refresh().await.unwrap();
    for (target, prefix) in [("vm:pve1:100", "qm"), ("lxc:pve1:101", "vz")] {
        let target = id(target);
        let steps = [
            (PowerOperation::Start, "start", "running"),
            (
                shutdown(30, ShutdownFallback::LeaveRunning),
                "shutdown",
                "stopped",
            ),
            (PowerOperation::Start, "start", "running"),
            (PowerOperation::Reboot, "reboot", "running"),
            (PowerOperation::Stop, "stop", "stopped"),
        ];
        for (operation, verb, status) in steps {
            let outcome = cluster.power(&target, operation).await.unwrap();
            let task = outcome.task.as_ref().expect("a task ran");
            assert_eq!(
                task.upid.task_type,
                format!("{prefix}{verb}"),
                "{target} {verb}"
            );
            assert_eq!(task.exit, TaskExit::Ok);
            assert_eq!(task.log_tail.last().map(String::as_str), Some("TASK OK"));
            assert_eq!(outcome.plan, PowerPlan::Direct);
            assert_eq!(outcome.status_after, status, "{target} {verb}");
            // The inventory was refreshed after the write.
            assert_eq!(
                cluster.inventory().get(&target).unwrap().status.as_deref(),
                Some(status)
            );
        }
    }
}

#[tokio::test]
async fn a_guest_already_in_the_state_is_left_alone() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    let cluster = fake.cluster();
    let outcome = cluster
        .power(&id("vm:pve1:100"), PowerOperation::Start)
        .await
        .unwrap();
    assert!(
        matches!(&outcome.plan, PowerPlan::NothingToDo { reason } if reason.contains("already running"))
    );
    assert!(outcome.task.is_none());
    let posts = fake
        .requests()
        .await
        .into_iter()
        .filter(|(m, _)| m == "POST")
        .count();
    assert_eq!(posts, 0);
}

#[tokio::test]
async fn a_failing_task_reports_its_exit_status_and_log() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "stopped").await;
    fake.set(
        100,
        json!({"start_error": "unable to open file '/dev/pve/vm-100-disk-0' - No such file"}),
    )
    .await;
    let cluster = fake.cluster();
    let err = cluster
        .power(&id("vm:pve1:100"), PowerOperation::Start)
        .await
        .unwrap_err();
    match &err {
        ProxmoxError::TaskFailed {
            task_type,
            exit_status,
            log_tail,
            ..
        } => {
            assert_eq!(task_type, "qmstart");
            assert!(exit_status.contains("No such file"), "{exit_status}");
            assert_eq!(
                log_tail.last().map(String::as_str),
                Some("TASK ERROR: unable to open file '/dev/pve/vm-100-disk-0' - No such file")
            );
        }
        other => panic!("expected a failed task, got {other:?}"),
    }
    assert!(!err.nothing_changed());
    // A task PVE fails on its own (fakepve's catalogue of real errors).
    fake.set(100, json!({"start_error": null})).await;
    fake.control(
        json!({"op": "fail", "method": "POST", "suffix": "/nodes/pve1/qemu/100/status/start",
                        "error": "qemu_exited_code", "times": 1}),
    )
    .await;
    let err = cluster
        .power(&id("vm:pve1:100"), PowerOperation::Start)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::TaskFailed { exit_status, .. } if exit_status.starts_with("QEMU exited with code")),
        "{err:?}"
    );
    // Once the fault is gone the same start succeeds.
    let outcome = cluster
        .power(&id("vm:pve1:100"), PowerOperation::Start)
        .await
        .unwrap();
    assert_eq!(outcome.status_after, "running");
}

#[tokio::test]
async fn a_slow_shutdown_times_out_then_is_stopped_or_fails() {
    // 1 PVE second = 10 ms; the guest needs 300 s to power off.
    let fake = FakePve::start(FakeOptions {
        time_scale: 0.01,
        ..Default::default()
    })
    .await;
    fake.add_vm(100, "slow", "running").await;
    fake.add_ct(101, "slow-ct", "running").await;
    fake.set(100, json!({"shutdown_secs": 300})).await;
    fake.set(101, json!({"shutdown_secs": 300})).await;
    let cluster = fake.cluster();

    let err = cluster
        .power(
            &id("vm:pve1:100"),
            shutdown(20, ShutdownFallback::LeaveRunning),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::TaskFailed { exit_status, .. } if exit_status == "VM quit/powerdown failed - got timeout"),
        "{err:?}"
    );
    assert_eq!(
        cluster
            .inventory()
            .get(&id("vm:pve1:100"))
            .unwrap()
            .status
            .as_deref(),
        Some("running")
    );

    let outcome = cluster
        .power(
            &id("vm:pve1:100"),
            shutdown(20, ShutdownFallback::ForceStop),
        )
        .await
        .unwrap();
    let task = outcome.task.unwrap();
    assert!(
        task.log_tail.iter().any(|l| l.contains("terminating now")),
        "{:?}",
        task.log_tail
    );
    assert!(
        task.waited_ms >= 150,
        "the 20 s timeout took {} ms",
        task.waited_ms
    );
    assert_eq!(outcome.status_after, "stopped");

    let err = cluster
        .power(
            &id("lxc:pve1:101"),
            shutdown(20, ShutdownFallback::LeaveRunning),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::TaskFailed { exit_status, .. } if exit_status.contains("did not stop")),
        "{err:?}"
    );
    let outcome = cluster
        .power(
            &id("lxc:pve1:101"),
            shutdown(20, ShutdownFallback::ForceStop),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status_after, "stopped");
}

#[tokio::test]
async fn a_task_outlasting_the_deadline_is_reported_as_still_running() {
    let fake = FakePve::start(FakeOptions {
        time_scale: 0.1,
        ..Default::default()
    })
    .await;
    fake.add_vm(100, "slow-start", "stopped").await;
    fake.set(100, json!({"start_secs": 100})).await;
    let cluster = fake.cluster();
    let err = cluster
        .power_within(
            &id("vm:pve1:100"),
            PowerOperation::Start,
            Duration::from_millis(800),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::TaskStillRunning { upid, .. } if upid.contains(":qmstart:100:")),
        "{err:?}"
    );
    assert!(err.to_string().contains("may still finish"), "{err}");
}

#[tokio::test]
async fn locked_guests_and_templates_are_refused_before_anything_is_sent() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "busy", "running").await;
    fake.add_ct(101, "busy-ct", "stopped").await;
    fake.control(json!({"op": "add_vm", "vmid": 9000, "name": "tmpl", "template": true}))
        .await;
    fake.control(json!({"op": "lock", "vmid": 100, "lock": "backup"}))
        .await;
    fake.control(json!({"op": "lock", "vmid": 101, "lock": "snapshot"}))
        .await;
    let cluster = fake.cluster();
    cluster.refresh().await.unwrap();
    assert_eq!(
        cluster
            .inventory()
            .get(&id("vm:pve1:100"))
            .unwrap()
            .attributes["lock"],
        "backup"
    );

    let err = cluster
        .power(&id("vm:pve1:100"), PowerOperation::Stop)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ProxmoxError::Locked {
            target: "vm:pve1:100".into(),
            lock: "backup".into()
        }
    );
    assert!(err.to_string().contains("a backup is running"), "{err}");
    let err = cluster
        .power(&id("lxc:pve1:101"), PowerOperation::Start)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::Locked { lock, .. } if lock == "snapshot"),
        "{err:?}"
    );
    let err = cluster
        .power(&id("vm:pve1:9000"), PowerOperation::Start)
        .await
        .unwrap_err();
    assert!(matches!(err, ProxmoxError::Template { .. }), "{err:?}");
    let posts: Vec<_> = fake
        .requests()
        .await
        .into_iter()
        .filter(|(m, _)| m == "POST")
        .collect();
    assert!(posts.is_empty(), "{posts:?}");
}

#[tokio::test]
async fn ha_managed_guests_go_through_the_ha_manager() {
    // HA acts 10 PVE seconds after the request: 100 ms here.
    let fake = FakePve::start(FakeOptions {
        time_scale: 0.01,
        ..Default::default()
    })
    .await;
    fake.add_vm(100, "ha-web", "running").await;
    fake.add_ct(101, "ha-ct", "stopped").await;
    fake.add_vm(102, "ha-broken", "stopped").await;
    fake.set(100, json!({"ha_state": "started"})).await;
    fake.set(101, json!({"ha_state": "stopped"})).await;
    fake.set(102, json!({"ha_state": "error"})).await;
    let cluster = fake.cluster();
    cluster.refresh().await.unwrap();
    assert_eq!(
        cluster
            .inventory()
            .get(&id("vm:pve1:100"))
            .unwrap()
            .attributes["ha_state"],
        "started"
    );

    let outcome = cluster
        .power(&id("vm:pve1:100"), PowerOperation::Stop)
        .await
        .unwrap();
    assert_eq!(outcome.plan, PowerPlan::ThroughHa);
    assert_eq!(outcome.task.unwrap().upid.task_type, "hastop");
    assert_eq!(outcome.status_after, "stopped");

    let outcome = cluster
        .power(&id("lxc:pve1:101"), PowerOperation::Start)
        .await
        .unwrap();
    assert_eq!(outcome.plan, PowerPlan::ThroughHa);
    assert_eq!(outcome.task.unwrap().upid.task_type, "hastart");
    assert_eq!(outcome.status_after, "running");

    let err = cluster
        .power(&id("vm:pve1:102"), PowerOperation::Start)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::HaRefused { state, .. } if state == "error"),
        "{err:?}"
    );
    assert!(err.to_string().contains("--state disabled"), "{err}");
}
