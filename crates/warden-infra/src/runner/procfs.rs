//! What `/proc` says about the processes Warden started: which process
//! groups still have live members, and which processes belong to a command
//! inside a container (not our children, but the host's `/proc` sees them).
//!
//! Only read when a command is over or being stopped, or Warden shuts down;
//! never while a command runs normally.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use warden_protocol::routing::{EXEC_TAG_VAR, is_wrapper_of};

/// One process, from `/proc/<pid>/stat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcEntry {
    pub pid: i32,
    pub parent: i32,
    pub pgid: i32,
    /// A zombie has ended; it only waits for its parent to reap it.
    pub zombie: bool,
}

/// Every process this user may see, read once. Processes that end during
/// the scan are skipped.
pub(crate) fn processes() -> Vec<ProcEntry> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(pid, &stat)
        })
        .collect()
}

/// `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so
/// the fields are counted after the last `)`.
fn parse_stat(pid: i32, stat: &str) -> Option<ProcEntry> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let parent = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    Some(ProcEntry {
        pid,
        parent,
        pgid,
        zombie: state == "Z" || state == "X",
    })
}

/// The groups among `groups` that still have a live (not zombie) member.
pub(crate) fn live_groups(groups: &BTreeSet<i32>) -> BTreeSet<i32> {
    if groups.is_empty() {
        return BTreeSet::new();
    }
    processes()
        .into_iter()
        .filter(|p| !p.zombie && groups.contains(&p.pgid))
        .map(|p| p.pgid)
        .collect()
}

/// The live processes of the commands tagged `tags` inside containers:
/// each run's wrapper (its tag as `$0`), whatever carries
/// `WARDEN_EXEC_TAG=<tag>` in its environment (the wrapper exports it, so
/// even a reparented daemon does), and every descendant of those. Warden's
/// own process group is never among them, whatever a confused environment
/// says.
pub(crate) fn tagged(tags: &[&str]) -> Vec<ProcEntry> {
    if tags.is_empty() {
        return Vec::new();
    }
    let wanted: Vec<Vec<u8>> = tags
        .iter()
        .map(|tag| format!("{EXEC_TAG_VAR}={tag}").into_bytes())
        .collect();
    let own_group = rustix::process::getpgrp().as_raw_pid();
    let candidates: Vec<ProcEntry> = processes()
        .into_iter()
        .filter(|p| !p.zombie && p.pgid != own_group && p.pid > 1)
        .collect();
    let roots: BTreeSet<i32> = candidates
        .iter()
        .filter(|p| {
            let in_environment = read(p.pid, "environ").is_some_and(|env| {
                env.split(|b| *b == 0)
                    .any(|var| wanted.iter().any(|w| w.as_slice() == var))
            });
            in_environment || {
                let argv = parse_cmdline(&read(p.pid, "cmdline").unwrap_or_default());
                tags.iter().any(|tag| is_wrapper_of(&argv, tag))
            }
        })
        .map(|p| p.pid)
        .collect();
    let parents: BTreeMap<i32, i32> = candidates.iter().map(|p| (p.pid, p.parent)).collect();
    let tree = descendants(roots, &parents);
    candidates
        .into_iter()
        .filter(|p| tree.contains(&p.pid))
        .collect()
}

fn read(pid: i32, file: &str) -> Option<Vec<u8>> {
    std::fs::read(Path::new("/proc").join(pid.to_string()).join(file)).ok()
}

/// `/proc/PID/cmdline`: arguments separated (and ended) by NUL bytes.
fn parse_cmdline(bytes: &[u8]) -> Vec<String> {
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

/// `roots` and everything below them.
fn descendants(roots: BTreeSet<i32>, parents: &BTreeMap<i32, i32>) -> BTreeSet<i32> {
    let mut tree = roots;
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
    use rustix::process::Signal;
    use warden_protocol::routing::CONTAINER_WRAPPER;

    #[test]
    fn stat_lines_with_odd_names() {
        let entry = parse_stat(42, "42 (a b) c)) S 1 40 40 0 -1 4194560 …").unwrap();
        assert_eq!(
            entry,
            ProcEntry {
                pid: 42,
                parent: 1,
                pgid: 40,
                zombie: false
            }
        );
        let zombie = parse_stat(7, "7 (sh) Z 1 7 7 0").unwrap();
        assert!(zombie.zombie);
        assert_eq!(parse_stat(1, "garbage"), None);
    }

    #[test]
    fn cmdlines_split_on_nul() {
        assert_eq!(
            parse_cmdline(b"/bin/sh\0-c\0echo a\0"),
            ["/bin/sh", "-c", "echo a"]
        );
        assert_eq!(parse_cmdline(b""), Vec::<String>::new());
    }

    #[test]
    fn descendants_follow_parent_links() {
        let parents: BTreeMap<i32, i32> =
            [(10, 1), (11, 10), (12, 11), (13, 12), (20, 1), (21, 20)].into();
        assert_eq!(
            descendants(BTreeSet::from([11]), &parents),
            BTreeSet::from([11, 12, 13])
        );
        assert!(descendants(BTreeSet::new(), &parents).is_empty());
    }

    #[test]
    fn this_process_is_seen_in_its_group() {
        let me = rustix::process::getpid().as_raw_pid();
        let group = rustix::process::getpgrp().as_raw_pid();
        let seen = processes().into_iter().find(|p| p.pid == me).unwrap();
        assert_eq!(seen.pgid, group);
        let live = live_groups(&BTreeSet::from([group]));
        assert!(live.contains(&group));
    }

    /// The wrapper as a container would run it, here on the host: it, the
    /// inner shell and both sleeps are found by the tag, even the sleep
    /// that left for a group of its own (`setsid`), and no other.
    #[test]
    fn a_real_tagged_process_tree_is_found() {
        use std::os::unix::process::CommandExt;
        let tag = format!("procfs-test-{}", std::process::id());
        let mut child = std::process::Command::new("/bin/sh")
            .args([
                "-c",
                CONTAINER_WRAPPER,
                &tag,
                "sleep 30 & setsid sleep 30 & wait",
            ])
            .process_group(0)
            .spawn()
            .unwrap();
        let mut found = Vec::new();
        for _ in 0..100 {
            found = tagged(&[&tag]);
            if found.len() >= 4 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            found.len() >= 4,
            "wrapper, inner shell, two sleeps: {found:?}"
        );
        assert!(tagged(&["another-tag"]).is_empty());
        super::super::process_group::signal_processes(&found, Signal::KILL);
        child.wait().unwrap();
        for _ in 0..100 {
            if tagged(&[&tag]).is_empty() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("tagged processes survived SIGKILL: {:?}", tagged(&[&tag]));
    }
}
