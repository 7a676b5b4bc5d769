//! Stopping a command that runs inside a container. `docker exec` and `pct
//! exec` start the command under the container runtime, outside the agent's
//! process group: killing the local client leaves it running. The command
//! runs under a wrapper shell whose arguments carry a unique tag
//! ([`crate::routing::CONTAINER_WRAPPER`]); containers share the host's
//! kernel, so the agent finds that shell in `/proc` and signals it and all
//! its descendants.

use std::collections::{BTreeMap, BTreeSet};

use rustix::process::{Pid, Signal, kill_process};

use crate::routing::CONTAINER_WRAPPER;

/// What a [`signal_tagged`] call did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaggedSignal {
    /// Processes of the tagged tree (the wrapper and its descendants).
    pub found: usize,
    /// Of those, how many took the signal.
    pub signalled: usize,
}

/// Sends `signal` to the wrapper tagged `tag` and every descendant of it.
pub fn signal_tagged(tag: &str, signal: Signal) -> TaggedSignal {
    let processes = read_processes();
    let roots: Vec<i32> = processes
        .iter()
        .filter(|(_, p)| is_tagged(&p.argv, tag))
        .map(|(pid, _)| *pid)
        .collect();
    let parents: BTreeMap<i32, i32> = processes.iter().map(|(pid, p)| (*pid, p.parent)).collect();
    let tree = descendants(&roots, &parents);
    let mut outcome = TaggedSignal {
        found: tree.len(),
        signalled: 0,
    };
    for pid in tree {
        // Only pids above 1 are ever signalled (never init, never a group).
        if let Some(pid) = Pid::from_raw(pid).filter(|p| p.as_raw_pid() > 1)
            && kill_process(pid, signal).is_ok()
        {
            outcome.signalled += 1;
        }
    }
    outcome
}

struct ProcessInfo {
    argv: Vec<String>,
    parent: i32,
}

fn read_processes() -> BTreeMap<i32, ProcessInfo> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            Some((
                pid,
                ProcessInfo {
                    argv: parse_cmdline(&cmdline),
                    parent: parent_from_stat(&stat)?,
                },
            ))
        })
        .collect()
}

/// `/proc/PID/cmdline`: arguments separated (and ended) by NUL bytes.
pub fn parse_cmdline(bytes: &[u8]) -> Vec<String> {
    if bytes.is_empty() {
        return Vec::new();
    }
    bytes
        .strip_suffix(&[0])
        .unwrap_or(bytes)
        .split(|b| *b == 0)
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect()
}

/// The wrapper is `/bin/sh -c WRAPPER TAG COMMAND`: the tag must be its
/// `$0`, right after the wrapper script. (The local `docker` client carries
/// the same words further along its arguments, and does not match.)
pub fn is_tagged(argv: &[String], tag: &str) -> bool {
    matches!(argv, [_, dash_c, script, found, ..]
        if dash_c == "-c" && script == CONTAINER_WRAPPER && found == tag)
}

/// The parent pid from `/proc/PID/stat` (`pid (comm) state ppid …`; comm
/// may hold spaces and parentheses, so parse after the last `)`).
pub fn parent_from_stat(stat: &str) -> Option<i32> {
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// `roots` and everything below them.
pub fn descendants(roots: &[i32], parents: &BTreeMap<i32, i32>) -> BTreeSet<i32> {
    let mut tree: BTreeSet<i32> = roots.iter().copied().collect();
    loop {
        let before = tree.len();
        for (pid, parent) in parents {
            if tree.contains(parent) {
                tree.insert(*pid);
            }
        }
        if tree.len() == before {
            return tree;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn cmdline_and_stat_parsing() {
        assert_eq!(
            parse_cmdline(b"/bin/sh\0-c\0echo a\0"),
            args(&["/bin/sh", "-c", "echo a"])
        );
        assert_eq!(parse_cmdline(b""), Vec::<String>::new());
        assert_eq!(
            parent_from_stat("1234 (my (odd) name) S 77 1234 1234 0 -1"),
            Some(77)
        );
        assert_eq!(parent_from_stat("garbage"), None);
    }

    #[test]
    fn only_the_wrapper_matches_its_tag() {
        let wrapper = args(&["/bin/sh", "-c", CONTAINER_WRAPPER, "tag-1", "sleep 30"]);
        assert!(is_tagged(&wrapper, "tag-1"));
        assert!(!is_tagged(&wrapper, "tag-2"));
        let client = args(&[
            "docker",
            "exec",
            "abc",
            "/bin/sh",
            "-c",
            CONTAINER_WRAPPER,
            "tag-1",
            "sleep 30",
        ]);
        assert!(!is_tagged(&client, "tag-1"));
        let inner = args(&["/bin/sh", "-c", "sleep 30"]);
        assert!(!is_tagged(&inner, "tag-1"));
    }

    #[test]
    fn descendants_follow_parent_links() {
        let parents: BTreeMap<i32, i32> =
            [(10, 1), (11, 10), (12, 11), (13, 12), (20, 1), (21, 20)].into();
        assert_eq!(
            descendants(&[11], &parents),
            [11, 12, 13].into_iter().collect()
        );
        assert!(descendants(&[], &parents).is_empty());
    }

    #[test]
    fn a_real_tagged_process_tree_is_found_and_killed() {
        let tag = format!("warden-exec-test-{}", std::process::id());
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", CONTAINER_WRAPPER, &tag, "sleep 30 & sleep 30; wait"])
            .spawn()
            .unwrap();
        // Let the wrapper start its children.
        let mut found = 0;
        for _ in 0..100 {
            found = signal_tagged(&tag, Signal::CONT).found;
            if found >= 4 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(found >= 4, "wrapper, inner shell and two sleeps: {found}");
        let killed = signal_tagged(&tag, Signal::KILL);
        assert!(killed.signalled >= 4, "{killed:?}");
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert_eq!(signal_tagged(&tag, Signal::CONT).found, 0);
    }
}
