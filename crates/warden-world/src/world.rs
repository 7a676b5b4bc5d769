//! [`World`]: everything a turn acts on, built once from the effective
//! configuration by [`WorldBuilder`], the same way for `warden ask`,
//! `warden chat` and `warden serve`:
//!
//! - the store (`db`, else the user's or the server's data directory);
//! - the inventory: this machine (discovered when first asked, then every
//!   15 s at most), the configured Proxmox clusters (and those an admin
//!   added through the API), then connected agents;
//! - the hosts: this machine and its containers (`[exec]` limits; the
//!   commands' watchdog starts with the first command), agents for the
//!   machines they run on;
//! - the Proxmox guest API; approvals, audit, notes and conversations in
//!   the store; the model (`[provider]`, connected per conversation, never
//!   touching the network until a call), and the [`TurnConfig`].
//!
//! A simulated world (`warden serve --simulate`, tests) replaces this
//! machine and the clusters with a given inventory and hosts.

use std::path::PathBuf;
use std::sync::Arc;

use warden_core::ports::{
    Backends, CompositeInventory, GuestApi, HostBackend, Inventory, NoGuestApi,
};
use warden_core::redact::known::SharedKnownSecrets;
use warden_core::turn::{TurnConfig, TurnError, TurnRunner};
use warden_infra::confinement::{Confinement, Launching};
use warden_infra::{InventoryOptions, LocalExecutor, LocalInventory};
use warden_llm::Provider;
use warden_policy::paths::protect::Protected;
use warden_protocol::ControlLevel;
use warden_store::Store;

use crate::agents::{AgentSettings, Agents};
use crate::config::Config;
use crate::local::{LocalHosts, LocalResources, Watchdog};
use crate::proxmox::ProxmoxWorld;
use crate::proxmox::admin::{ClustersFileError, ProxmoxAdmin, load_added};
use crate::storage::{
    OpenError, SqliteApprovals, SqliteAudit, SqliteConversations, SqliteNotes, local_operator,
};

/// Connects the model for a new conversation, or `None` for the router
/// alone. Connecting touches no network: a provider that cannot work (no
/// key, a bad URL) answers every call with that error, so the router keeps
/// working.
pub type ModelSource = Arc<dyn Fn() -> Option<Box<dyn Provider + Send>> + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Clusters(#[from] ClustersFileError),
    #[error("agents: {0}")]
    AgentKey(#[from] crate::agents::grants::AgentKeyError),
}

/// Who decides approvals by default: the operator at this terminal, or
/// nobody in particular (a server records each caller instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deciders {
    /// `user:$USER` of this process.
    LocalOperator,
    /// This name (`system` for a server, `replay` for scripts).
    Named(String),
}

/// What stands in for this machine and the clusters in a simulated world.
pub struct Simulated {
    pub inventory: Arc<dyn Inventory>,
    pub hosts: Arc<dyn HostBackend>,
    pub guest_api: Arc<dyn GuestApi>,
}

impl Simulated {
    /// An inventory and hosts, with no guest API.
    pub fn new(inventory: Arc<dyn Inventory>, hosts: Arc<dyn HostBackend>) -> Self {
        Simulated {
            inventory,
            hosts,
            guest_api: Arc::new(NoGuestApi),
        }
    }
}

/// Builds a [`World`] from the effective configuration.
pub struct WorldBuilder {
    config: Config,
    store: Option<Arc<Store>>,
    data_dir: Option<PathBuf>,
    agents: Option<AgentSettings>,
    simulated: Option<Simulated>,
    model: Option<ModelSource>,
    deciders: Deciders,
    watchdog: Watchdog,
    launching: Launching,
    also_protected: Vec<Protected>,
    /// Secrets to watch for besides the ones the world collects.
    known_secrets: Vec<(String, Vec<u8>)>,
}

impl WorldBuilder {
    pub fn new(config: Config) -> Self {
        WorldBuilder {
            config,
            store: None,
            data_dir: None,
            agents: None,
            simulated: None,
            model: None,
            deciders: Deciders::LocalOperator,
            watchdog: Watchdog::ThisProgram,
            launching: Launching::Off,
            also_protected: Vec::new(),
            known_secrets: Vec::new(),
        }
    }

    /// The configuration being built from.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Use this store instead of opening the configured database.
    pub fn store(mut self, store: Arc<Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// A server's data directory: the database lives there unless `db` is
    /// configured, and so do the clusters an admin added through the API.
    pub fn server_data_dir(mut self, dir: PathBuf) -> Self {
        self.data_dir = Some(dir);
        self
    }

    /// Host agents connect to this world (a server).
    pub fn agents(mut self, settings: AgentSettings) -> Self {
        self.agents = Some(settings);
        self
    }

    /// This inventory, these hosts and this guest API instead of this
    /// machine and the configured clusters (`serve --simulate`, tests).
    pub fn simulated(mut self, simulated: Simulated) -> Self {
        self.simulated = Some(simulated);
        self
    }

    /// This model instead of the configured one (tests, load harnesses).
    pub fn model(mut self, source: ModelSource) -> Self {
        self.model = Some(source);
        self
    }

    pub fn deciders(mut self, deciders: Deciders) -> Self {
        self.deciders = deciders;
        self
    }

    /// Whether commands get the watchdog that outlives a killed Warden.
    pub fn watchdog(mut self, watchdog: Watchdog) -> Self {
        self.watchdog = watchdog;
        self
    }

    /// Whether commands on this machine start through a confinement
    /// launcher: `warden` itself (`Launching::Program("/proc/self/exe")`,
    /// which its binary sets), or never (the default, for library users and
    /// tests whose program cannot launch; the policy's direct refusal of
    /// protected paths still applies).
    pub fn launching(mut self, launching: Launching) -> Self {
        self.launching = launching;
        self
    }

    /// Keep one more file or directory out of every command's reach (the
    /// server's TLS key and certificate).
    pub fn protect(mut self, path: PathBuf, label: &str) -> Self {
        let path = path.to_string_lossy().into_owned();
        self.also_protected
            .push(if std::path::Path::new(&path).is_dir() {
                Protected::tree(path, label)
            } else {
                Protected::file(path, label)
            });
        self
    }

    /// Withhold every tool output that holds `secret` (in any common
    /// encoding), naming it `label` ("TLS private key"). The world adds the
    /// model's API key, Proxmox token secrets, the server's secrets and the
    /// first admin's generated password itself; a server adds more later
    /// through [`World::known_secrets`].
    pub fn known_secret(mut self, label: impl Into<String>, secret: impl Into<Vec<u8>>) -> Self {
        self.known_secrets.push((label.into(), secret.into()));
        self
    }

    fn open_store(&self) -> Result<Arc<Store>, OpenError> {
        if let Some(store) = &self.store {
            return Ok(Arc::clone(store));
        }
        match (&self.config.db.value, &self.data_dir) {
            (db, Some(dir)) => crate::storage::open_in_data_dir(dir, db.clone()),
            (Some(db), None) => crate::storage::open(Some(db.clone())),
            (None, None) => crate::storage::open(None),
        }
    }

    /// Build it. Clusters are connected here (each gets at most
    /// [`crate::proxmox::CONNECT_TIMEOUT`] for its first inventory); call
    /// within a tokio runtime, which their refresh then runs on.
    pub async fn build(self) -> Result<World, WorldError> {
        let store = self.open_store()?;
        let confinement = Arc::new(Confinement::new(
            self.launching.clone(),
            crate::protected::protected_paths(
                &self.config,
                self.data_dir.as_deref(),
                &self.also_protected,
            ),
        ));
        let mut problems = Vec::new();
        let approvals = match &self.deciders {
            Deciders::LocalOperator => SqliteApprovals::new(Arc::clone(&store)),
            Deciders::Named(name) => SqliteApprovals::with_operator(Arc::clone(&store), name),
        };
        let agents = match &self.agents {
            Some(settings) => {
                let key =
                    crate::agents::grants::load_or_create_signing_key(&store, crate::now_ms())?;
                Some(Arc::new(Agents::new(
                    Arc::clone(&store),
                    key,
                    settings.clone(),
                )))
            }
            None => None,
        };
        let mut watched_clusters = self.config.proxmox.clone();
        // Filled below, once everything that holds a secret is loaded.
        let known_secrets = Arc::new(SharedKnownSecrets::default());
        let mut proxmox = Arc::new(ProxmoxWorld::none());
        let mut cluster_admin = None;
        let (given_inventory, given_hosts, guest_api): (
            Arc<dyn Inventory>,
            Arc<dyn HostBackend>,
            Arc<dyn GuestApi>,
        ) = match self.simulated {
            Some(simulated) => (simulated.inventory, simulated.hosts, simulated.guest_api),
            None => {
                let mut clusters = self.config.proxmox.clone();
                let added = match &self.data_dir {
                    Some(dir) => load_added(dir)?,
                    None => Vec::new(),
                };
                for cluster in &added {
                    if clusters.iter().any(|c| c.name == cluster.name) {
                        problems.push(format!(
                            "the cluster `{}` added through the API is also in the configuration file; the file's settings are used",
                            cluster.name
                        ));
                    } else {
                        clusters.push(cluster.clone());
                        watched_clusters.push(cluster.clone());
                    }
                }
                if !clusters.is_empty() {
                    proxmox = Arc::new(crate::proxmox::connect(&clusters).await);
                    problems.extend(proxmox.problems());
                }
                if let Some(dir) = &self.data_dir {
                    cluster_admin = Some(
                        ProxmoxAdmin::new(
                            Arc::clone(&proxmox),
                            self.config.proxmox.clone(),
                            &added,
                            dir,
                        )
                        .watch_secrets_in(Arc::clone(&known_secrets)),
                    );
                }
                let local = LocalInventory::with_options(InventoryOptions::default());
                let executor = LocalExecutor::with_options(self.config.exec_options());
                let hosts =
                    LocalHosts::new(executor, &local, self.watchdog, Arc::clone(&confinement));
                let clusters: Arc<dyn Inventory> = Arc::clone(&proxmox.inventories) as _;
                let inventory =
                    CompositeInventory::new(vec![Arc::new(LocalResources::new(local)), clusters]);
                (
                    Arc::new(inventory),
                    Arc::new(hosts),
                    Arc::new(proxmox.api.clone()),
                )
            }
        };
        // Agents after everything else: this machine's own resources come
        // first, and commands for them stay local.
        let (inventory, hosts): (Arc<dyn Inventory>, Arc<dyn HostBackend>) = match &agents {
            Some(agents) => (
                Arc::new(CompositeInventory::new(vec![
                    Arc::clone(&given_inventory),
                    Arc::new(crate::agents::names::AgentNames::new(
                        Arc::clone(&given_inventory),
                        agents.inventory(),
                    )) as Arc<dyn Inventory>,
                ])),
                Arc::new(crate::agents::backend::AgentRoutedHosts::new(
                    given_hosts,
                    given_inventory,
                    Arc::clone(agents),
                )),
            ),
            None => (given_inventory, given_hosts),
        };
        let model = self.model.unwrap_or_else(|| configured_model(&self.config));
        let (known, not_watched) = crate::known_secrets::collect(
            &self.config,
            &watched_clusters,
            &store,
            self.data_dir.as_deref(),
            &self.known_secrets,
        );
        problems.extend(not_watched);
        // Cannot fail: the registry is replaced, nothing is added.
        let _ = known_secrets.update(|k| {
            *k = known;
            Ok(())
        });
        let mut turn = self.config.turn_config();
        turn.known_secrets = Arc::clone(&known_secrets);
        Ok(World {
            turn: Arc::new(turn),
            known_secrets,
            backends: Backends {
                inventory,
                hosts,
                guest_api,
                approvals: Arc::new(approvals),
                audit: Arc::new(SqliteAudit(Arc::clone(&store))),
                notes: Arc::new(SqliteNotes(Arc::clone(&store))),
                conversations: Arc::new(SqliteConversations::new(Arc::clone(&store))),
            },
            config: self.config,
            store,
            proxmox,
            cluster_admin,
            agents,
            model,
            problems,
            confinement,
        })
    }
}

/// The model `[provider]` names, connected per conversation.
fn configured_model(config: &Config) -> ModelSource {
    match config.provider_config() {
        None => Arc::new(|| None),
        Some(provider) => Arc::new(move || Some(warden_llm::connect_or_unavailable(&provider))),
    }
}

/// Everything a turn acts on, for the life of the process.
pub struct World {
    pub config: Config,
    /// What every turn runner reads.
    pub turn: Arc<TurnConfig>,
    pub store: Arc<Store>,
    pub backends: Backends,
    /// The Proxmox clusters (their inventories, guest API and refresh).
    pub proxmox: Arc<ProxmoxWorld>,
    /// Clusters an admin manages through the API (a server's live world).
    pub cluster_admin: Option<ProxmoxAdmin>,
    /// Host agents (a server).
    pub agents: Option<Arc<Agents>>,
    /// Warden's own secrets, withheld from every tool output; shared with
    /// every executor, so what is added later (a server's TLS key) counts
    /// at once.
    pub known_secrets: Arc<SharedKnownSecrets>,
    model: ModelSource,
    problems: Vec<String>,
    confinement: Arc<Confinement>,
}

impl World {
    /// Warden's protected paths and how commands on this machine are kept
    /// from them. [`Confinement::mode`] probes on first use.
    pub fn confinement(&self) -> &Arc<Confinement> {
        &self.confinement
    }

    /// What could not be used, one line each, for the operator (a cluster
    /// that does not answer, …); Warden goes on without it.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The configured model, connected for one conversation.
    pub fn model(&self) -> Option<Box<dyn Provider + Send>> {
        (self.model)()
    }

    /// A new conversation at `level`, with the configured model.
    pub fn new_runner(&self, id: String, level: ControlLevel) -> TurnRunner {
        TurnRunner::new(
            &self.backends,
            Arc::clone(&self.turn),
            id,
            level,
            self.model(),
        )
    }

    /// A stored conversation brought back at `level`.
    pub fn resume_runner(&self, id: String, level: ControlLevel) -> Result<TurnRunner, TurnError> {
        TurnRunner::resume(
            &self.backends,
            Arc::clone(&self.turn),
            id,
            level,
            self.model(),
        )
    }

    /// Who decides at this terminal (`user:$USER`).
    pub fn local_operator(&self) -> String {
        local_operator()
    }
}

/// A fresh session id: `s-` and 128 random bits.
pub fn new_session_id() -> String {
    crate::random_id("s-").unwrap_or_else(|_| format!("s-{}", crate::now_ms()))
}
