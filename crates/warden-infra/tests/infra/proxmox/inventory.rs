//! Inventory from `/cluster/resources` of the fake: ids, parents, aliases,
//! migration, the background refresh, and the 500-guest timing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use warden_infra::proxmox::PowerOperation;
use warden_protocol::{ResourceId, ResourceKind};

use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve};

fn id(text: &str) -> ResourceId {
    text.parse().unwrap()
}

#[tokio::test]
async fn a_generated_cluster_is_inventoried_with_parents_and_aliases() {
    let fake = FakePve::start(FakeOptions {
        generate: 30,
        nodes: 3,
        time_scale: 0.0,
    })
    .await;
    let cluster = fake.cluster();
    let report = cluster.refresh().await.unwrap();
    assert_eq!((report.nodes, report.guests, report.skipped), (3, 30, 0));
    // Two storages (local, local-lvm) seen from each node.
    assert_eq!(report.storages, 6);
    let inventory = cluster.inventory();
    let vm = inventory.get(&id("vm:pve1:100")).unwrap();
    assert_eq!(vm.name, "vm-100");
    assert_eq!(vm.parent, Some(id("node:pve1")));
    assert_eq!(vm.status.as_deref(), Some("running"));
    assert_eq!(vm.attributes["tags"], json!(["gen", "batch0"]));
    let ct = inventory.get(&id("lxc:pve3:102")).unwrap();
    assert_eq!(ct.name, "ct-102");
    assert_eq!(ct.parent, Some(id("node:pve3")));
    assert_eq!(
        inventory.get(&id("vm:pve1:109")).unwrap().status.as_deref(),
        Some("stopped")
    );
    let storage = inventory.get(&id("storage:pve2:local-lvm")).unwrap();
    assert_eq!(storage.parent, Some(id("node:pve2")));
    assert_eq!(
        inventory.named("CT-102").next().unwrap().id,
        id("lxc:pve3:102")
    );
    assert_eq!(
        inventory.named("102").next().unwrap().id,
        id("lxc:pve3:102")
    );
    // `gen` is on many guests: never an alias.
    assert_eq!(inventory.named("gen").count(), 0);
    for resource in inventory.resources() {
        if let Some(parent) = &resource.parent {
            assert!(
                inventory.get(parent).is_some(),
                "{} has a dangling parent",
                resource.id
            );
        }
        assert_eq!(resource.attributes["cluster"], "fake");
        assert!(matches!(
            resource.id.kind,
            ResourceKind::Node | ResourceKind::Vm | ResourceKind::Lxc | ResourceKind::Storage
        ));
    }
}

#[tokio::test]
async fn a_migrated_guest_keeps_its_identity_and_the_session_is_told() {
    let fake = FakePve::start(FakeOptions {
        generate: 6,
        nodes: 2,
        time_scale: 0.0,
    })
    .await;
    let cluster = fake.cluster();
    cluster.refresh().await.unwrap();
    let mut moves = cluster.subscribe_moves();
    fake.control(json!({"op": "move", "vmid": 100, "node": "pve2"}))
        .await;
    let report = cluster.refresh().await.unwrap();
    assert_eq!(report.moves.len(), 1);
    let told = moves.try_recv().unwrap();
    assert_eq!(
        (told.from.clone(), told.to.clone()),
        (id("vm:pve1:100"), id("vm:pve2:100"))
    );
    assert_eq!(told.name, "vm-100");
    assert!(cluster.inventory().get(&id("vm:pve1:100")).is_none());
    assert_eq!(cluster.current_id(&id("vm:pve1:100")), id("vm:pve2:100"));
    // The old id still reaches the guest where it is now.
    let outcome = cluster
        .power(&id("vm:pve1:100"), PowerOperation::Stop)
        .await
        .unwrap();
    assert_eq!(outcome.target, id("vm:pve2:100"));
    assert_eq!(outcome.status_after, "stopped");
    // And back again: the first id leads to the newest place.
    fake.control(json!({"op": "move", "vmid": 100, "node": "pve1"}))
        .await;
    cluster.refresh().await.unwrap();
    assert_eq!(cluster.current_id(&id("vm:pve2:100")), id("vm:pve1:100"));
    assert_eq!(cluster.current_id(&id("vm:pve1:100")), id("vm:pve1:100"));
}

#[tokio::test]
async fn the_background_refresh_picks_up_changes() {
    let fake = FakePve::start(FakeOptions::default()).await;
    let cluster = Arc::new(fake.cluster());
    let task = cluster.spawn_refresh_task(Duration::from_millis(100));
    fake.add_vm(100, "late", "running").await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while cluster.inventory().get(&id("vm:pve1:100")).is_none() {
        assert!(
            Instant::now() < deadline,
            "the background refresh never saw vm 100"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(task);
    // Stopped: a new guest is not seen any more.
    fake.add_vm(101, "later", "running").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(cluster.inventory().get(&id("vm:pve1:101")).is_none());
}

/// The numbers: 500 guests inventoried in ≤ 2 s, a refresh in
/// ≤ 500 ms, and lookups answered from the indexes (here 30 000 of them).
#[tokio::test]
async fn five_hundred_guests_within_the_budget() {
    let fake = FakePve::start(FakeOptions {
        generate: 500,
        nodes: 5,
        time_scale: 0.0,
    })
    .await;
    let cluster = fake.cluster();
    let started = Instant::now();
    let first = cluster.refresh().await.unwrap();
    let first_time = started.elapsed();
    assert_eq!(first.guests, 500);
    let mut refreshes = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        cluster.refresh().await.unwrap();
        refreshes.push(started.elapsed());
    }
    refreshes.sort();
    let median_refresh = refreshes[2];
    let inventory = cluster.inventory();
    let ids: Vec<ResourceId> = inventory.resources().iter().map(|r| r.id.clone()).collect();
    let names: Vec<String> = inventory
        .resources()
        .iter()
        .map(|r| r.name.to_uppercase())
        .collect();
    let started = Instant::now();
    let mut found = 0;
    for _ in 0..30 {
        for (id, name) in ids.iter().zip(&names) {
            found += usize::from(inventory.get(id).is_some());
            found += inventory.named(name).count().min(1);
        }
    }
    let lookups = started.elapsed();
    let lookup_count = 30 * ids.len() * 2;
    println!(
        "proxmox 500 guests: first inventory {first_time:?}, refresh median {median_refresh:?} (of {refreshes:?}), \
         {lookup_count} lookups in {lookups:?} ({:.0} ns each)",
        lookups.as_nanos() as f64 / lookup_count as f64
    );
    assert_eq!(found, lookup_count);
    assert!(
        first_time <= Duration::from_secs(2),
        "first inventory took {first_time:?}"
    );
    assert!(
        median_refresh <= Duration::from_millis(500),
        "refresh took {median_refresh:?}"
    );
    assert!(
        lookups <= Duration::from_millis(500),
        "{lookup_count} lookups took {lookups:?}"
    );
}
