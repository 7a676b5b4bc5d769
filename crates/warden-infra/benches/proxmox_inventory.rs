//! Inventory costs for a 500-guest cluster: parsing `/cluster/resources`,
//! building the indexed snapshot, and lookups by id and by name.
//!
//! `cargo bench -p warden-infra --bench proxmox_inventory`

use divan::{Bencher, black_box};
use serde_json::{Value, json};
use warden_infra::proxmox::InventorySnapshot;
use warden_infra::proxmox::inventory::parse_cluster_resources;
use warden_protocol::ResourceId;

fn main() {
    divan::main();
}

/// A `/cluster/resources` answer shaped like PVE's: 5 nodes, `guests`
/// guests (every third a container), two storages per node.
fn cluster_resources(guests: u32) -> Value {
    let mut items = Vec::new();
    for n in 1..=5 {
        items.push(
            json!({"id": format!("node/pve{n}"), "type": "node", "node": format!("pve{n}"),
            "status": "online", "maxcpu": 16, "maxmem": 68719476736_u64, "uptime": 86400}),
        );
        for storage in ["local", "local-zfs"] {
            items.push(json!({"id": format!("storage/pve{n}/{storage}"), "type": "storage",
                "node": format!("pve{n}"), "storage": storage, "status": "available",
                "plugintype": "zfspool", "content": "images,rootdir", "disk": "1000", "maxdisk": 100000}));
        }
    }
    for i in 0..guests {
        let vmid = 100 + i;
        let kind = if i % 3 == 2 { "lxc" } else { "qemu" };
        let mut item = json!({"id": format!("{kind}/{vmid}"), "type": kind, "node": format!("pve{}", i % 5 + 1),
            "vmid": vmid, "name": format!("guest-{vmid}"), "status": "running", "template": 0,
            "maxmem": "4294967296", "maxcpu": 2, "uptime": 1000 + i});
        if i % 4 == 0 {
            item["tags"] = json!(format!("prod;app{vmid}"));
        }
        items.push(item);
    }
    Value::Array(items)
}

#[divan::bench(args = [500, 2000])]
fn parse_and_index(bencher: Bencher, guests: u32) {
    let data = cluster_resources(guests);
    bencher.bench(|| {
        let parsed = parse_cluster_resources(black_box(&data)).unwrap_or_default();
        InventorySnapshot::new("bench", parsed, 0)
    });
}

#[divan::bench]
fn lookup_by_id(bencher: Bencher) {
    let snapshot = InventorySnapshot::new(
        "bench",
        parse_cluster_resources(&cluster_resources(500)).unwrap_or_default(),
        0,
    );
    let ids: Vec<ResourceId> = snapshot.resources().iter().map(|r| r.id.clone()).collect();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % ids.len();
        snapshot.get(black_box(&ids[next])).is_some()
    });
}

#[divan::bench]
fn lookup_by_name(bencher: Bencher) {
    let snapshot = InventorySnapshot::new(
        "bench",
        parse_cluster_resources(&cluster_resources(500)).unwrap_or_default(),
        0,
    );
    let names: Vec<String> = snapshot
        .resources()
        .iter()
        .map(|r| r.name.to_uppercase())
        .collect();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % names.len();
        snapshot.named(black_box(&names[next])).count()
    });
}
