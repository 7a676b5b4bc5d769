//! This machine as Warden's first host: the infra crate's local inventory
//! and executor, adapted to the core's ports. Routing's facts for it: its
//! own shell and `docker exec` into its containers; it runs the hop it is
//! given.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use warden_core::ports::{
    BoxFuture, ExecOutput, ExecRequest, HostBackend, HostError, Inventory, InventorySnapshot,
};
use warden_infra::confinement::Confinement;
use warden_infra::{ExecError, LocalExecutor, LocalInventory, start_watchdog};
use warden_protocol::routing::{Hop, RouteFacts, Runner, ThisMachine};
use warden_protocol::{ErrorCode, Resource};

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

/// Whether commands get a watchdog that stops them if Warden is killed
/// outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watchdog {
    /// This program again (`warden`'s `main` becomes the watchdog first
    /// thing when asked to), started with the first command.
    ThisProgram,
    /// None: a library user or a test whose program cannot be a watchdog.
    Off,
}

/// Runs commands on this machine, or in its containers through `docker exec`.
pub struct LocalHosts {
    executor: LocalExecutor,
    host: warden_protocol::ResourceId,
    watchdog: Watchdog,
    watchdog_started: std::sync::Once,
    confinement: Arc<Confinement>,
}

impl LocalHosts {
    pub fn new(
        executor: LocalExecutor,
        inventory: &LocalInventory,
        watchdog: Watchdog,
        confinement: Arc<Confinement>,
    ) -> Self {
        LocalHosts {
            executor,
            host: inventory.host_id().clone(),
            watchdog,
            watchdog_started: std::sync::Once::new(),
            confinement,
        }
    }

    /// Before the first command (a request that runs none does not pay
    /// for a process): the commands' watchdog, so that no command outlives
    /// Warden, even a Warden killed with SIGKILL.
    fn ensure_watchdog(&self) {
        if self.watchdog != Watchdog::ThisProgram {
            return;
        }
        self.watchdog_started.call_once(|| {
            let grace = self.executor.options().kill_grace;
            if let Err(error) = start_watchdog("/proc/self/exe", grace) {
                // Commands still run and are still stopped on Ctrl-C,
                // SIGTERM and exit; only the net under `kill -9` is missing.
                tracing::warn!(%error, "commands would outlive a Warden killed outright");
            }
        });
    }
}

impl HostBackend for LocalHosts {
    fn route_facts<'a>(&'a self, _target: &'a Resource) -> BoxFuture<'a, RouteFacts> {
        let this_machine = ThisMachine::warden_host(self.host.uid.as_str());
        Box::pin(std::future::ready(RouteFacts::only(this_machine)))
    }

    fn exec<'a>(
        &'a self,
        request: ExecRequest<'a>,
    ) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        Box::pin(async move {
            let target = request.target.id.to_string();
            match &request.route.runner {
                Runner::ThisMachine => {}
                Runner::Agent { agent_name, .. } => {
                    return Err(HostError::Unreachable(
                        target,
                        format!("this machine has no connection to agent {agent_name}"),
                    ));
                }
            }
            // Warden's own secrets: a command on this machine's shell that
            // names them is refused (inside a container the paths are the
            // container's own); every command runs where they are hidden.
            match &request.route.hop {
                Hop::HostShell => {
                    if let Err(hit) = self.confinement.admit(request.command) {
                        return Err(HostError::NotRun {
                            code: ErrorCode::ProtectedPath,
                            message: format!("refused, nothing ran: {hit}"),
                        });
                    }
                }
                Hop::DockerExec { .. } | Hop::PctExec { .. } => {}
            }
            self.ensure_watchdog();
            let mut options = self.executor.options().clone();
            options.confine = self.confinement.launcher();
            // Awaited on the runtime itself: the runner waits on the
            // process's exit, its timeout and the turn's flag at once.
            let ran = self
                .executor
                .execute_hop(
                    &request.route.hop,
                    request.command,
                    &options,
                    Some(request.cancel),
                )
                .await;
            match ran {
                Ok(output) => Ok(ExecOutput {
                    stdout: output.stdout,
                    stderr: output.stderr,
                    exit_code: output.exit_code,
                    truncated: output.truncated,
                }),
                Err(error) => Err(host_error(target, error)),
            }
        })
    }
}

/// The core's reading of an executor error: `Cancelled`/`Timeout`/`Failed`
/// say the command started (a write may have happened); only a command
/// that never started is `Unreachable` ("nothing ran").
fn host_error(target: String, error: ExecError) -> HostError {
    match error {
        ExecError::TimedOut { limit, .. } => HostError::Timeout(limit),
        ExecError::Cancelled { .. } => HostError::Cancelled,
        error if !error.started() => HostError::Unreachable(target, error.to_string()),
        error => HostError::Failed(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_commands_that_never_started_are_unreachable() {
        let target = || "host:web1".to_string();
        let partial = warden_infra::PartialOutput::default();
        assert_eq!(
            host_error(
                target(),
                ExecError::Cancelled {
                    elapsed: Duration::from_millis(5),
                    partial: partial.clone()
                }
            ),
            HostError::Cancelled
        );
        assert_eq!(
            host_error(
                target(),
                ExecError::TimedOut {
                    limit: Duration::from_secs(3),
                    partial
                }
            ),
            HostError::Timeout(Duration::from_secs(3))
        );
        for never_started in [
            ExecError::CancelledBeforeStart,
            ExecError::ShuttingDown,
            ExecError::Spawn {
                program: "/bin/bash".into(),
                source: std::io::Error::other("no such file"),
            },
        ] {
            let error = host_error(target(), never_started);
            assert!(
                matches!(&error, HostError::Unreachable(t, _) if t == "host:web1"),
                "{error:?}"
            );
        }
        let lost = host_error(
            target(),
            ExecError::Wait {
                source: std::io::Error::other("gone"),
            },
        );
        assert!(matches!(lost, HostError::Failed(_)), "{lost:?}");
    }
}
