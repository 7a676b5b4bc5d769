//! Snapshots, commands through the guest agent, history, storage and
//! backups against the fake.

use std::time::Duration;

use serde_json::json;
use warden_infra::proxmox::{Confinement, Metric, ProxmoxError, TaskExit, Timeframe};
use warden_protocol::ResourceId;

use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve, TOKEN_ID};

fn id(text: &str) -> ResourceId {
    text.parse().unwrap()
}

#[tokio::test]
async fn snapshots_are_created_listed_rolled_back_and_deleted() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    fake.add_ct(101, "dns", "running").await;
    let cluster = fake.cluster();
    for target in [id("vm:pve1:100"), id("lxc:pve1:101")] {
        let task = cluster
            .create_snapshot(&target, "before-upgrade", "manual")
            .await
            .unwrap();
        assert_eq!(task.exit, TaskExit::Ok, "{target}");
        let taken = cluster
            .snapshot_before_change(&target, "a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90")
            .await
            .unwrap();
        assert!(taken.name.starts_with("warden-"), "{}", taken.name);
        assert!(
            taken.name.ends_with("-a1b2c3d4e5f6071829"),
            "{}",
            taken.name
        );
        let list = cluster.list_snapshots(&target).await.unwrap();
        let names: Vec<_> = list.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"before-upgrade") && names.contains(&taken.name.as_str()),
            "{names:?}"
        );
        let manual = list.iter().find(|s| s.name == "before-upgrade").unwrap();
        assert_eq!(manual.description.as_deref(), Some("manual"));
        assert!(manual.taken_at.is_some());
        let rolled = cluster.rollback(&target, "before-upgrade").await.unwrap();
        assert_eq!(rolled.task.exit, TaskExit::Ok);
        let err = cluster.rollback(&target, "no-such-snap").await.unwrap_err();
        assert!(
            matches!(&err, ProxmoxError::NotFound { hint: Some(h), .. } if h.contains("before-upgrade")),
            "{err:?}"
        );
        cluster.delete_snapshot(&target, &taken.name).await.unwrap();
        let names: Vec<_> = cluster
            .list_snapshots(&target)
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, vec!["before-upgrade".to_string()], "{target}");
    }
    // A duplicate name: the task fails with PVE's reason.
    let err = cluster
        .create_snapshot(&id("vm:pve1:100"), "before-upgrade", "")
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::TaskFailed { exit_status, .. } if exit_status.contains("already used")),
        "{err:?}"
    );
    // A bad name never reaches PVE.
    let err = cluster
        .create_snapshot(&id("vm:pve1:100"), "1 bad", "")
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("must start with a letter"),
        "{err}"
    );
    // Locked: refused before sending.
    fake.control(json!({"op": "lock", "vmid": 100, "lock": "backup"}))
        .await;
    let err = cluster
        .create_snapshot(&id("vm:pve1:100"), "later", "")
        .await
        .unwrap_err();
    assert!(matches!(err, ProxmoxError::Locked { .. }), "{err:?}");
}

#[tokio::test]
async fn commands_run_through_the_guest_agent() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    fake.add_vm(102, "no-agent", "running").await;
    fake.add_ct(101, "dns", "running").await;
    fake.set(
        100,
        json!({"agent": {"exec": {
            "/bin/sh -c uptime": {"exitcode": 0, "out-data": " 13:01:12 up 3 days\n"},
            "/bin/sh -c false": {"exitcode": 1, "err-data": "failed\n"}
        }}}),
    )
    .await;
    let cluster = fake.cluster();
    let wait = Duration::from_secs(10);
    let out = cluster
        .exec_shell_in_vm(&id("vm:pve1:100"), "uptime", wait)
        .await
        .unwrap();
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout, " 13:01:12 up 3 days\n");
    assert_eq!(out.confinement, Confinement::Unsandboxed);
    assert_eq!(
        serde_json::to_value(&out).unwrap()["confinement"],
        "unsandboxed"
    );
    let out = cluster
        .exec_shell_in_vm(&id("vm:pve1:100"), "false", wait)
        .await
        .unwrap();
    assert_eq!((out.exit_code, out.stderr.as_str()), (Some(1), "failed\n"));

    let err = cluster
        .exec_shell_in_vm(&id("vm:pve1:102"), "uptime", wait)
        .await
        .unwrap_err();
    assert!(
        matches!(err, ProxmoxError::AgentNotRunning { .. }),
        "{err:?}"
    );
    let err = cluster
        .exec_shell_in_vm(&id("lxc:pve1:101"), "uptime", wait)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("pct exec"), "{err}");
}

#[tokio::test]
async fn a_token_without_the_agent_privilege_is_refused_before_sending() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    fake.set(100, json!({"agent": {}})).await;
    fake.control(json!({"op": "grant", "user": TOKEN_ID, "path": "/vms", "privs": ["VM.Audit", "VM.PowerMgmt"]}))
        .await;
    let cluster = fake.cluster();
    let err = cluster
        .exec_shell_in_vm(&id("vm:pve1:100"), "uptime", Duration::from_secs(5))
        .await
        .unwrap_err();
    let ProxmoxError::Forbidden(denied) = &err else {
        panic!("expected a 403, got {err:?}");
    };
    assert_eq!(
        denied.privilege.as_deref(),
        Some("VM.GuestAgent.Unrestricted")
    );
    let sent: Vec<_> = fake
        .requests()
        .await
        .into_iter()
        .filter(|(_, p)| p.ends_with("/agent/exec"))
        .collect();
    assert!(sent.is_empty(), "{sent:?}");
    // Granted: it runs.
    fake.control(json!({"op": "grant", "user": TOKEN_ID, "path": "/vms/100", "privs": ["VM.GuestAgent.Unrestricted"]}))
        .await;
    let out = cluster
        .exec_shell_in_vm(&id("vm:pve1:100"), "uptime", Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(out.exit_code, Some(0));
}

#[tokio::test]
async fn history_from_an_empty_rrd_is_empty_not_an_error() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    let cluster = fake.cluster();
    let node = cluster
        .history(&id("node:pve1"), &[], Timeframe::Day, 120)
        .await
        .unwrap();
    assert_eq!(
        node.len(),
        Metric::for_source(warden_infra::proxmox::rrd::RrdSource::Node).len()
    );
    assert!(
        node.iter()
            .all(|h| h.summary.is_none() && h.average.is_empty())
    );
    let vm = cluster
        .history(&id("vm:pve1:100"), &[Metric::Cpu], Timeframe::Hour, 120)
        .await
        .unwrap();
    assert_eq!(vm.len(), 1);
    let asked: Vec<_> = fake
        .requests()
        .await
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| p.contains("rrddata"))
        .collect();
    assert_eq!(asked.len(), 4, "{asked:?}");
    let err = cluster
        .history(&id("storage:pve1:local"), &[], Timeframe::Hour, 10)
        .await
        .unwrap_err();
    assert!(matches!(err, ProxmoxError::Unsupported { .. }), "{err:?}");
}

#[tokio::test]
async fn storage_pools_and_the_last_backup_of_each_guest() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    fake.add_ct(101, "dns", "running").await;
    let now = jiff::Timestamp::now().as_second();
    for (name, ctime) in [
        (
            "vzdump-qemu-100-2026_11_20-02_00_00.vma.zst",
            now - 3 * 86400,
        ),
        ("vzdump-qemu-100-2026_11_22-02_00_00.vma.zst", now - 3600),
    ] {
        fake.control(json!({"op": "store_backup", "storage": "local", "name": name, "size": 1000, "ctime": ctime}))
            .await;
    }
    let cluster = fake.cluster();
    let pools = cluster.storage_pools(None).await.unwrap();
    let names: Vec<_> = pools.iter().map(|p| p.storage.as_str()).collect();
    assert_eq!(names, vec!["local", "local-lvm"]);
    assert!(pools[0].total_bytes.is_some() && pools[0].used_fraction.is_some());
    let report = cluster.backups().await.unwrap();
    let vm = report
        .guests
        .iter()
        .find(|g| g.target == id("vm:pve1:100"))
        .unwrap();
    let last = vm.last.as_ref().unwrap();
    assert_eq!(
        last.archive.volid,
        "local:backup/vzdump-qemu-100-2026_11_22-02_00_00.vma.zst"
    );
    assert_eq!(last.archives, 2);
    let age = last.age_secs.unwrap();
    assert!((3600..3700).contains(&age), "{age}");
    let ct = report
        .guests
        .iter()
        .find(|g| g.target == id("lxc:pve1:101"))
        .unwrap();
    assert!(ct.last.is_none());
}
