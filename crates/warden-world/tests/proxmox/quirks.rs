//! Proxmox as it really behaves, on a real fakepve: a guest migrated
//! within the refresh window, a vmid reused by another guest, a shutdown
//! forced after its timeout, a rollback that leaves a VM stopped, locked
//! guests and templates, storage that cannot snapshot.

use std::sync::Arc;

use serde_json::json;
use warden_core::executor::snapshot_first::{SnapshotMode, SnapshotPolicy};
use warden_core::executor::{Executor, Ports, Session, Settings};
use warden_core::ports::{ApprovalState, ApprovalStore, CompositeInventory, Inventory};
use warden_protocol::{ControlLevel, ErrorCode};

use super::{NoAgents, Rig, approve_and_run, at, data, run};
use warden_testkit::fixtures::fakepve::FakeOptions;
use warden_world::proxmox::connect;

async fn web_on_pve1() -> Rig {
    Rig::start(FakeOptions::default(), async |fake| {
        fake.add_vm(100, "web", "running").await;
    })
    .await
}

/// Asks for `arguments` (discovering `web` first) and returns the approval id.
async fn ask(
    executor: &Executor<'_>,
    session: &mut Session,
    arguments: serde_json::Value,
) -> String {
    let found = run(
        executor,
        session,
        "query",
        json!({"action": "get", "target": "web"}),
    )
    .await;
    assert!(found.response.ok, "{:?}", found.response);
    let asked = run(executor, session, "control", arguments).await;
    assert_eq!(
        asked.response.error_code(),
        Some(ErrorCode::ApprovalRequired),
        "{:?}",
        asked.response
    );
    let id = asked.approval.unwrap().id;
    executor
        .approvals()
        .decide(&id, ApprovalState::Approved, None, at(2).wall_ms)
        .unwrap();
    id
}

#[tokio::test]
async fn a_guest_migrated_within_the_refresh_window_is_followed_and_the_session_told() {
    let rig = web_on_pve1().await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    let id = ask(
        &executor,
        &mut session,
        json!({"action": "guest", "target": "web", "operation": "reboot"}),
    )
    .await;
    // Migrated after the approval was asked for; no refresh since.
    rig.fake
        .control(json!({"op": "move", "vmid": 100, "node": "pve2"}))
        .await;
    let ran = executor.execute_approved(&mut session, &id, at(3)).await;
    let result = data(&ran);
    assert_eq!(result["moved"]["from"], "vm:pve1:100", "{result}");
    assert_eq!(result["moved"]["to"], "vm:pve2:100", "{result}");
    assert!(
        result["moved"]["note"]
            .as_str()
            .unwrap()
            .contains("vm:pve2:100"),
        "{result}"
    );
    assert_eq!(result["status_after"], "running");
    assert_eq!(
        rig.sent("POST", "/nodes/pve2/qemu/100/status/reboot").await,
        1
    );
    assert_eq!(
        rig.sent("POST", "/nodes/pve1/qemu/100/status/reboot").await,
        0
    );
}

#[tokio::test]
async fn an_approval_decided_after_the_move_runs_on_the_new_node_from_another_process() {
    let rig = web_on_pve1().await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    let id = ask(
        &executor,
        &mut session,
        json!({"action": "guest", "target": "vm:pve1:100", "operation": "reboot"}),
    )
    .await;
    rig.fake
        .control(json!({"op": "move", "vmid": 100, "node": "pve2"}))
        .await;
    // `warden approvals approve` in a new process: a new connection whose
    // first inventory already has the guest on pve2.
    let fresh = connect(&[rig.fake.config()]).await;
    let inventory =
        CompositeInventory::new(vec![Arc::clone(&fresh.inventories) as Arc<dyn Inventory>]);
    let later = Executor::new(
        Settings {
            control_level: ControlLevel::Controlled,
            ..Settings::default()
        },
        Ports {
            inventory: &inventory,
            hosts: &NoAgents,
            approvals: &rig.approvals,
            audit: &rig.audit,
            notes: &rig.notes,
        },
    )
    .with_guest_api(&fresh.api);
    let run = later.run_stored_approval(&id, at(3)).await;
    let result = data(&run.outcome);
    assert_eq!(result["moved"]["to"], "vm:pve2:100", "{result}");
    assert_eq!(run.outcome.execs[0].target, "node:pve2");
    assert_eq!(
        rig.sent("POST", "/nodes/pve2/qemu/100/status/reboot").await,
        1
    );
}

#[tokio::test]
async fn a_vmid_reused_by_another_guest_is_refused() {
    let rig = web_on_pve1().await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    let id = ask(
        &executor,
        &mut session,
        json!({"action": "guest", "target": "web", "operation": "reboot"}),
    )
    .await;
    // web is deleted and its vmid given to another VM on another node.
    rig.fake.control(json!({"op": "remove", "vmid": 100})).await;
    rig.fake
        .control(
            json!({"op": "add_vm", "vmid": 100, "name": "db", "node": "pve2", "status": "running"}),
        )
        .await;
    let ran = executor.execute_approved(&mut session, &id, at(3)).await;
    let error = ran.response.error.clone().expect("refused");
    assert_eq!(error.code, ErrorCode::NotFound, "{error:?}");
    assert!(error.message.contains("another guest"), "{}", error.message);
    assert_eq!(rig.sent("POST", "/status/reboot").await, 0);
    // Asked again after the refresh shows `db` at vmid 100: still refused,
    // and `db` is never touched.
    rig.proxmox.clusters()[0].cluster().refresh().await.unwrap();
    let again = run(
        &executor,
        &mut session,
        "control",
        json!({"action": "guest", "target": "web", "operation": "reboot"}),
    )
    .await;
    if let Some(approval) = again.approval {
        executor
            .approvals()
            .decide(&approval.id, ApprovalState::Approved, None, at(3).wall_ms)
            .unwrap();
        let ran = executor
            .execute_approved(&mut session, &approval.id, at(3))
            .await;
        let error = ran.response.error.clone().expect("refused");
        assert!(error.message.contains("another guest"), "{}", error.message);
    } else {
        assert!(!again.response.ok, "{:?}", again.response);
    }
    assert_eq!(rig.sent("POST", "/status/reboot").await, 0);
    // The same from a new process (the inventory already shows `db`).
    let id = {
        let fresh_session = &mut Session::new("t");
        rig.proxmox.clusters()[0].cluster().refresh().await.unwrap();
        let asked = run(
            &executor,
            fresh_session,
            "query",
            json!({"action": "get", "target": "db"}),
        )
        .await;
        assert!(asked.response.ok);
        // An approval granted for `web` at its old id, decided now.
        let approval = warden_protocol::Approval {
            id: "0000-stale".into(),
            session_id: "gone".into(),
            tool: "control".into(),
            target: "vm:pve1:100".into(),
            arguments_hash: warden_core::executor::arguments_hash(
                "control",
                &json!({"action": "guest", "target": "vm:pve1:100", "operation": "reboot"}),
            ),
            arguments: json!({"action": "guest", "target": "vm:pve1:100", "operation": "reboot"}),
            command: "qm reboot 100".into(),
            risk: "medium".into(),
            description: "control on web: qm reboot 100".into(),
            created_at_ms: at(0).wall_ms,
            expires_at_ms: at(0).wall_ms + 3_600_000,
            state: ApprovalState::Approved,
            reason: None,
            decided_by: None,
            decided_at_ms: None,
            snapshot: None,
            file_before: None,
        };
        rig.approvals.create(approval.clone()).unwrap();
        approval.id
    };
    let stored = executor.run_stored_approval(&id, at(4)).await;
    let error = stored.outcome.response.error.clone().expect("refused");
    assert!(
        error
            .message
            .contains("not the guest this approval was granted for (web)"),
        "{}",
        error.message
    );
    assert_eq!(rig.sent("POST", "/status/reboot").await, 0);
}

#[tokio::test]
async fn a_shutdown_forced_after_its_timeout_is_reported_forced() {
    let rig = web_on_pve1().await;
    // The guest ignores ACPI for longer than the timeout.
    rig.fake.set(100, json!({"shutdown_secs": 1000})).await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    let id = ask(
        &executor,
        &mut session,
        json!({"action": "guest", "target": "web", "operation": "shutdown",
               "timeout_secs": 30, "on_timeout": "stop"}),
    )
    .await;
    let ran = executor.execute_approved(&mut session, &id, at(3)).await;
    let result = data(&ran);
    assert_eq!(result["forced"], true, "{result}");
    assert!(
        result["forced_evidence"]
            .as_str()
            .unwrap()
            .contains("terminating now"),
        "{result}"
    );
    let summary = result["summary"].as_str().unwrap();
    assert!(summary.contains("forced off"), "{summary}");
    assert!(!summary.contains("cleanly;"), "{summary}");
    assert_eq!(result["status_after"], "stopped");

    // A guest that goes down by itself: clean.
    rig.fake
        .set(100, json!({"shutdown_secs": 0, "status": "running"}))
        .await;
    rig.proxmox.clusters()[0].cluster().refresh().await.unwrap();
    let id = ask(
        &executor,
        &mut Session::new("t"),
        json!({"action": "guest", "target": "web", "operation": "shutdown",
               "timeout_secs": 30, "on_timeout": "stop"}),
    )
    .await;
    let mut session = Session::new("t");
    let ran = executor.run_stored_approval(&id, at(4)).await;
    let _ = &mut session;
    let result = data(&ran.outcome);
    assert_eq!(result["forced"], false, "{result}");
    assert_eq!(
        result["summary"],
        "web (vm:pve1:100) shut down cleanly; Proxmox reports it stopped."
    );
}

#[tokio::test]
async fn a_rollback_says_the_state_it_leaves_the_guest_in() {
    let rig = web_on_pve1().await;
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
    let (_, taken) = approve_and_run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "create", "target": "web", "name": "before"}),
    )
    .await;
    assert!(taken.response.ok, "{:?}", taken.response);
    let _ = run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "list", "target": "web"}),
    )
    .await;
    let (_, rolled) = approve_and_run(
        &executor,
        &mut session,
        "snapshot",
        json!({"action": "rollback", "target": "web", "name": "before"}),
    )
    .await;
    let result = data(&rolled);
    assert_eq!(result["status_before"], "running", "{result}");
    assert_eq!(result["status_after"], "stopped", "{result}");
    assert_eq!(result["with_ram"], false);
    let summary = result["summary"].as_str().unwrap();
    assert!(summary.contains("reports it stopped now"), "{summary}");
    assert!(summary.contains("no RAM state"), "{summary}");
}

#[tokio::test]
async fn locked_guests_and_templates_are_refused_before_any_approval() {
    let rig = Rig::start(FakeOptions::default(), async |fake| {
        fake.add_vm(100, "web", "running").await;
        fake.control(json!({"op": "lock", "vmid": 100, "lock": "backup"}))
            .await;
        fake.control(
            json!({"op": "add_vm", "vmid": 9000, "name": "debian-tmpl", "template": true}),
        )
        .await;
    })
    .await;
    let executor = rig.executor(ControlLevel::Controlled);
    let mut session = Session::new("s");
    for (target, operation, why) in [
        ("web", "stop", "locked (backup: a backup is running)"),
        ("debian-tmpl", "start", "is a template"),
    ] {
        let found = run(
            &executor,
            &mut session,
            "query",
            json!({"action": "get", "target": target}),
        )
        .await;
        assert!(found.response.ok);
        let asked = run(
            &executor,
            &mut session,
            "control",
            json!({"action": "guest", "target": target, "operation": operation}),
        )
        .await;
        let error = asked.response.error.clone().expect("refused");
        assert_eq!(error.code, ErrorCode::PolicyBlocked, "{error:?}");
        assert!(error.message.contains(why), "{}", error.message);
        assert!(
            asked.approval.is_none(),
            "{target}: no approval is asked for"
        );
    }
    assert_eq!(rig.sent("POST", "/status/stop").await, 0);
    assert_eq!(rig.sent("POST", "/status/start").await, 0);
}

#[tokio::test]
async fn storage_without_snapshots_is_never_promised_an_undo() {
    let rig = Rig::start(FakeOptions::default(), async |fake| {
        fake.control(
            json!({"op": "add_vm", "vmid": 100, "name": "web", "status": "running",
            "config": {"scsi0": "local:100/vm-100-disk-0.raw,size=8G"}}),
        )
        .await;
        fake.control(
            json!({"op": "add_vm", "vmid": 101, "name": "app", "status": "running",
            "config": {"scsi0": "local-lvm:vm-101-disk-0,size=8G"}}),
        )
        .await;
    })
    .await;
    let always = Settings {
        control_level: ControlLevel::Controlled,
        snapshots: SnapshotPolicy {
            default: SnapshotMode::Always,
            per_tag: Default::default(),
        },
        ..Settings::default()
    };
    let cluster = Arc::clone(rig.proxmox.clusters()[0].cluster());
    let executor = rig.executor_with(always);
    let mut session = Session::new("s");
    // Not known yet: the card promises nothing, and the change is checked
    // live when it runs.
    let id = ask(
        &executor,
        &mut session,
        json!({"action": "guest", "target": "web", "operation": "reboot"}),
    )
    .await;
    let card = rig.approvals.get(&id).unwrap().snapshot.unwrap();
    assert!(
        card.undoable.starts_with("undoable if"),
        "{}",
        card.undoable
    );
    let ran = executor.execute_approved(&mut session, &id, at(3)).await;
    let error = ran.response.error.clone().expect("refused");
    assert!(
        error.message.contains("cannot be snapshotted"),
        "{}",
        error.message
    );
    assert!(
        error
            .details
            .recovery_hint
            .clone()
            .unwrap_or_default()
            .contains("move its disks"),
        "{error:?}"
    );
    assert_eq!(rig.sent("POST", "/status/reboot").await, 0);
    assert_eq!(rig.sent("POST", "/snapshot").await, 0);
    // Known: refused before anyone is asked.
    cluster.check_snapshot_support().await;
    assert_eq!(
        cluster.known_snapshot_support(&"vm:pve1:100".parse().unwrap()),
        Some(false)
    );
    assert_eq!(
        cluster.known_snapshot_support(&"vm:pve1:101".parse().unwrap()),
        Some(true)
    );
    let asked = run(
        &executor,
        &mut session,
        "control",
        json!({"action": "guest", "target": "web", "operation": "reboot"}),
    )
    .await;
    let error = asked.response.error.clone().expect("refused");
    assert_eq!(error.code, ErrorCode::PolicyBlocked, "{error:?}");
    assert!(asked.approval.is_none());
    // A guest whose storage snapshots is promised the undo.
    let _ = run(
        &executor,
        &mut session,
        "query",
        json!({"action": "get", "target": "app"}),
    )
    .await;
    let asked = run(
        &executor,
        &mut session,
        "control",
        json!({"action": "guest", "target": "app", "operation": "reboot"}),
    )
    .await;
    let offer = asked.approval.unwrap().snapshot.unwrap();
    assert!(
        offer.take && offer.undoable.starts_with("undoable: a snapshot"),
        "{offer:?}"
    );
    // Under the default policy a power change of `web` promises no undo.
    let executor = rig.executor(ControlLevel::Controlled);
    let asked = run(
        &executor,
        &mut session,
        "control",
        json!({"action": "guest", "target": "web", "operation": "reboot"}),
    )
    .await;
    let offer = asked.approval.unwrap().snapshot.unwrap();
    assert!(
        !offer.take && offer.undoable.starts_with("not undoable"),
        "{offer:?}"
    );
}
