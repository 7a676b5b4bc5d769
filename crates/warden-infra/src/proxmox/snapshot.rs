//! One inventory snapshot of a cluster, indexed by id, by lower-cased name
//! or alias, and by vmid; and the guests that moved between two snapshots.

use std::collections::HashMap;

use serde::Serialize;
use warden_protocol::{Resource, ResourceId};

use super::inventory::{
    ClusterResources, GuestInfo, GuestKind, NodeInfo, SkippedEntry, StorageInfo, to_resources,
};

/// An immutable, indexed inventory. Shared behind an `Arc`: lookups borrow.
#[derive(Debug, Clone, Default)]
pub struct InventorySnapshot {
    cluster: String,
    /// Unix seconds when it was fetched.
    fetched_at: i64,
    resources: Vec<Resource>,
    parsed: ClusterResources,
    by_id: HashMap<ResourceId, usize>,
    by_name: HashMap<String, Vec<usize>>,
    /// vmid → index into `parsed.guests`.
    guest_by_vmid: HashMap<u32, usize>,
    node_by_name: HashMap<String, usize>,
}

impl InventorySnapshot {
    /// Builds the resources and the indexes.
    pub fn new(cluster: &str, parsed: ClusterResources, fetched_at: i64) -> Self {
        let resources = to_resources(cluster, &parsed);
        let mut by_id = HashMap::with_capacity(resources.len());
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::with_capacity(resources.len() * 2);
        for (index, resource) in resources.iter().enumerate() {
            by_id.insert(resource.id.clone(), index);
            for name in std::iter::once(&resource.name).chain(resource.aliases.iter()) {
                let slot = by_name.entry(name.to_lowercase()).or_default();
                if !slot.contains(&index) {
                    slot.push(index);
                }
            }
        }
        let guest_by_vmid = parsed
            .guests
            .iter()
            .enumerate()
            .map(|(i, g)| (g.vmid, i))
            .collect();
        let node_by_name = parsed
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        InventorySnapshot {
            cluster: cluster.to_string(),
            fetched_at,
            resources,
            parsed,
            by_id,
            by_name,
            guest_by_vmid,
            node_by_name,
        }
    }

    pub fn cluster(&self) -> &str {
        &self.cluster
    }

    pub fn fetched_at(&self) -> i64 {
        self.fetched_at
    }

    /// Every resource: nodes, then guests, then storages.
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    pub fn len(&self) -> usize {
        self.resources.len()
    }

    pub fn is_empty(&self) -> bool {
        self.resources.is_empty()
    }

    pub fn get(&self, id: &ResourceId) -> Option<&Resource> {
        self.by_id.get(id).map(|&i| &self.resources[i])
    }

    /// Resources whose name or an alias is `name` (case-insensitive).
    pub fn named<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a Resource> + 'a {
        self.by_name
            .get(&name.to_lowercase())
            .into_iter()
            .flatten()
            .map(|&i| &self.resources[i])
    }

    pub fn guests(&self) -> &[GuestInfo] {
        &self.parsed.guests
    }

    pub fn nodes(&self) -> &[NodeInfo] {
        &self.parsed.nodes
    }

    pub fn storages(&self) -> &[StorageInfo] {
        &self.parsed.storages
    }

    pub fn skipped(&self) -> &[SkippedEntry] {
        &self.parsed.skipped
    }

    pub fn guest_by_vmid(&self, vmid: u32) -> Option<&GuestInfo> {
        self.guest_by_vmid
            .get(&vmid)
            .map(|&i| &self.parsed.guests[i])
    }

    /// The guest with this id (`vm:pve1:101`): same kind, node and vmid.
    pub fn guest(&self, id: &ResourceId) -> Option<&GuestInfo> {
        let kind = GuestKind::from_resource_kind(id.kind)?;
        let vmid: u32 = id.uid.parse().ok()?;
        self.guest_by_vmid(vmid)
            .filter(|g| g.kind == kind && Some(g.node.as_str()) == id.host())
    }

    pub fn node(&self, name: &str) -> Option<&NodeInfo> {
        self.node_by_name.get(name).map(|&i| &self.parsed.nodes[i])
    }
}

/// A guest that now lives on another node: its id changed with the move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuestMove {
    pub cluster: String,
    pub vmid: u32,
    pub name: String,
    pub from: ResourceId,
    pub to: ResourceId,
}

/// Whether `now` is the guest `before` was (same vmid, kind and name),
/// wherever it lives: a vmid reused by another guest is not it.
pub fn same_guest(before: &GuestInfo, now: &GuestInfo) -> bool {
    before.vmid == now.vmid && before.kind == now.kind && before.name == now.name
}

/// Guests (same vmid, kind and name) whose node differs between the
/// snapshots. A vmid reused by another guest (the other kind, another name)
/// is a new guest, not a move.
pub fn detect_moves(before: &InventorySnapshot, after: &InventorySnapshot) -> Vec<GuestMove> {
    let mut moves = Vec::new();
    for guest in after.guests() {
        let Some(old) = before.guest_by_vmid(guest.vmid) else {
            continue;
        };
        if same_guest(old, guest) && old.node != guest.node {
            moves.push(GuestMove {
                cluster: after.cluster().to_string(),
                vmid: guest.vmid,
                name: guest.name.clone(),
                from: old.resource_id(),
                to: guest.resource_id(),
            });
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxmox::inventory::parse_cluster_resources;
    use proptest::prelude::*;
    use serde_json::json;

    fn snapshot(entries: serde_json::Value) -> InventorySnapshot {
        InventorySnapshot::new("lab", parse_cluster_resources(&entries).unwrap(), 0)
    }

    #[test]
    fn lookups_by_id_name_alias_and_vmid() {
        let snap = snapshot(json!([
            {"type": "node", "node": "pve1", "status": "online"},
            {"type": "qemu", "node": "pve1", "vmid": 101, "name": "Jellyfin", "tags": "media"},
            {"type": "lxc", "node": "pve1", "vmid": 141, "name": "homepage-docker"},
        ]));
        let id: ResourceId = "vm:pve1:101".parse().unwrap();
        assert_eq!(snap.get(&id).unwrap().name, "Jellyfin");
        let by_name: Vec<_> = snap.named("JELLYFIN").map(|r| r.id.to_string()).collect();
        assert_eq!(by_name, vec!["vm:pve1:101"]);
        assert_eq!(snap.named("media").count(), 1);
        assert_eq!(
            snap.named("141").next().unwrap().id.to_string(),
            "lxc:pve1:141"
        );
        assert_eq!(snap.named("nothing").count(), 0);
        assert_eq!(snap.guest(&id).unwrap().vmid, 101);
        // Right vmid, wrong node or kind: not this guest.
        assert!(snap.guest(&"vm:pve2:101".parse().unwrap()).is_none());
        assert!(snap.guest(&"lxc:pve1:101".parse().unwrap()).is_none());
        assert!(snap.node("pve1").unwrap().is_online());
        assert_eq!(snap.len(), 3);
    }

    #[test]
    fn a_migrated_guest_is_a_move_and_a_reused_vmid_is_not() {
        let before = snapshot(json!([
            {"type": "qemu", "node": "pve1", "vmid": 101, "name": "web"},
            {"type": "qemu", "node": "pve1", "vmid": 102, "name": "db"},
            {"type": "lxc", "node": "pve1", "vmid": 103, "name": "dns"},
            {"type": "qemu", "node": "pve1", "vmid": 104, "name": "old-app"},
        ]));
        let after = snapshot(json!([
            {"type": "qemu", "node": "pve2", "vmid": 101, "name": "web"},
            {"type": "qemu", "node": "pve1", "vmid": 102, "name": "db"},
            {"type": "qemu", "node": "pve2", "vmid": 103, "name": "new"},
            // Deleted, and its vmid given to another VM on another node.
            {"type": "qemu", "node": "pve2", "vmid": 104, "name": "new-app"},
        ]));
        let moves = detect_moves(&before, &after);
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].from.to_string(), "vm:pve1:101");
        assert_eq!(moves[0].to.to_string(), "vm:pve2:101");
        assert_eq!(moves[0].name, "web");
    }

    proptest! {
        /// Whatever the placement, a guest on another node in the second
        /// snapshot is reported exactly once, and nothing else is.
        #[test]
        fn moves_are_exactly_the_node_changes(placement in prop::collection::vec((0u8..3, 0u8..3), 1..40)) {
            let entries = |pick: fn(&(u8, u8)) -> u8| {
                let items: Vec<_> = placement.iter().enumerate().map(|(i, p)| json!({
                    "type": "qemu", "node": format!("pve{}", pick(p)), "vmid": 100 + i, "name": format!("g{i}")
                })).collect();
                snapshot(serde_json::Value::Array(items))
            };
            let before = entries(|p| p.0);
            let after = entries(|p| p.1);
            let moves = detect_moves(&before, &after);
            let expected = placement.iter().filter(|(a, b)| a != b).count();
            prop_assert_eq!(moves.len(), expected);
            for m in moves {
                prop_assert_eq!(after.guest(&m.to).map(|g| g.vmid), Some(m.vmid));
                prop_assert!(before.guest(&m.from).is_some());
            }
        }
    }
}
