//! Whether PVE can snapshot a guest (`GET …/feature?feature=snapshot`: every
//! disk on storage that takes snapshots), so that an approval card promises
//! no undo PVE would refuse. Answers are kept per guest id (a migrated guest
//! is asked again); guests not asked yet are asked after each refresh, a
//! few at a time, and a change is checked live before its snapshot.

use std::collections::HashMap;
use std::sync::RwLock;

use futures_util::StreamExt;
use warden_protocol::ResourceId;

use super::client::PveClient;
use super::cluster::ProxmoxCluster;
use super::error::ProxmoxError;
use super::inventory::GuestInfo;
use super::values::bool_field;

/// Feature checks in flight at once while warming the cache.
const CHECKS_AT_ONCE: usize = 8;

/// What was learnt, by guest id.
#[derive(Debug, Default)]
pub struct SupportCache(RwLock<HashMap<ResourceId, bool>>);

impl SupportCache {
    pub fn get(&self, id: &ResourceId) -> Option<bool> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .copied()
    }

    fn put(&self, id: ResourceId, can: bool) {
        self.0
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, can);
    }
}

/// PVE's answer for one guest.
pub async fn has_snapshot_feature(
    client: &PveClient,
    guest: &GuestInfo,
) -> Result<bool, ProxmoxError> {
    let path = guest.api_path().join(["feature"]);
    let data = client
        .get(&path, &[("feature", "snapshot".to_string())])
        .await
        .map_err(|e| e.needing_privilege("VM.Audit"))?;
    Ok(bool_field(&data, "hasFeature").unwrap_or(false))
}

/// Why PVE refuses snapshots of a guest, for people.
pub const UNSUPPORTED_REASON: &str = "PVE reports no snapshot feature for its disks: they are on storage \
     without snapshots (LVM, a directory with raw images, NFS raw)";

impl ProxmoxCluster {
    /// Asks PVE now (and remembers) whether the guest can be snapshotted.
    pub async fn can_snapshot(&self, target: &ResourceId) -> Result<bool, ProxmoxError> {
        let client = self.client();
        let cache = &self.snapshot_support;
        self.on_guest(target, |guest| async move {
            let can = has_snapshot_feature(client, &guest).await?;
            cache.put(guest.resource_id(), can);
            Ok(can)
        })
        .await
    }

    /// What is known without asking: `None` until the guest was checked.
    pub fn known_snapshot_support(&self, target: &ResourceId) -> Option<bool> {
        self.snapshot_support.get(&self.current_id(target))
    }

    /// Asks about every guest of the inventory not asked yet (templates
    /// aside), a few at a time. Failures leave a guest unknown.
    pub async fn check_snapshot_support(&self) {
        let inventory = self.inventory();
        let unknown: Vec<&GuestInfo> = inventory
            .guests()
            .iter()
            .filter(|g| !g.template && self.snapshot_support.get(&g.resource_id()).is_none())
            .collect();
        let client = self.client();
        let cache = &self.snapshot_support;
        futures_util::stream::iter(unknown)
            .for_each_concurrent(CHECKS_AT_ONCE, |guest| async move {
                match has_snapshot_feature(client, guest).await {
                    Ok(can) => cache.put(guest.resource_id(), can),
                    Err(err) => tracing::debug!(guest = %guest.resource_id(), %err,
                        "snapshot feature check failed"),
                }
            })
            .await;
    }
}
