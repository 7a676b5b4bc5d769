//! The connected clusters as one inventory source whose members can change
//! while a server runs (an admin adds or removes a cluster through the
//! API). Readers take an `Arc` of the current merge and never wait for a
//! cluster: a change builds a new merge and swaps it in.

use std::sync::{Arc, PoisonError, RwLock};

use warden_core::ports::{CompositeInventory, Inventory, InventorySnapshot};
use warden_protocol::ResourceId;

use super::ClusterInventory;

struct Members {
    /// In the order they joined (configuration order first).
    clusters: Vec<Arc<ClusterInventory>>,
    merged: Arc<CompositeInventory>,
}

impl Members {
    fn new(clusters: Vec<Arc<ClusterInventory>>) -> Self {
        let sources = clusters
            .iter()
            .map(|c| Arc::clone(c) as Arc<dyn Inventory>)
            .collect();
        Members {
            clusters,
            merged: Arc::new(CompositeInventory::new(sources)),
        }
    }
}

/// Every connected cluster's inventory, merged (first cluster wins an id
/// reported twice).
pub struct ClusterInventories {
    members: RwLock<Members>,
}

impl ClusterInventories {
    pub fn new(clusters: Vec<Arc<ClusterInventory>>) -> Self {
        ClusterInventories {
            members: RwLock::new(Members::new(clusters)),
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
        clusters.push(cluster);
        *members = Members::new(clusters);
    }

    pub(super) fn leave(&self, name: &str) {
        let mut members = self.members.write().unwrap_or_else(PoisonError::into_inner);
        let clusters = members
            .clusters
            .iter()
            .filter(|c| c.name() != name)
            .cloned()
            .collect();
        *members = Members::new(clusters);
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
