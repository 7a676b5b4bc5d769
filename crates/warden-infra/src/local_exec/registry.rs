//! Every command this process has running, so that none outlives it: the
//! CLI's signal handler and the server's shutdown call [`terminate_all`],
//! which stops them all (SIGTERM, a grace, SIGKILL) and refuses new ones.
//!
//! A command is registered in the same critical section that spawns it, so
//! a shutdown either sees it or prevents it; it leaves the registry when
//! its run is over. A run abandoned half-way (its future dropped) kills its
//! command on the way out.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::process_group::{ProcessGroup, signal_processes};
use super::procfs;

#[derive(Debug, Clone)]
struct Live {
    group: ProcessGroup,
    /// The tag of its processes inside a container, if it has some.
    tag: Option<String>,
}

struct Registry {
    next_id: u64,
    /// Set by [`terminate_all`]: no command starts any more.
    closing: bool,
    live: BTreeMap<u64, Live>,
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
        if self.finished {
            return;
        }
        // Abandoned mid-run: nobody will wait for this command, so it
        // must not run on unobserved.
        if let Some(group) = self.group {
            group.kill();
        }
        if let Some(tag) = &self.tag {
            signal_processes(&procfs::tagged(&[tag]), Signal::KILL);
        }
    }
}

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
        registry.live.insert(
            id,
            Live {
                group,
                tag: tag.map(str::to_string),
            },
        );
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

/// What [`terminate_all`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shutdown {
    /// Commands that were running.
    pub commands: usize,
    /// Of those, the ones still alive after the grace (then killed).
    pub killed: usize,
}

/// Stops every running command of this process and lets no new one start:
/// SIGTERM to each command's process group and to its processes inside
/// containers, up to `grace` for them to end, then SIGKILL to what is left.
/// For signal handlers and server shutdown; blocks for at most about
/// `grace`. Calling it again (a second signal) is harmless.
pub fn terminate_all(grace: Duration) -> Shutdown {
    let live: Vec<Live> = {
        let mut registry = registry();
        registry.closing = true;
        registry.live.values().cloned().collect()
    };
    if live.is_empty() {
        return Shutdown::default();
    }
    let groups: BTreeSet<i32> = live.iter().map(|l| l.group.id()).collect();
    let tags: Vec<&str> = live.iter().filter_map(|l| l.tag.as_deref()).collect();
    signal_processes(&procfs::tagged(&tags), Signal::TERM);
    for entry in &live {
        entry.group.terminate();
    }
    let deadline = Instant::now() + grace;
    let (left_groups, left_tagged) = loop {
        let left_groups = procfs::live_groups(&groups);
        let left_tagged = procfs::tagged(&tags);
        let done = left_groups.is_empty() && left_tagged.is_empty();
        if done || Instant::now() >= deadline {
            break (left_groups, left_tagged);
        }
        // Shutdown only: a short sleep between looks at /proc is fine here.
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut killed = 0;
    for entry in &live {
        let group_left = left_groups.contains(&entry.group.id());
        let tagged_left = match entry.tag.as_deref() {
            Some(tag) if !left_tagged.is_empty() => !procfs::tagged(&[tag]).is_empty(),
            Some(_) | None => false,
        };
        if group_left {
            entry.group.kill();
        }
        if group_left || tagged_left {
            killed += 1;
        }
    }
    signal_processes(&left_tagged, Signal::KILL);
    Shutdown {
        commands: live.len(),
        killed,
    }
}

/// How many commands are registered right now (tests and diagnostics).
pub fn running_commands() -> usize {
    registry().live.len()
}
