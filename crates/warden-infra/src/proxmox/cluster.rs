//! [`ProxmoxCluster`]: the handle the executor holds for one configured
//! cluster. It keeps an indexed inventory snapshot (swapped whole on every
//! refresh; readers hold an `Arc` and borrow from it), follows guests that
//! migrate, and carries out the reads and writes of the other modules,
//! refreshing the inventory after every write.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::broadcast;
use warden_protocol::{ResourceId, ResourceKind};

use super::client::{ApiPath, PveClient};
use super::config::{ConnectionSettings, ProxmoxConfig};
use super::control::{PowerOperation, PowerOutcome, power};
use super::error::ProxmoxError;
use super::guest_agent::{GuestCommandOutput, exec_in_vm};
use super::history::{HistoryTarget, fetch_history};
use super::inventory::{GuestInfo, parse_cluster_resources};
use super::rrd::{Metric, MetricHistory, Timeframe};
use super::snapshot::{GuestMove, InventorySnapshot, detect_moves};
use super::snapshot_support::SupportCache;
use super::snapshots::{
    RollbackOutcome, SnapshotInfo, create_snapshot, delete_snapshot, list_snapshots,
    pre_change_snapshot_name, rollback_snapshot,
};
use super::storage::{
    BackupJob, LastBackup, StoragePool, backup_archives, backup_jobs, last_backups, storage_pools,
};
use super::tasks::{TaskOutcome, TaskWait};
use super::values::{bool_field, text_field};

/// How long snapshot tasks may take.
const SNAPSHOT_WAIT: Duration = Duration::from_secs(600);

/// The cluster as `/version` and `/cluster/status` describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterStatus {
    pub cluster: String,
    pub version: Option<String>,
    /// `None` for a single node that is not in a cluster.
    pub quorate: Option<bool>,
    pub nodes: Vec<NodeState>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeState {
    pub name: String,
    pub online: bool,
}

/// What one refresh found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefreshReport {
    pub resources: usize,
    pub nodes: usize,
    pub guests: usize,
    pub storages: usize,
    /// Entries left out for missing identity (see the snapshot's `skipped`).
    pub skipped: usize,
    /// Guests that moved to another node since the last refresh.
    pub moves: Vec<GuestMove>,
    pub elapsed_ms: u64,
}

/// The snapshot taken before an approved change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreChangeSnapshot {
    pub target: ResourceId,
    pub name: String,
    pub task: TaskOutcome,
}

/// Each guest of the inventory and its newest backup (if any).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackupReport {
    pub guests: Vec<GuestBackup>,
    pub jobs: Vec<BackupJob>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuestBackup {
    pub target: ResourceId,
    pub name: String,
    pub last: Option<LastBackup>,
}

/// One configured cluster. Share it as `Arc<ProxmoxCluster>`.
pub struct ProxmoxCluster {
    settings: ConnectionSettings,
    client: PveClient,
    inventory: RwLock<Arc<InventorySnapshot>>,
    /// Old id → current id, for guests that migrated.
    moved: RwLock<HashMap<ResourceId, ResourceId>>,
    moves: broadcast::Sender<GuestMove>,
    refreshing: tokio::sync::Mutex<()>,
    /// Why the last refresh failed (cleared by the next that succeeds).
    unreadable: RwLock<Option<String>>,
    /// Which guests PVE can snapshot, as far as asked.
    pub(super) snapshot_support: SupportCache,
}

impl std::fmt::Debug for ProxmoxCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxmoxCluster")
            .field("cluster", &self.settings.cluster)
            .field("api_base", &self.settings.api_base.as_str())
            .finish()
    }
}

impl ProxmoxCluster {
    /// A handle for validated settings (no request is made; the inventory is empty).
    pub fn new(settings: ConnectionSettings) -> Result<Self, ProxmoxError> {
        let client = PveClient::new(&settings)?;
        let (moves, _) = broadcast::channel(256);
        Ok(ProxmoxCluster {
            inventory: RwLock::new(Arc::new(InventorySnapshot::new(
                &settings.cluster,
                Default::default(),
                0,
            ))),
            settings,
            client,
            moved: RwLock::new(HashMap::new()),
            moves,
            refreshing: tokio::sync::Mutex::new(()),
            unreadable: RwLock::new(None),
            snapshot_support: SupportCache::default(),
        })
    }

    /// Validates a `[[proxmox]]` entry (secret from the environment) and makes a handle.
    pub fn from_config(config: &ProxmoxConfig) -> Result<Self, ProxmoxError> {
        Self::new(config.resolve()?)
    }

    pub fn name(&self) -> &str {
        &self.settings.cluster
    }

    pub fn settings(&self) -> &ConnectionSettings {
        &self.settings
    }

    /// The raw API client, for reads this handle does not wrap.
    pub fn client(&self) -> &PveClient {
        &self.client
    }

    /// `/version` and `/cluster/status`: proves the URL, TLS trust and token work.
    pub async fn check(&self) -> Result<ClusterStatus, ProxmoxError> {
        let version = self.client.get(&ApiPath::new(["version"]), &[]).await?;
        let status = self
            .client
            .get(&ApiPath::new(["cluster", "status"]), &[])
            .await?;
        let items = status.as_array().map(Vec::as_slice).unwrap_or_default();
        let quorate = items
            .iter()
            .find(|i| text_field(i, "type").as_deref() == Some("cluster"))
            .and_then(|c| bool_field(c, "quorate"));
        let nodes = items
            .iter()
            .filter(|i| text_field(i, "type").as_deref() == Some("node"))
            .filter_map(|n| {
                Some(NodeState {
                    name: text_field(n, "name")?,
                    online: bool_field(n, "online").unwrap_or(false),
                })
            })
            .collect();
        Ok(ClusterStatus {
            cluster: self.settings.cluster.clone(),
            version: text_field(&version, "version"),
            quorate,
            nodes,
        })
    }

    /// The current snapshot. Cheap: clones an `Arc`.
    pub fn inventory(&self) -> Arc<InventorySnapshot> {
        match self.inventory.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Guest moves as refreshes find them (the session is told the new id).
    pub fn subscribe_moves(&self) -> broadcast::Receiver<GuestMove> {
        self.moves.subscribe()
    }

    /// Why the cluster cannot be read now (its last refresh failed, or
    /// none answered yet in time), `None` while it can.
    pub fn unreadable(&self) -> Option<String> {
        self.unreadable
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Records that the cluster could not be read (a first inventory that
    /// did not come in time); the next successful refresh clears it.
    pub fn mark_unreadable(&self, reason: impl Into<String>) {
        *self.unreadable.write().unwrap_or_else(|p| p.into_inner()) = Some(reason.into());
    }

    /// Reads `/cluster/resources` and swaps in a new snapshot. A failure is
    /// kept as the cluster's error state ([`Self::unreadable`]).
    pub async fn refresh(&self) -> Result<RefreshReport, ProxmoxError> {
        let result = self.refresh_once().await;
        *self.unreadable.write().unwrap_or_else(|p| p.into_inner()) =
            result.as_ref().err().map(ToString::to_string);
        result
    }

    async fn refresh_once(&self) -> Result<RefreshReport, ProxmoxError> {
        let _one_at_a_time = self.refreshing.lock().await;
        let started = std::time::Instant::now();
        let path = ApiPath::new(["cluster", "resources"]);
        let data = self
            .client
            .get(&path, &[])
            .await
            .map_err(|e| e.needing_privilege("Sys.Audit"))?;
        let parsed = parse_cluster_resources(&data)
            .map_err(|e| self.client.decode_error(&path, e.to_string()))?;
        let now = jiff::Timestamp::now().as_second();
        let fresh = Arc::new(InventorySnapshot::new(&self.settings.cluster, parsed, now));
        let previous = self.inventory();
        let moves = detect_moves(&previous, &fresh);
        if !moves.is_empty() {
            let mut moved = self.moved.write().unwrap_or_else(|p| p.into_inner());
            for m in &moves {
                // Earlier moves of the same guest now lead to its newest id.
                for target in moved.values_mut() {
                    if *target == m.from {
                        *target = m.to.clone();
                    }
                }
                moved.insert(m.from.clone(), m.to.clone());
                moved.remove(&m.to);
            }
        }
        let report = RefreshReport {
            resources: fresh.len(),
            nodes: fresh.nodes().len(),
            guests: fresh.guests().len(),
            storages: fresh.storages().len(),
            skipped: fresh.skipped().len(),
            moves: moves.clone(),
            elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        *self.inventory.write().unwrap_or_else(|p| p.into_inner()) = fresh;
        for m in moves {
            // Nobody listening is fine.
            let _ = self.moves.send(m);
        }
        Ok(report)
    }

    /// The id a resource has now: itself, or where a migrated guest went.
    pub fn current_id(&self, id: &ResourceId) -> ResourceId {
        let moved = self.moved.read().unwrap_or_else(|p| p.into_inner());
        moved.get(id).cloned().unwrap_or_else(|| id.clone())
    }

    /// The guest behind `id` in the inventory (following migrations,
    /// refreshing once if it is not known yet).
    pub async fn resolve_guest(&self, id: &ResourceId) -> Result<GuestInfo, ProxmoxError> {
        if let Some(guest) = self.lookup_guest(id)? {
            return Ok(guest);
        }
        self.refresh().await?;
        self.lookup_guest(id)?.ok_or_else(|| {
            let inventory = self.inventory();
            let hint = id
                .uid
                .parse::<u32>()
                .ok()
                .and_then(|vmid| inventory.guest_by_vmid(vmid))
                .map(|g| format!("vmid {} is {} `{}`", g.vmid, g.resource_id(), g.name))
                .or_else(|| Some("refresh the inventory (query list) to see the guests".into()));
            ProxmoxError::NotFound {
                cluster: self.settings.cluster.clone(),
                what: id.to_string(),
                hint,
            }
        })
    }

    fn lookup_guest(&self, id: &ResourceId) -> Result<Option<GuestInfo>, ProxmoxError> {
        if !matches!(id.kind, ResourceKind::Vm | ResourceKind::Lxc) {
            return Err(ProxmoxError::Unsupported {
                target: id.to_string(),
                operation: "guest operations".into(),
                reason: "only vm: and lxc: resources are Proxmox guests".into(),
            });
        }
        let inventory = self.inventory();
        let current = self.current_id(id);
        if let Some(guest) = inventory.guest(&current) {
            return Ok(Some(guest.clone()));
        }
        // Moved before this handle ever saw it where it was: same vmid and kind.
        let same_guest = id
            .uid
            .parse::<u32>()
            .ok()
            .and_then(|vmid| inventory.guest_by_vmid(vmid))
            .filter(|g| g.kind.resource_kind() == id.kind);
        Ok(same_guest.cloned())
    }

    pub(super) fn refuse_offline_node(&self, guest: &GuestInfo) -> Result<(), ProxmoxError> {
        match self.inventory().node(&guest.node) {
            Some(node) if !node.is_online() => Err(ProxmoxError::NodeOffline {
                cluster: self.settings.cluster.clone(),
                node: guest.node.clone(),
                message: format!(
                    "the inventory lists it as {}",
                    node.status.as_deref().unwrap_or("not online")
                ),
            }),
            Some(_) | None => Ok(()),
        }
    }

    async fn refresh_after_write(&self) {
        if let Err(err) = self.refresh().await {
            tracing::warn!(cluster = %self.settings.cluster, %err, "inventory refresh after a write failed");
        }
    }

    /// Start, stop, shutdown or reboot a guest, waiting for the task
    /// ([`PowerOperation::default_wait`]) and verifying with `status/current`.
    pub async fn power(
        &self,
        target: &ResourceId,
        operation: PowerOperation,
    ) -> Result<PowerOutcome, ProxmoxError> {
        self.power_within(target, operation, operation.default_wait())
            .await
    }

    /// [`Self::power`] with an explicit deadline for the task and verification.
    pub async fn power_within(
        &self,
        target: &ResourceId,
        operation: PowerOperation,
        deadline: Duration,
    ) -> Result<PowerOutcome, ProxmoxError> {
        let client = &self.client;
        let result = self
            .on_guest(target, |guest| async move {
                power(client, &guest, operation, TaskWait::up_to(deadline)).await
            })
            .await;
        // Refresh whenever a request may have reached PVE.
        if result
            .as_ref()
            .map_or_else(|e| !e.nothing_changed(), |o| o.task.is_some())
        {
            self.refresh_after_write().await;
        }
        result
    }

    pub async fn list_snapshots(
        &self,
        target: &ResourceId,
    ) -> Result<Vec<SnapshotInfo>, ProxmoxError> {
        let client = &self.client;
        self.on_guest(target, |guest| async move {
            list_snapshots(client, &guest).await
        })
        .await
    }

    /// Takes a snapshot and waits for it (the `snapshot` tool's `create`).
    pub async fn create_snapshot(
        &self,
        target: &ResourceId,
        name: &str,
        description: &str,
    ) -> Result<TaskOutcome, ProxmoxError> {
        let client = &self.client;
        let result = self
            .on_guest(target, |guest| async move {
                create_snapshot(
                    client,
                    &guest,
                    name,
                    description,
                    TaskWait::up_to(SNAPSHOT_WAIT),
                )
                .await
            })
            .await;
        self.refresh_after_write().await;
        result
    }

    /// The snapshot taken before an approved change: `warden-<time>-<approval>`,
    /// created and waited for; the change should not run if this fails.
    pub async fn snapshot_before_change(
        &self,
        target: &ResourceId,
        approval_id: &str,
    ) -> Result<PreChangeSnapshot, ProxmoxError> {
        let name = pre_change_snapshot_name(jiff::Timestamp::now(), approval_id);
        let description = format!("Taken by Warden before the change approved as {approval_id}");
        let task = self.create_snapshot(target, &name, &description).await?;
        Ok(PreChangeSnapshot {
            target: self.current_id(target),
            name,
            task,
        })
    }

    /// Rolls back to a snapshot and waits for it (the `snapshot` tool's
    /// `rollback`), with the guest's state after it.
    pub async fn rollback(
        &self,
        target: &ResourceId,
        name: &str,
    ) -> Result<RollbackOutcome, ProxmoxError> {
        let client = &self.client;
        let result = self
            .on_guest(target, |guest| async move {
                rollback_snapshot(client, &guest, name, TaskWait::up_to(SNAPSHOT_WAIT)).await
            })
            .await;
        self.refresh_after_write().await;
        result
    }

    pub async fn delete_snapshot(
        &self,
        target: &ResourceId,
        name: &str,
    ) -> Result<TaskOutcome, ProxmoxError> {
        let client = &self.client;
        let result = self
            .on_guest(target, |guest| async move {
                delete_snapshot(client, &guest, name, TaskWait::up_to(SNAPSHOT_WAIT)).await
            })
            .await;
        self.refresh_after_write().await;
        result
    }

    /// Runs `argv` in a VM through the QEMU guest agent (unsandboxed: the
    /// executor classifies the command before calling this).
    pub async fn exec_in_vm(
        &self,
        target: &ResourceId,
        argv: &[String],
        deadline: Duration,
    ) -> Result<GuestCommandOutput, ProxmoxError> {
        let client = &self.client;
        self.on_guest(target, |guest| async move {
            exec_in_vm(client, &guest, argv, deadline).await
        })
        .await
    }

    /// A shell command line in a VM: `/bin/sh -c COMMAND`.
    pub async fn exec_shell_in_vm(
        &self,
        target: &ResourceId,
        command: &str,
        deadline: Duration,
    ) -> Result<GuestCommandOutput, ProxmoxError> {
        let argv = ["/bin/sh".to_string(), "-c".to_string(), command.to_string()];
        self.exec_in_vm(target, &argv, deadline).await
    }

    /// History of a node (`node:pve1`) or guest from `rrddata`.
    pub async fn history(
        &self,
        target: &ResourceId,
        metrics: &[Metric],
        timeframe: Timeframe,
        max_points: usize,
    ) -> Result<Vec<MetricHistory>, ProxmoxError> {
        match target.kind {
            ResourceKind::Node => {
                fetch_history(
                    &self.client,
                    HistoryTarget::Node(&target.uid),
                    metrics,
                    timeframe,
                    max_points,
                )
                .await
            }
            ResourceKind::Vm | ResourceKind::Lxc => {
                let client = &self.client;
                self.on_guest(target, |guest| async move {
                    fetch_history(
                        client,
                        HistoryTarget::Guest(&guest),
                        metrics,
                        timeframe,
                        max_points,
                    )
                    .await
                })
                .await
            }
            _ => Err(ProxmoxError::Unsupported {
                target: target.to_string(),
                operation: "history".into(),
                reason: "Proxmox keeps history for nodes, VMs and containers".into(),
            }),
        }
    }

    fn online_nodes(&self, only: Option<&str>) -> Vec<String> {
        let inventory = self.inventory();
        inventory
            .nodes()
            .iter()
            .filter(|n| n.is_online() && only.is_none_or(|o| o == n.name))
            .map(|n| n.name.clone())
            .collect()
    }

    /// Storage pools with usage, of one node or of every online node.
    pub async fn storage_pools(
        &self,
        node: Option<&str>,
    ) -> Result<Vec<StoragePool>, ProxmoxError> {
        if self.inventory().is_empty() {
            self.refresh().await?;
        }
        storage_pools(&self.client, &self.online_nodes(node)).await
    }

    /// Every guest with its newest backup and its age, and the backup jobs.
    pub async fn backups(&self) -> Result<BackupReport, ProxmoxError> {
        if self.inventory().is_empty() {
            self.refresh().await?;
        }
        let archives = backup_archives(&self.client, &self.online_nodes(None)).await?;
        let mut last = last_backups(&archives, jiff::Timestamp::now().as_second());
        let jobs = backup_jobs(&self.client).await?;
        let inventory = self.inventory();
        let guests = inventory
            .guests()
            .iter()
            .filter(|g| !g.template)
            .map(|g| GuestBackup {
                target: g.resource_id(),
                name: g.name.clone(),
                last: last.remove(&g.vmid),
            })
            .collect();
        Ok(BackupReport { guests, jobs })
    }
}
