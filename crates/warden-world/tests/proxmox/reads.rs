//! Reads and inventory on a real fakepve: history, storage and backups, a
//! migration, 500 guests.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use warden_core::executor::Session;
use warden_core::ports::Inventory;
use warden_core::tools::history_text::render_history;
use warden_protocol::{ControlLevel, FsmState};

use super::{Rig, data, run};
use warden_testkit::fixtures::fakepve::FakeOptions;

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
    rig.proxmox.clusters()[0].cluster().refresh().await.unwrap();
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
    let members = rig.proxmox.clusters();
    let cluster = members[0].cluster();
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
