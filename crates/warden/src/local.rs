//! This machine as Warden's first host: the infra crate's local inventory
//! and executor, adapted to the core's ports.

use warden_core::ports::{ExecOutput, HostBackend, HostError, Inventory};
use warden_infra::{ExecError, LocalExecutor, LocalInventory, command_for};
use warden_protocol::{CancelFlag, Resource};

/// The local inventory (this host, its services, its containers).
pub struct LocalResources(pub LocalInventory);

impl Inventory for LocalResources {
    fn all(&self) -> Vec<Resource> {
        self.0.resources()
    }
}

/// Runs commands on this machine, or in its containers through `docker exec`.
pub struct LocalHosts {
    executor: LocalExecutor,
    host: warden_protocol::ResourceId,
    /// The current turn's flag: Ctrl-C stops the running command.
    cancel: CancelFlag,
}

impl LocalHosts {
    pub fn new(executor: LocalExecutor, inventory: &LocalInventory, cancel: CancelFlag) -> Self {
        LocalHosts {
            executor,
            host: inventory.host_id().clone(),
            cancel,
        }
    }
}

impl HostBackend for LocalHosts {
    fn exec(&self, target: &Resource, command: &str) -> Result<ExecOutput, HostError> {
        let routed = command_for(target, &self.host, command)
            .map_err(|e| HostError::Unreachable(target.id.to_string(), e.to_string()))?;
        match self.executor.run_cancellable(&routed.command, &self.cancel) {
            Ok(output) => Ok(ExecOutput {
                stdout: output.stdout,
                stderr: output.stderr,
                exit_code: output.exit_code,
                truncated: output.truncated,
            }),
            Err(ExecError::TimedOut { limit, .. }) => Err(HostError::Timeout(limit)),
            Err(ExecError::Cancelled { .. }) => Err(HostError::Cancelled),
            Err(error) => Err(HostError::Failed(error.to_string())),
        }
    }
}
