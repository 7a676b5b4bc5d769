//! `warden agent run`: load the identity, then connect, serve, and
//! reconnect with back-off until shut down or revoked.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use warden_protocol::ControlLevel;

use crate::backoff::{Backoff, BackoffPolicy};
use crate::connection::{ConnectError, ConnectTarget, connect};
use crate::dispatch::{DispatchSettings, Dispatcher, now_ms};
use crate::event_log::EventLog;
use crate::exec::Launcher;
use crate::identity::{IdentityError, StateDir};
use crate::inventory::{InventoryConfig, InventorySource};
use crate::metrics::{MetricsSource, docker_client};
use crate::names::{NameError, check_agent_name};
use crate::nonces::{NonceStore, NonceStoreError};
use crate::server_url::{ServerUrl, ServerUrlError};
use crate::session::{SessionEnd, SessionSettings, serve};
use crate::shutdown::ShutdownSignal;
use crate::tls::{TlsError, client_config};
use warden_infra::confinement::{Confinement, Launching};
use warden_policy::paths::protect::Protected;
use warden_protocol::routing::ThisMachine;

/// How often a `metrics` frame goes out unless configured otherwise.
pub const DEFAULT_METRICS_INTERVAL: Duration = Duration::from_secs(10);

/// The agent's version, sent in `hello` and at enrollment.
pub const AGENT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything `run` needs besides the state directory's contents.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub state_dir: PathBuf,
    /// Overrides the enrolled name (the host id is `host:{name}`).
    pub name: Option<String>,
    /// The most the agent will ever do, whatever the server says.
    pub max_level: ControlLevel,
    /// Silence after which the server counts as dead (default: three
    /// heartbeat intervals from the `welcome`).
    pub heartbeat_timeout: Option<Duration>,
    /// The sandbox launcher for reads.
    pub launcher: Launcher,
    pub inventory: InventoryConfig,
    /// How often a `metrics` frame is sent; `None`: never.
    pub metrics_interval: Option<Duration>,
    pub backoff: BackoffPolicy,
    /// Between SIGTERM and SIGKILL when a command is stopped.
    pub kill_grace: Duration,
    pub max_concurrent: usize,
    /// The agent's state directory and process, kept out of every
    /// command's reach.
    pub confinement: Arc<Confinement>,
}

impl AgentConfig {
    /// The defaults for `state_dir`, with `launcher` for reads. Commands
    /// are not launched confined ([`AgentConfig::launching`] changes that);
    /// the policy's refusal of the state directory applies.
    pub fn new(state_dir: impl Into<PathBuf>, launcher: Launcher) -> Self {
        let state_dir = state_dir.into();
        AgentConfig {
            confinement: Arc::new(Confinement::new(
                Launching::Off,
                protected_by_agent(&state_dir),
            )),
            state_dir,
            name: None,
            max_level: ControlLevel::Controlled,
            heartbeat_timeout: None,
            launcher,
            inventory: InventoryConfig::default(),
            metrics_interval: Some(DEFAULT_METRICS_INTERVAL),
            backoff: BackoffPolicy::default(),
            kill_grace: Duration::from_secs(2),
            max_concurrent: 32,
        }
    }

    /// Commands start through `launching` (the `warden` binary itself),
    /// hiding the state directory and the agent's process.
    pub fn launching(mut self, launching: Launching) -> Self {
        self.confinement = Arc::new(Confinement::new(
            launching,
            protected_by_agent(&self.state_dir),
        ));
        self
    }
}

/// What an agent keeps from its commands: its state directory (its key, its
/// identity, the grants it used).
fn protected_by_agent(state_dir: &std::path::Path) -> Vec<Protected> {
    vec![Protected::tree(
        state_dir.to_string_lossy().into_owned(),
        "the agent's state directory",
    )]
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Identity(#[from] IdentityError),
    #[error(transparent)]
    Nonces(#[from] NonceStoreError),
    #[error("the stored server URL: {0}")]
    ServerUrl(#[from] ServerUrlError),
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("the stored identity: {0}")]
    BadIdentity(String),
    #[error(transparent)]
    Name(#[from] NameError),
    /// The server refused or revoked this agent: reconnecting cannot help.
    #[error("the server refused this agent ({reason}); enroll it again")]
    Rejected { reason: String },
}

/// Runs the agent until `shutdown` (a clean exit) or the server rejects it.
pub async fn run(config: AgentConfig, shutdown: ShutdownSignal) -> Result<(), AgentError> {
    let state = StateDir::open(&config.state_dir)?;
    let identity = state.load_identity()?;
    let key = state.load_key()?;
    let server = ServerUrl::parse(&identity.server_url)?;
    let server_key = identity.server_key().map_err(AgentError::BadIdentity)?;
    let name = check_agent_name(config.name.as_deref().unwrap_or(&identity.name))?;
    let (tls, presented) = client_config(&identity.trust, &server)?;
    let nonces = NonceStore::load(state.path(), now_ms())?;
    let dispatcher = Arc::new(Dispatcher::new(
        DispatchSettings {
            agent_id: identity.agent_id.clone(),
            server_key,
            max_level: config.max_level,
            launcher: config.launcher.clone(),
            confinement: Arc::clone(&config.confinement),
            kill_grace: config.kill_grace,
            max_concurrent: config.max_concurrent,
        },
        nonces,
        // Its host until the first inventory says what else it reaches.
        ThisMachine::reported_by(&name, &[]),
        EventLog::new(state.path()),
    ));
    let inventory = Arc::new(InventorySource::new(&name, &config.inventory));
    // Scoped to the host name the inventory uses, so ids match.
    let metrics = config.metrics_interval.map(|every| {
        Arc::new(MetricsSource::new(
            inventory.host(),
            docker_client(&config.inventory.docker),
            every,
        ))
    });
    let target = ConnectTarget {
        server,
        tls,
        presented,
        agent_id: identity.agent_id.clone(),
        version: AGENT_VERSION.to_string(),
    };
    let session_settings = SessionSettings {
        heartbeat_timeout: config.heartbeat_timeout,
        inventory_interval: config.inventory.interval,
        shutdown_grace: config.kill_grace + Duration::from_secs(3),
        metrics,
    };
    tracing::info!(
        agent_id = %identity.agent_id,
        host = %name,
        server = %target.server,
        max_level = %config.max_level,
        "agent starting"
    );
    let mut backoff = Backoff::new(config.backoff);
    let mut signal = shutdown.clone();
    let outcome = loop {
        if signal.is_triggered() {
            break Ok(());
        }
        let attempt = tokio::select! {
            attempt = connect(&target, &key) => attempt,
            () = signal.wait() => break Ok(()),
        };
        match attempt {
            Ok(welcomed) => {
                tracing::info!(
                    heartbeat_secs = welcomed.welcome.heartbeat_secs,
                    "connected to {}",
                    target.server
                );
                let connected = Instant::now();
                match serve(
                    welcomed,
                    &dispatcher,
                    &inventory,
                    &session_settings,
                    shutdown.clone(),
                )
                .await
                {
                    SessionEnd::Shutdown => break Ok(()),
                    SessionEnd::Revoked { reason } => break Err(AgentError::Rejected { reason }),
                    SessionEnd::Lost { reason } => {
                        tracing::warn!("connection lost: {reason}");
                        if connected.elapsed() >= backoff.policy().healthy_after {
                            backoff.reset();
                        }
                    }
                }
            }
            Err(ConnectError::Rejected { code, reason }) => {
                break Err(AgentError::Rejected {
                    reason: format!("close {code}: {reason}"),
                });
            }
            Err(err) => tracing::warn!("{err}"),
        }
        let delay = backoff.next_delay();
        tracing::info!("reconnecting in {} ms", delay.as_millis());
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = signal.wait() => break Ok(()),
        }
    };
    // Whatever ended the loop, no command outlives the agent.
    let cancelled = dispatcher.cancel_all(None);
    if cancelled > 0 {
        tracing::info!("stopping {cancelled} command(s) still running");
        let grace = config.kill_grace + Duration::from_secs(3);
        if tokio::time::timeout(grace, dispatcher.idle())
            .await
            .is_err()
        {
            tracing::warn!("commands still running at exit");
        }
    }
    tracing::info!("agent stopped");
    outcome
}
