//! The configured Proxmox VE clusters as part of Warden: each cluster an
//! inventory source (converted once per refresh into the core's indexed
//! snapshot; migrated guests followed by id) and one guest API over all of
//! them, with the background refresh. [`connect`] builds it all; `warden
//! chat/ask/approvals/explain` get it through `World`, and `warden serve`
//! calls the same function. A cluster that cannot be used is reported once,
//! with its specific error, and Warden goes on without it.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use warden_core::ports::{Inventory, InventorySnapshot, Unreadable};
use warden_infra::proxmox::{
    BackupJob, BackupReport, GuestBackup, ProxmoxCluster, ProxmoxConfig, RefreshReport, RefreshTask,
};
use warden_protocol::{Resource, ResourceId, ResourceKind};

pub mod admin;
mod api;
pub mod check;
pub mod clusters;
mod errors;
mod members;

pub use api::ProxmoxApi;
pub use members::ClusterInventories;

/// How long the first inventory of a cluster may take before Warden goes on
/// without it (the background refresh keeps trying).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a cluster an admin adds may take to give its first inventory:
/// the admin waits for the answer (and is told to check the URL).
pub const JOIN_TIMEOUT: Duration = Duration::from_secs(8);

/// One cluster as an inventory source.
pub struct ClusterInventory {
    cluster: Arc<ProxmoxCluster>,
    /// The connector's last snapshot and its conversion.
    converted: Mutex<Option<Converted>>,
}

struct Converted {
    from: Arc<warden_infra::proxmox::InventorySnapshot>,
    /// The cluster's error state it was made with.
    unreadable: Option<String>,
    to: Arc<InventorySnapshot>,
}

impl ClusterInventory {
    pub fn new(cluster: Arc<ProxmoxCluster>) -> Self {
        ClusterInventory {
            cluster,
            converted: Mutex::new(None),
        }
    }

    pub fn cluster(&self) -> &Arc<ProxmoxCluster> {
        &self.cluster
    }

    pub fn name(&self) -> &str {
        self.cluster.name()
    }
}

impl Inventory for ClusterInventory {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        let current = self.cluster.inventory();
        let unreadable = self.cluster.unreadable();
        let mut converted = self
            .converted
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(last) = converted.as_ref() {
            if Arc::ptr_eq(&last.from, &current) && last.unreadable == unreadable {
                return Arc::clone(&last.to);
            }
        }
        // Once per refresh, not per call. A cluster that cannot be read
        // says so: it is not an empty cluster.
        let to = Arc::new(
            InventorySnapshot::new(current.resources().to_vec()).with_unreadable(
                unreadable
                    .iter()
                    .map(|reason| Unreadable::proxmox(self.name(), reason.clone()))
                    .collect(),
            ),
        );
        *converted = Some(Converted {
            from: current,
            unreadable,
            to: Arc::clone(&to),
        });
        to
    }

    fn moved_to(&self, id: &ResourceId) -> Option<ResourceId> {
        let now = self.cluster.current_id(id);
        if now != *id {
            return Some(now);
        }
        // Moved before this process saw it where it was (an approval
        // decided from another process after a migration): the guest of
        // the same vmid and kind; the caller checks it is the same guest.
        if !matches!(id.kind, ResourceKind::Vm | ResourceKind::Lxc) {
            return None;
        }
        let inventory = self.cluster.inventory();
        if inventory.guest(id).is_some() {
            return None;
        }
        let vmid: u32 = id.uid.parse().ok()?;
        inventory
            .guest_by_vmid(vmid)
            .filter(|g| g.kind.resource_kind() == id.kind)
            .map(|g| g.resource_id())
    }
}

/// What connecting to one cluster found.
#[derive(Debug)]
pub struct Connected {
    pub cluster: String,
    pub result: Result<RefreshReport, String>,
    pub elapsed: Duration,
}

/// The clusters, their inventories, the API over them and their refresh.
/// Clusters may join and leave while a server runs ([`ProxmoxWorld::join`]).
pub struct ProxmoxWorld {
    pub inventories: Arc<ClusterInventories>,
    pub api: ProxmoxApi,
    /// How each cluster's first inventory went (or why it is not used), at
    /// start.
    pub connected: Vec<Connected>,
    /// Each member's refresh, by cluster name; a task stops when dropped.
    refresh: Mutex<Vec<(String, RefreshTask)>>,
}

/// Why a cluster did not join.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error("a cluster named `{0}` is already connected")]
    Duplicate(String),
    #[error(transparent)]
    Proxmox(#[from] warden_infra::proxmox::ProxmoxError),
    #[error(
        "Proxmox cluster `{0}` gave no inventory within {secs} s: is the URL right and the node up?",
        secs = JOIN_TIMEOUT.as_secs()
    )]
    Timeout(String),
}

impl ProxmoxWorld {
    /// No clusters.
    pub fn none() -> Self {
        ProxmoxWorld {
            inventories: Arc::new(ClusterInventories::new(Vec::new())),
            api: ProxmoxApi::new(Vec::new()),
            connected: Vec::new(),
            refresh: Mutex::new(Vec::new()),
        }
    }

    /// The members now, in the order they joined.
    pub fn clusters(&self) -> Vec<Arc<ClusterInventory>> {
        self.inventories.clusters()
    }

    /// Connect one more cluster: it joins only if its first inventory
    /// arrives (within [`JOIN_TIMEOUT`]), so a wrong secret or a
    /// certificate mismatch is reported and nothing changes. Then it is
    /// refreshed like the others.
    pub async fn join(&self, config: &ProxmoxConfig) -> Result<RefreshReport, JoinError> {
        if self.clusters().iter().any(|c| c.name() == config.name) {
            return Err(JoinError::Duplicate(config.name.clone()));
        }
        let cluster = Arc::new(ProxmoxCluster::from_config(config)?);
        let report = tokio::time::timeout(JOIN_TIMEOUT, cluster.refresh())
            .await
            .map_err(|_| JoinError::Timeout(config.name.clone()))??;
        let task = cluster.spawn_later_refresh_task(cluster.settings().refresh_interval);
        let checking = Arc::clone(&cluster);
        tokio::spawn(async move { checking.check_snapshot_support().await });
        let mut refresh = self.refresh.lock().unwrap_or_else(PoisonError::into_inner);
        // Checked again under the lock: two admins adding the same name.
        if self.clusters().iter().any(|c| c.name() == config.name) {
            return Err(JoinError::Duplicate(config.name.clone()));
        }
        refresh.push((config.name.clone(), task));
        self.api.join(Arc::clone(&cluster));
        self.inventories
            .join(Arc::new(ClusterInventory::new(cluster)));
        Ok(report)
    }

    /// Disconnect a cluster: its resources leave the inventory and its
    /// refresh stops (nothing happens for a name that is not a member).
    pub fn leave(&self, name: &str) {
        let mut refresh = self.refresh.lock().unwrap_or_else(PoisonError::into_inner);
        refresh.retain(|(member, _)| member != name);
        self.api.leave(name);
        self.inventories.leave(name);
    }

    /// One line per cluster that is not usable, for the operator (once).
    pub fn problems(&self) -> Vec<String> {
        self.connected
            .iter()
            .filter_map(|c| {
                c.result.as_ref().err().map(|error| {
                    format!("proxmox `{}`: {error} (continuing without it)", c.cluster)
                })
            })
            .collect()
    }
}

/// Validate every `[[proxmox]]` entry, read each cluster's inventory once
/// (concurrently, at most [`CONNECT_TIMEOUT`] each) and start the
/// background refresh (every `refresh_interval_secs`, default 30 s). Must
/// be called within `runtime`'s context or with it given. A cluster whose
/// entry is invalid is left out; one that does not answer is kept (its
/// refresh keeps trying) and reported.
pub async fn connect(configs: &[ProxmoxConfig]) -> ProxmoxWorld {
    let mut connected = Vec::new();
    let mut clusters = Vec::new();
    for config in configs {
        match ProxmoxCluster::from_config(config) {
            Ok(cluster) => clusters.push(Arc::new(cluster)),
            Err(error) => connected.push(Connected {
                cluster: config.name.clone(),
                result: Err(error.to_string()),
                elapsed: Duration::ZERO,
            }),
        }
    }
    let first = clusters.iter().map(|cluster| async move {
        let started = Instant::now();
        let result = match tokio::time::timeout(CONNECT_TIMEOUT, cluster.refresh()).await {
            Ok(Ok(report)) => Ok(report),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => {
                let reason = format!(
                    "no inventory within {} s (it keeps trying in the background)",
                    CONNECT_TIMEOUT.as_secs()
                );
                cluster.mark_unreadable(reason.clone());
                Err(reason)
            }
        };
        Connected {
            cluster: cluster.name().to_string(),
            result,
            elapsed: started.elapsed(),
        }
    });
    connected.extend(futures_util::future::join_all(first).await);
    // Which guests can be snapshotted, learnt in the background.
    for cluster in &clusters {
        let cluster = Arc::clone(cluster);
        tokio::spawn(async move { cluster.check_snapshot_support().await });
    }
    let refresh = clusters
        .iter()
        .map(|c| {
            let task = c.spawn_later_refresh_task(c.settings().refresh_interval);
            (c.name().to_string(), task)
        })
        .collect();
    // A cluster whose settings cannot even be used (its secret unset) is
    // in the inventory as a source that cannot be read, not left out.
    let unusable = connected
        .iter()
        .filter(|c| !clusters.iter().any(|m| m.name() == c.cluster))
        .filter_map(|c| {
            c.result
                .as_ref()
                .err()
                .map(|reason| Unreadable::proxmox(&c.cluster, reason.clone()))
        })
        .collect();
    ProxmoxWorld {
        inventories: Arc::new(ClusterInventories::with_unusable(
            clusters
                .iter()
                .map(|c| Arc::new(ClusterInventory::new(Arc::clone(c))))
                .collect(),
            unusable,
        )),
        api: ProxmoxApi::new(clusters),
        connected,
        refresh: Mutex::new(refresh),
    }
}

/// The node a resource lives on (`pve1` for `lxc:pve1:141`, `node:pve1`,
/// `storage:pve1:local`).
fn node_name(resource: &Resource) -> String {
    warden_protocol::routing::node_of(resource).uid
}

/// The backups that concern `target`: one guest, the guests of one node,
/// or all of them for a storage.
fn backups_of(target: &Resource, report: &BackupReport) -> Value {
    let guests: Vec<GuestBackup> = report
        .guests
        .iter()
        .filter(|g| match target.id.kind {
            ResourceKind::Vm | ResourceKind::Lxc => g.target.uid == target.id.uid,
            ResourceKind::Node => g.target.host() == Some(target.id.uid.as_str()),
            _ => true,
        })
        .cloned()
        .collect();
    backups_summary(&guests, &report.jobs)
}

/// Each guest's newest backup with its age in words, guests without one
/// counted, and the jobs.
fn backups_summary(guests: &[GuestBackup], jobs: &[BackupJob]) -> Value {
    let rows: Vec<Value> = guests
        .iter()
        .map(|g| {
            json!({
                "target": g.target.to_string(),
                "name": g.name,
                "last_backup": g.last.as_ref().map(|last| json!({
                    "volid": last.archive.volid,
                    "storage": last.archive.storage,
                    "created_at": last.archive.created_at,
                    "age_secs": last.age_secs,
                    "age": last.age_secs.map(age_in_words),
                    "size_bytes": last.archive.size_bytes,
                    "archives": last.archives,
                })),
            })
        })
        .collect();
    let without: Vec<String> = guests
        .iter()
        .filter(|g| g.last.is_none())
        .map(|g| g.target.to_string())
        .collect();
    json!({"guests": rows, "without_backup": without, "jobs": jobs})
}

/// `45 min`, `3 h`, `2 d`.
fn age_in_words(secs: u64) -> String {
    match secs {
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 2 * 86400 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_words() {
        for (secs, words) in [
            (0, "0 min"),
            (2700, "45 min"),
            (3 * 3600, "3 h"),
            (47 * 3600, "47 h"),
            (3 * 86400, "3 d"),
        ] {
            assert_eq!(age_in_words(secs), words);
        }
    }

    #[test]
    fn backups_are_filtered_to_the_target() {
        let guest = |id: &str, name: &str| GuestBackup {
            target: id.parse().unwrap(),
            name: name.into(),
            last: None,
        };
        let report = BackupReport {
            guests: vec![guest("vm:pve1:101", "web"), guest("lxc:pve2:141", "dns")],
            jobs: Vec::new(),
        };
        let of = |id: &str| {
            let value = backups_of(&Resource::new(id.parse().unwrap(), "x"), &report);
            value["guests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["target"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(of("vm:pve1:101"), vec!["vm:pve1:101"]);
        assert_eq!(of("node:pve2"), vec!["lxc:pve2:141"]);
        assert_eq!(of("storage:pve1:local").len(), 2);
        let all = backups_summary(&report.guests, &report.jobs);
        assert_eq!(all["without_backup"].as_array().unwrap().len(), 2);
    }
}
