//! What `/proc` says about the processes Warden started: which process
//! groups still have live members, and which processes carry a command's
//! tag in their environment (a command inside a container is not our
//! child, but the host's `/proc` sees it).
//!
//! Only read when a command is being stopped or Warden shuts down, never
//! while a command runs normally.

use std::collections::BTreeSet;
use std::path::Path;

/// The variable a routed command carries (`docker exec -e WARDEN_EXEC_TAG=…`)
/// so that it and everything it starts can be found from the host, even
/// after its parent is gone and its processes were reparented.
pub const EXEC_TAG_VAR: &str = "WARDEN_EXEC_TAG";

/// One process, from `/proc/<pid>/stat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcEntry {
    pub pid: i32,
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
    let _ppid = fields.next()?;
    let pgid = fields.next()?.parse().ok()?;
    Some(ProcEntry {
        pid,
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

/// Live processes whose environment holds `WARDEN_EXEC_TAG=<tag>` for one
/// of `tags`. Warden's own process group is never among them, whatever a
/// confused environment says.
pub(crate) fn tagged(tags: &[&str]) -> Vec<ProcEntry> {
    if tags.is_empty() {
        return Vec::new();
    }
    let wanted: Vec<Vec<u8>> = tags
        .iter()
        .map(|tag| format!("{EXEC_TAG_VAR}={tag}").into_bytes())
        .collect();
    let own_group = rustix::process::getpgrp().as_raw_pid();
    processes()
        .into_iter()
        .filter(|p| !p.zombie && p.pgid != own_group && p.pid > 1)
        .filter(|p| {
            environ(p.pid).is_some_and(|env| {
                env.split(|b| *b == 0)
                    .any(|var| wanted.iter().any(|w| w.as_slice() == var))
            })
        })
        .collect()
}

fn environ(pid: i32) -> Option<Vec<u8>> {
    std::fs::read(Path::new("/proc").join(pid.to_string()).join("environ")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_names() {
        let entry = parse_stat(42, "42 (a b) c)) S 1 40 40 0 -1 4194560 …").unwrap();
        assert_eq!(
            entry,
            ProcEntry {
                pid: 42,
                pgid: 40,
                zombie: false
            }
        );
        let zombie = parse_stat(7, "7 (sh) Z 1 7 7 0").unwrap();
        assert!(zombie.zombie);
        assert_eq!(parse_stat(1, "garbage"), None);
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
}
