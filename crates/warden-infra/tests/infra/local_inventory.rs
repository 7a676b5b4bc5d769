//! LocalInventory on this machine: the host resource from real /proc and
//! /etc, the cache, and (when the engine is reachable) a container the test
//! creates and removes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use std::time::Duration;

use support::{TestContainer, docker_engine_reachable};
use warden_infra::{DockerClient, DockerDiscovery, InventoryOptions, LocalInventory};
use warden_protocol::{ResourceId, ResourceKind};

fn inventory(docker: DockerDiscovery) -> LocalInventory {
    LocalInventory::with_options(InventoryOptions {
        docker,
        ..InventoryOptions::default()
    })
}

#[test]
fn this_machine_is_the_first_resource() {
    let inv = inventory(DockerDiscovery::Disabled);
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let expected = ResourceId::global(ResourceKind::Host, hostname.trim());
    assert_eq!(inv.host_id(), &expected);

    let resources = inv.resources();
    assert_eq!(resources.len(), 1, "docker discovery is disabled");
    let host = &resources[0];
    assert_eq!(host.id, expected);
    assert_eq!(host.name, hostname.trim());
    assert_eq!(host.status.as_deref(), Some("running"));
    for key in [
        "kernel",
        "cpus",
        "memory_bytes",
        "uptime_seconds",
        "systemd",
        "log_files",
        "journal_has_entries",
        "services_source",
        "services",
    ] {
        assert!(host.attributes.contains_key(key), "missing {key}: {host:?}");
    }
    let systemd = std::path::Path::new("/run/systemd/system").is_dir();
    assert_eq!(host.attributes["systemd"], systemd);
    let source = if systemd { "systemd" } else { "processes" };
    assert_eq!(host.attributes["services_source"], source);
    assert!(!host.attributes.contains_key("inventory_notes"), "{host:?}");
}

#[test]
fn a_missing_engine_is_a_note_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let inv = inventory(DockerDiscovery::Client(DockerClient::new(
        dir.path().join("docker.sock"),
    )));
    let resources = inv.resources();
    assert_eq!(resources.len(), 1);
    let notes = &resources[0].attributes["inventory_notes"];
    let note = notes[0].as_str().unwrap();
    assert!(
        note.starts_with("docker: Docker is not available here: the socket does not exist"),
        "{note}"
    );
}

#[test]
fn containers_are_listed_and_the_snapshot_is_cached() {
    if !docker_engine_reachable("containers_are_listed_and_the_snapshot_is_cached") {
        return;
    }
    let inv = LocalInventory::with_options(InventoryOptions {
        refresh_interval: Duration::from_secs(600),
        ..InventoryOptions::default()
    });
    let before = inv.resources();
    let container = TestContainer::new("inventory", true);
    let short_id = &container.id[..12];
    let expected_id = ResourceId::scoped(ResourceKind::DockerContainer, inv.hostname(), short_id);

    // Within the refresh interval the cached snapshot is served…
    let cached = inv.resources();
    assert!(cached.iter().all(|r| r.id != expected_id));
    assert_eq!(cached.len(), before.len());
    // …until a refresh is forced.
    let fresh = inv.refresh();
    let listed = fresh.iter().find(|r| r.id == expected_id).unwrap();
    assert_eq!(listed.name, container.name);
    assert_eq!(listed.parent.as_ref(), Some(inv.host_id()));
    assert_eq!(listed.status.as_deref(), Some("running"));
    assert!(listed.aliases.contains(&container.id));
    assert_eq!(listed.attributes["image"], support::image::TEST_IMAGE_TAG);
    assert!(
        listed.attributes["status_text"]
            .as_str()
            .unwrap()
            .starts_with("Up")
    );
    let host = &fresh[0];
    assert!(
        host.attributes["docker"]["api_version"].is_string(),
        "{host:?}"
    );
    // The refreshed snapshot is what is cached now.
    assert!(inv.resources().iter().any(|r| r.id == expected_id));
}

#[test]
fn a_zero_interval_always_discovers() {
    let inv = LocalInventory::with_options(InventoryOptions {
        refresh_interval: Duration::ZERO,
        docker: DockerDiscovery::Disabled,
        hostname: Some("test box".into()),
        ..InventoryOptions::default()
    });
    assert_eq!(inv.host_id().to_string(), "host:test-box");
    let first = inv.resources()[0].attributes["uptime_seconds"]
        .as_u64()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let second = inv.resources()[0].attributes["uptime_seconds"]
        .as_u64()
        .unwrap();
    assert!(second > first, "{first} then {second}");
}
