//! Several inventories as one (this machine, each Proxmox cluster, later
//! agents): their snapshots merged into one indexed snapshot. The merge is
//! redone only when a source publishes a new snapshot (a new `Arc`); a call
//! that finds every source unchanged gets the last merge (an `Arc` clone).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use warden_protocol::{Resource, ResourceId};

use super::{Inventory, InventorySnapshot};

/// The resources of `parts`, in source order, each id once: the first
/// source that reports an id wins (this machine before clusters, clusters
/// in configuration order). Returns the merged snapshot and the ids that
/// were reported again and left out. Pure.
pub fn merge_snapshots(parts: &[Arc<InventorySnapshot>]) -> (InventorySnapshot, Vec<ResourceId>) {
    let total = parts.iter().map(|p| p.len()).sum();
    let mut seen: HashSet<&ResourceId> = HashSet::with_capacity(total);
    let mut resources: Vec<Resource> = Vec::with_capacity(total);
    let mut duplicates = Vec::new();
    let unreadable = parts
        .iter()
        .flat_map(|p| p.unreadable().iter().cloned())
        .collect();
    for part in parts {
        for resource in part.all() {
            if seen.insert(&resource.id) {
                resources.push(resource.clone());
            } else {
                duplicates.push(resource.id.clone());
            }
        }
    }
    (
        InventorySnapshot::new(resources).with_unreadable(unreadable),
        duplicates,
    )
}

struct Merged {
    /// The source snapshots this merge was made from.
    parts: Vec<Arc<InventorySnapshot>>,
    snapshot: Arc<InventorySnapshot>,
}

/// An [`Inventory`] over several sources.
pub struct CompositeInventory {
    sources: Vec<Arc<dyn Inventory>>,
    merged: Mutex<Option<Merged>>,
}

impl CompositeInventory {
    pub fn new(sources: Vec<Arc<dyn Inventory>>) -> Self {
        CompositeInventory {
            sources,
            merged: Mutex::new(None),
        }
    }

    pub fn sources(&self) -> &[Arc<dyn Inventory>] {
        &self.sources
    }
}

impl Inventory for CompositeInventory {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        let parts: Vec<Arc<InventorySnapshot>> =
            self.sources.iter().map(|s| s.snapshot()).collect();
        let mut merged = self.merged.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(last) = merged.as_ref() {
            let unchanged = last.parts.len() == parts.len()
                && last
                    .parts
                    .iter()
                    .zip(&parts)
                    .all(|(a, b)| Arc::ptr_eq(a, b));
            if unchanged {
                return Arc::clone(&last.snapshot);
            }
        }
        let snapshot = Arc::new(merge_snapshots(&parts).0);
        *merged = Some(Merged {
            parts,
            snapshot: Arc::clone(&snapshot),
        });
        snapshot
    }

    fn moved_to(&self, id: &ResourceId) -> Option<ResourceId> {
        self.sources.iter().find_map(|s| s.moved_to(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::RwLock;

    fn resource(id: &str, name: &str) -> Resource {
        Resource::new(id.parse().unwrap(), name)
    }

    /// A source whose snapshot a test swaps, like a connector's refresh.
    struct Swappable(RwLock<Arc<InventorySnapshot>>);

    impl Swappable {
        fn new(resources: Vec<Resource>) -> Arc<Self> {
            Arc::new(Swappable(RwLock::new(Arc::new(InventorySnapshot::new(
                resources,
            )))))
        }

        fn publish(&self, resources: Vec<Resource>) {
            *self.0.write().unwrap() = Arc::new(InventorySnapshot::new(resources));
        }
    }

    impl Inventory for Swappable {
        fn snapshot(&self) -> Arc<InventorySnapshot> {
            Arc::clone(&self.0.read().unwrap())
        }

        fn moved_to(&self, id: &ResourceId) -> Option<ResourceId> {
            (id.to_string() == "vm:pve1:101").then(|| "vm:pve2:101".parse().unwrap())
        }
    }

    #[test]
    fn merge_keeps_source_order_and_the_first_of_each_id() {
        /// Sources of (id, name), the merged ids, the ids left out.
        type Case = (
            Vec<Vec<(&'static str, &'static str)>>,
            Vec<&'static str>,
            Vec<&'static str>,
        );
        let cases: Vec<Case> = vec![
            (vec![], vec![], vec![]),
            (
                vec![vec![("host:web1", "web1")], vec![("node:pve1", "pve1")]],
                vec!["host:web1", "node:pve1"],
                vec![],
            ),
            (
                vec![
                    vec![("node:pve1", "first")],
                    vec![("node:pve1", "second"), ("vm:pve1:101", "web")],
                ],
                vec!["node:pve1", "vm:pve1:101"],
                vec!["node:pve1"],
            ),
        ];
        for (parts, ids, duplicates) in cases {
            let parts: Vec<Arc<InventorySnapshot>> = parts
                .into_iter()
                .map(|p| {
                    Arc::new(InventorySnapshot::new(
                        p.into_iter().map(|(id, n)| resource(id, n)).collect(),
                    ))
                })
                .collect();
            let (merged, dup) = merge_snapshots(&parts);
            let got: Vec<String> = merged.all().iter().map(|r| r.id.to_string()).collect();
            assert_eq!(got, ids);
            let dup: Vec<String> = dup.iter().map(ToString::to_string).collect();
            assert_eq!(dup, duplicates);
        }
        let parts = vec![
            Arc::new(InventorySnapshot::new(vec![resource("node:pve1", "first")])),
            Arc::new(InventorySnapshot::new(vec![resource(
                "node:pve1",
                "second",
            )])),
        ];
        let (merged, _) = merge_snapshots(&parts);
        assert_eq!(merged.find("first").len(), 1);
        assert!(merged.find("second").is_empty());
    }

    #[test]
    fn the_merge_is_redone_only_when_a_source_publishes() {
        let local = Swappable::new(vec![resource("host:web1", "web1")]);
        let cluster = Swappable::new(vec![resource("node:pve1", "pve1")]);
        let composite = CompositeInventory::new(vec![
            Arc::clone(&local) as Arc<dyn Inventory>,
            Arc::clone(&cluster) as Arc<dyn Inventory>,
        ]);
        let first = composite.snapshot();
        assert_eq!(first.len(), 2);
        assert!(Arc::ptr_eq(&first, &composite.snapshot()));
        cluster.publish(vec![
            resource("node:pve1", "pve1"),
            resource("vm:pve1:101", "web"),
        ]);
        let second = composite.snapshot();
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.find("web").len(), 1);
        assert!(Arc::ptr_eq(&second, &composite.snapshot()));
        assert_eq!(
            composite
                .moved_to(&"vm:pve1:101".parse().unwrap())
                .map(|id| id.to_string()),
            Some("vm:pve2:101".to_string())
        );
    }
}
