//! Everything a conversation needs, built once from the configuration: the
//! store, this machine and the configured Proxmox clusters as one inventory,
//! hosts, the Proxmox API, approvals, audit, notes, the executor, and the
//! router with the configured model behind it.

use std::sync::Arc;

use anyhow::Result;
use warden_core::executor::{Executor, Ports, Settings};
use warden_core::ports::{CompositeInventory, Inventory};
use warden_core::router::Router;
use warden_infra::{ExecOptions, InventoryOptions, LocalExecutor, LocalInventory};
use warden_llm::Provider;
use warden_protocol::CancelFlag;
use warden_store::Store;

use crate::config::Config;
use crate::local::{LocalHosts, LocalResources};
use crate::proxmox::ProxmoxWorld;
use crate::storage::{SqliteApprovals, SqliteAudit, SqliteNotes};

pub struct World {
    pub config: Config,
    pub store: Arc<Store>,
    /// This machine, then each Proxmox cluster in configuration order.
    pub inventory: CompositeInventory,
    pub hosts: LocalHosts,
    /// The clusters, their API and their background refresh.
    pub proxmox: ProxmoxWorld,
    pub approvals: SqliteApprovals,
    pub audit: SqliteAudit,
    pub notes: SqliteNotes,
    /// Set by Ctrl-C; reset at the start of every turn.
    pub cancel: CancelFlag,
    /// Drives turns (model streams, commands) for this process.
    pub runtime: tokio::runtime::Runtime,
}

impl World {
    pub fn open(config: Config) -> Result<World> {
        let store = crate::storage::open(config.db.value.clone())?;
        let local = LocalInventory::with_options(InventoryOptions::default());
        // Discover now, once: the first request should not pay for it.
        local.resources();
        let cancel = CancelFlag::new();
        let mut options = ExecOptions::default()
            .with_timeout(config.exec_timeout.value)
            .with_output_limit(config.exec_max_output.value);
        // Commands for containers go through `docker exec`: keep the socket.
        options = options.pass_env("DOCKER_HOST");
        let hosts = LocalHosts::new(LocalExecutor::with_options(options), &local);
        let runtime = crate::common::runtime()?;
        let proxmox = connect_proxmox(&config, &runtime);
        let inventory = world_inventory(LocalResources::new(local), &proxmox);
        Ok(World {
            approvals: SqliteApprovals::new(Arc::clone(&store)),
            audit: SqliteAudit(Arc::clone(&store)),
            notes: SqliteNotes(Arc::clone(&store)),
            store,
            inventory,
            hosts,
            proxmox,
            cancel,
            config,
            runtime,
        })
    }

    pub fn settings(&self) -> Settings {
        Settings {
            control_level: self.config.control_level.value,
            knowledge_ttl: self.config.knowledge_ttl.value,
            snapshots: self.config.snapshots.value.clone(),
            ..Settings::default()
        }
    }

    pub fn executor(&self) -> Executor<'_> {
        Executor::new(
            self.settings(),
            Ports {
                inventory: &self.inventory,
                hosts: &self.hosts,
                approvals: &self.approvals,
                audit: &self.audit,
                notes: &self.notes,
            },
        )
        .with_guest_api(&self.proxmox.api)
    }

    /// The configured model, or `None` for router only. Connecting does
    /// not touch the network; a provider that cannot work (no key, a bad
    /// URL) answers every call with that error, so the router keeps working.
    pub fn model(&self) -> Option<Box<dyn Provider + Send>> {
        let provider = self.config.provider_config()?;
        Some(warden_llm::connect_or_unavailable(&provider))
    }

    /// The router, with the model (if any) for what it cannot route.
    pub fn router(&self) -> Router<'_> {
        Router::new(&self.inventory, self.model())
    }
}

/// The configured clusters, connected on `runtime` (their refresh runs on
/// it). Each cluster that cannot be used is reported here, once.
pub fn connect_proxmox(config: &Config, runtime: &tokio::runtime::Runtime) -> ProxmoxWorld {
    connect_clusters(&config.proxmox, runtime)
}

/// These clusters, connected on `runtime`, each problem reported once.
pub fn connect_clusters(
    clusters: &[warden_infra::proxmox::ProxmoxConfig],
    runtime: &tokio::runtime::Runtime,
) -> ProxmoxWorld {
    if clusters.is_empty() {
        return ProxmoxWorld::none();
    }
    let proxmox = runtime.block_on(crate::proxmox::connect(clusters));
    for problem in proxmox.problems() {
        eprintln!("warden: {problem}");
    }
    proxmox
}

/// This machine first, then the clusters in configuration order: one
/// indexed inventory, merged again only when a source publishes a new
/// snapshot (or a cluster joins or leaves).
pub fn world_inventory(local: LocalResources, proxmox: &ProxmoxWorld) -> CompositeInventory {
    let clusters: Arc<dyn Inventory> = Arc::clone(&proxmox.inventories) as Arc<dyn Inventory>;
    CompositeInventory::new(vec![Arc::new(local), clusters])
}
