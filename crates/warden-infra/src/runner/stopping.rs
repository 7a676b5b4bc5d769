//! Stopping a set of commands at once, for a shutdown ([`super::terminate_all`])
//! and for the watchdog when Warden is gone: SIGTERM to each process group
//! and to each command's processes inside containers, up to a grace for
//! them to end, then SIGKILL to what is left.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::process_group::{ProcessGroup, signal_processes};
use super::procfs;

/// One command to stop: its process group, and the tag of its processes
/// inside a container, if it has some.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub group: ProcessGroup,
    pub tag: Option<String>,
}

/// What stopping a set of commands did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shutdown {
    /// Commands that were running.
    pub commands: usize,
    /// Of those, the ones still alive after the grace (then killed).
    pub killed: usize,
}

/// Stops every target; blocks for at most about `grace`.
pub(crate) fn stop_all(targets: &[Target], grace: Duration) -> Shutdown {
    if targets.is_empty() {
        return Shutdown::default();
    }
    let groups: BTreeSet<i32> = targets.iter().map(|t| t.group.id()).collect();
    let tags: Vec<&str> = targets.iter().filter_map(|t| t.tag.as_deref()).collect();
    signal_processes(&procfs::tagged(&tags), Signal::TERM);
    for target in targets {
        target.group.terminate();
    }
    let deadline = Instant::now() + grace;
    let (left_groups, left_tagged) = loop {
        let left_groups = procfs::live_groups(&groups);
        let left_tagged = procfs::tagged(&tags);
        let done = left_groups.is_empty() && left_tagged.is_empty();
        if done || Instant::now() >= deadline {
            break (left_groups, left_tagged);
        }
        // Only while stopping: a short sleep between looks at /proc.
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut killed = 0;
    for target in targets {
        let group_left = left_groups.contains(&target.group.id());
        let tagged_left = match target.tag.as_deref() {
            Some(tag) if !left_tagged.is_empty() => !procfs::tagged(&[tag]).is_empty(),
            Some(_) | None => false,
        };
        if group_left {
            target.group.kill();
        }
        if group_left || tagged_left {
            killed += 1;
        }
    }
    signal_processes(&left_tagged, Signal::KILL);
    Shutdown {
        commands: targets.len(),
        killed,
    }
}
