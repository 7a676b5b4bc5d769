//! The connected clusters as one inventory source whose members can change
//! while a server runs (an admin adds or removes a cluster through the
//! API). Readers take an `Arc` of the current merge and never wait for a
//! cluster: a change builds a new merge and swaps it in.

use std::sync::{Arc, PoisonError, RwLock};

use warden_core::ports::{CompositeInventory, Inventory, InventorySnapshot, Unreadable};
use warden_protocol::ResourceId;

use super::ClusterInventory;

struct Members {
    /// In the order they joined (configuration order first).
    clusters: Vec<Arc<ClusterInventory>>,
    /// Configured clusters that could not be set up (their secret unset):
    /// no resources, and the reason.
    unusable: Arc<InventorySnapshot>,
    merged: Arc<CompositeInventory>,
}

/// The configured clusters that could not be set up, as a source.
struct Unusable(Arc<InventorySnapshot>);

impl Inventory for Unusable {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        Arc::clone(&self.0)
    }
}

impl Members {
    fn new(clusters: Vec<Arc<ClusterInventory>>, unusable: Arc<InventorySnapshot>) -> Self {
        let mut sources: Vec<Arc<dyn Inventory>> = clusters
            .iter()
            .map(|c| Arc::clone(c) as Arc<dyn Inventory>)
            .collect();
        if !unusable.unreadable().is_empty() {
            sources.push(Arc::new(Unusable(Arc::clone(&unusable))));
        }
        Members {
            clusters,
            unusable,
            merged: Arc::new(CompositeInventory::new(sources)),
        }
    }

    /// The members with `clusters`, the unusable ones but `name` kept.
    fn replaced(&self, clusters: Vec<Arc<ClusterInventory>>, name: Option<&str>) -> Self {
        let source = name.map(|n| format!("Proxmox cluster `{n}`"));
        let unusable = self
            .unusable
            .unreadable()
            .iter()
            .filter(|u| source.as_ref() != Some(&u.source))
            .cloned()
            .collect();
        Members::new(
            clusters,
            Arc::new(InventorySnapshot::new(Vec::new()).with_unreadable(unusable)),
        )
    }
}

/// Every connected cluster's inventory, merged (first cluster wins an id
/// reported twice).
pub struct ClusterInventories {
    members: RwLock<Members>,
}

impl ClusterInventories {
    pub fn new(clusters: Vec<Arc<ClusterInventory>>) -> Self {
        Self::with_unusable(clusters, Vec::new())
    }

    /// The clusters, and the configured ones that could not be set up
    /// (their inventory says they cannot be read).
    pub fn with_unusable(clusters: Vec<Arc<ClusterInventory>>, unusable: Vec<Unreadable>) -> Self {
        ClusterInventories {
            members: RwLock::new(Members::new(
                clusters,
                Arc::new(InventorySnapshot::new(Vec::new()).with_unreadable(unusable)),
            )),
        }
    }

    pub fn clusters(&self) -> Vec<Arc<ClusterInventory>> {
        self.members
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clusters
            .clone()
    }

    pub(super) fn join(&self, cluster: Arc<ClusterInventory>) {
        let mut members = self.members.write().unwrap_or_else(PoisonError::into_inner);
        let mut clusters = members.clusters.clone();
        let name = cluster.name().to_string();
        clusters.push(cluster);
        *members = members.replaced(clusters, Some(&name));
    }

    pub(super) fn leave(&self, name: &str) {
        let mut members = self.members.write().unwrap_or_else(PoisonError::into_inner);
        let clusters = members
            .clusters
            .iter()
            .filter(|c| c.name() != name)
            .cloned()
            .collect();
        *members = members.replaced(clusters, Some(name));
    }

    fn merged(&self) -> Arc<CompositeInventory> {
        Arc::clone(
            &self
                .members
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .merged,
        )
    }
}

impl Inventory for ClusterInventories {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        self.merged().snapshot()
    }

    fn moved_to(&self, id: &ResourceId) -> Option<ResourceId> {
        self.clusters().iter().find_map(|c| c.moved_to(id))
    }
}
