//! This machine as Warden's first host: the infra crate's local inventory
//! and executor, adapted to the core's ports.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use warden_core::ports::{
    BoxFuture, ExecOutput, ExecRequest, HostBackend, HostError, Inventory, InventorySnapshot,
};
use warden_infra::{ExecError, LocalExecutor, LocalInventory, command_for};

/// How long an indexed snapshot of this machine is reused.
const SNAPSHOT_TTL: Duration = Duration::from_secs(15);

/// The local inventory (this host, its services, its containers), published
/// as an indexed snapshot that tool calls borrow from.
pub struct LocalResources {
    local: LocalInventory,
    snapshot: Mutex<Option<(Instant, Arc<InventorySnapshot>)>>,
}

impl LocalResources {
    pub fn new(local: LocalInventory) -> Self {
        LocalResources {
            local,
            snapshot: Mutex::new(None),
        }
    }
}

impl Inventory for LocalResources {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        let mut cached = self.snapshot.lock().unwrap_or_else(PoisonError::into_inner);
        match cached.as_ref() {
            Some((taken, snapshot)) if taken.elapsed() < SNAPSHOT_TTL => Arc::clone(snapshot),
            Some(_) | None => {
                let snapshot = Arc::new(InventorySnapshot::new(self.local.resources()));
                *cached = Some((Instant::now(), Arc::clone(&snapshot)));
                snapshot
            }
        }
    }
}

/// Runs commands on this machine, or in its containers through `docker exec`.
pub struct LocalHosts {
    executor: LocalExecutor,
    host: warden_protocol::ResourceId,
}

impl LocalHosts {
    pub fn new(executor: LocalExecutor, inventory: &LocalInventory) -> Self {
        LocalHosts {
            executor,
            host: inventory.host_id().clone(),
        }
    }
}

impl HostBackend for LocalHosts {
    fn exec<'a>(
        &'a self,
        request: ExecRequest<'a>,
    ) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        let target = request.target.id.to_string();
        let routed = command_for(request.target, &self.host, request.command);
        let executor = self.executor.clone();
        let cancel = request.cancel.clone();
        Box::pin(async move {
            let routed = routed.map_err(|e| HostError::Unreachable(target, e.to_string()))?;
            // The local executor waits on the child process: it runs on the
            // blocking pool, and the turn's flag stops it.
            let ran = tokio::task::spawn_blocking(move || {
                executor.run_cancellable(&routed.command, &cancel)
            })
            .await
            .map_err(|e| HostError::Failed(format!("the command's worker failed: {e}")))?;
            match ran {
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
        })
    }
}
