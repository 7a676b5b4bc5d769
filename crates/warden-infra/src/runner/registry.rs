//! Every command this process has running, so that none outlives it: the
//! CLI's signal handler and the server's shutdown call [`terminate_all`],
//! which stops them all (SIGTERM, a grace, SIGKILL) and refuses new ones;
//! the [watchdog](super::watchdog), when there is one, is told about each
//! command, for the case where this process is killed outright.
//!
//! A command is registered in the same critical section that spawns it, so
//! a shutdown either sees it or prevents it; it leaves the registry when
//! its run is over. A run abandoned half-way (its future dropped) kills its
//! command on the way out.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::process_group::{ProcessGroup, signal_processes};
use super::stopping::{Shutdown, Target, stop_all};
use super::{procfs, watchdog};

struct Registry {
    next_id: u64,
    /// Set by [`terminate_all`]: no command starts any more.
    closing: bool,
    live: BTreeMap<u64, Target>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next_id: 0,
    closing: false,
    live: BTreeMap::new(),
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why a command was not spawned.
pub(crate) enum SpawnRefused {
    ShuttingDown,
    Spawn(std::io::Error),
}

/// One running command's place in the registry.
#[derive(Debug)]
pub(crate) struct Registration {
    id: u64,
    pub group: Option<ProcessGroup>,
    pub tag: Option<String>,
    finished: bool,
}

impl Registration {
    /// The run is over and its processes were waited for (or stopped).
    pub fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        registry().live.remove(&self.id);
        if let Some(group) = self.group {
            watchdog::forget(group);
        }
        if self.finished {
            return;
        }
        // Abandoned mid-run: nobody will wait for this command, so it
        // must not run on unobserved.
        if let Some(group) = self.group {
            group.kill();
        }
        let tags: Vec<&str> = self.tag.as_deref().into_iter().collect();
        signal_processes(&procfs::tagged(&tags), Signal::KILL);
        // Like a run that returns, a dropped one is over only when its
        // processes are gone or dying: a short, bounded wait (SIGKILL has
        // been sent; this path is rare).
        let deadline = Instant::now() + KILLED_GONE_WAIT;
        while Instant::now() < deadline {
            let group_left = self.group.is_some_and(|group| {
                group.has_members() && !procfs::live_groups(&[group.id()].into()).is_empty()
            });
            if !group_left && procfs::tagged(&tags).is_empty() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// How long a dropped run waits for its killed processes to be gone.
const KILLED_GONE_WAIT: Duration = Duration::from_secs(1);

/// Spawns `command` as the leader of a new process group and registers it,
/// unless a shutdown has begun.
pub(crate) fn spawn(
    command: &mut tokio::process::Command,
    tag: Option<&str>,
) -> Result<(tokio::process::Child, Registration), SpawnRefused> {
    let mut registry = registry();
    if registry.closing {
        return Err(SpawnRefused::ShuttingDown);
    }
    let child = command.spawn().map_err(SpawnRefused::Spawn)?;
    let group = child.id().and_then(ProcessGroup::of_leader);
    let id = registry.next_id;
    registry.next_id += 1;
    if let Some(group) = group {
        watchdog::watch(group, tag);
        let target = Target {
            group,
            tag: tag.map(str::to_string),
        };
        registry.live.insert(id, target);
    }
    Ok((
        child,
        Registration {
            id,
            group,
            tag: tag.map(str::to_string),
            finished: false,
        },
    ))
}

/// Stops every running command of this process and lets no new one start:
/// SIGTERM to each command's process group and to its processes inside
/// containers, up to `grace` for them to end, then SIGKILL to what is left.
/// For signal handlers and server shutdown; blocks for at most about
/// `grace`. Calling it again (a second signal) is harmless.
pub fn terminate_all(grace: Duration) -> Shutdown {
    let live: Vec<Target> = {
        let mut registry = registry();
        registry.closing = true;
        registry.live.values().cloned().collect()
    };
    stop_all(&live, grace)
}

/// How many commands are registered right now (tests and diagnostics).
pub fn running_commands() -> usize {
    registry().live.len()
}
