//! The real agent library run in this process with test settings: fast
//! back-off, no Docker or Proxmox discovery, a short kill grace.

use std::path::Path;
use std::time::Duration;

use tokio::task::JoinHandle;
use warden_agent::backoff::BackoffPolicy;
use warden_agent::inventory::{InventoryConfig, ProxmoxDiscovery};
use warden_agent::{AgentConfig, AgentError, Launcher, ShutdownTrigger};
use warden_infra::DockerDiscovery;

/// How long a running agent gets to stop.
const STOP_WITHIN: Duration = Duration::from_secs(20);

/// An agent configuration for tests with its state in `state_dir` and
/// reads confined by `launcher`.
pub fn config(state_dir: &Path, launcher: Launcher) -> AgentConfig {
    let mut config = AgentConfig::new(state_dir, launcher);
    config.backoff = BackoffPolicy {
        initial: Duration::from_millis(50),
        max: Duration::from_millis(400),
        healthy_after: Duration::from_millis(300),
    };
    config.inventory = InventoryConfig {
        docker: DockerDiscovery::Disabled,
        proxmox: ProxmoxDiscovery::Disabled,
        interval: Duration::from_secs(2),
    };
    config.kill_grace = Duration::from_millis(500);
    config
}

/// An agent running in this process.
pub struct RunningAgent {
    pub trigger: ShutdownTrigger,
    pub handle: JoinHandle<Result<(), AgentError>>,
}

/// Runs the agent until it is stopped.
pub fn start(config: AgentConfig) -> RunningAgent {
    let (trigger, signal) = warden_agent::shutdown_channel();
    let handle = tokio::spawn(warden_agent::run(config, signal));
    RunningAgent { trigger, handle }
}

impl RunningAgent {
    /// Shuts the agent down and returns how `run` ended.
    pub async fn stop(self) -> Result<(), AgentError> {
        self.trigger.trigger();
        tokio::time::timeout(STOP_WITHIN, self.handle)
            .await
            .expect("the agent did not stop in time")
            .unwrap()
    }
}
