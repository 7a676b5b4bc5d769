//! Per-command knowledge: which programs, subcommands and flags are read-only.
//!
//! Every command name has exactly one rule, in exactly one family table
//! (a test fails when a name is registered twice). Where a program is
//! decided:
//!
//! | family | file(s) | programs |
//! |---|---|---|
//! | files | `files/` | ls, cat, head, tail, find, tar, stat, du, df, cp, rm, … |
//! | text | `text/` | grep, sed, awk, sort, uniq, cut, jq, wc, … |
//! | system | `system.rs`, `system/` | ps, top, systemctl, journalctl, dmesg, users, packages, … |
//! | net | `net.rs`, `net/` | ip, ss, iptables, nft, ping, curl, wget, dig, openssl, cloud CLIs, … |
//! | containers | `containers.rs`, `containers/` | docker, podman, kubectl, helm, crictl, … |
//! | proxmox | `proxmox/` | qm, pct, pvesh, pvesm, pvecm, ha-manager, virsh, … |
//! | storage | `storage/` | zpool, zfs, ceph, rbd, smartctl, lvm, mdadm, parted, … |
//! | git | `git.rs`, `git/` | git |
//! | shells | `shells.rs` | sh, bash, python, perl, … (interpreters) |
//! | wrappers | `wrappers.rs` | timeout, nice, env, xargs, ssh, watch, … |
//! | guards | `guards.rs` | sudo, su, eval, exec, source, nohup, … |
//! | builtins | `builtins.rs` | cd, set, export, read, test, … |
//! | databases | `databases.rs` | pg_isready, pg_dump, mysqladmin, etcdctl, … |
//! | sessions | `sessions.rs` | tmux, screen, ncdu, sftp, mosquitto_sub, … (interactive, otherwise unknown) |
//! | inspectors | `../inspect/` | sqlite3, mysql, psql, redis-cli (content inspected) |
//!
//! A rule looks at one simple command (name and arguments after quote
//! removal) and returns a [`Verdict`]. Options are read with the one walker,
//! [`crate::options`]. Commands not in any table are unknown, hence writes.
//! Reasons are phrased without the command name; the engine prefixes it.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::LazyLock;

use crate::invocation::Invocation;
use crate::verdict::Verdict;

mod builtins;
pub(crate) mod common;
mod containers;
mod databases;
pub(crate) mod destroys;
mod files;
mod follow;
mod git;
mod guards;
pub(crate) mod net;
mod proxmox;
mod sessions;
mod shells;
mod storage;
mod system;
mod text;
mod wrappers;

/// A per-command rule.
pub type Rule = fn(&Invocation<'_, '_>) -> Verdict;

/// Every family table with its name. Order does not matter: a name appears
/// in one table only.
const FAMILIES: &[(&str, &[(&str, Rule)])] = &[
    ("files", files::RULES),
    ("text", text::RULES),
    ("system", system::RULES),
    ("net", net::RULES),
    ("containers", containers::RULES),
    ("proxmox", proxmox::RULES),
    ("storage", storage::RULES),
    ("git", git::RULES),
    ("shells", shells::RULES),
    ("wrappers", wrappers::RULES),
    ("guards", guards::RULES),
    ("builtins", builtins::RULES),
    ("databases", databases::RULES),
    ("sessions", sessions::RULES),
    ("inspectors", crate::inspect::RULES),
];

/// FNV-1a: command names are short and not chosen to collide with each
/// other in a table built once; SipHash's setup costs more than the lookup.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }
}

/// A map keyed by short strings built once (program names, options).
pub(crate) type FastMap<V> = HashMap<&'static str, V, BuildHasherDefault<Fnv>>;

type Registry = FastMap<(Rule, &'static str)>;

static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
    let mut map = Registry::with_capacity_and_hasher(1024, BuildHasherDefault::default());
    for &(family, table) in FAMILIES {
        for &(name, rule) in table {
            // A second registration is a bug the duplicate test reports;
            // the first one stays.
            map.entry(name).or_insert((rule, family));
        }
    }
    map
});

/// The rule for a command name, if Warden knows the command.
pub fn lookup(name: &str) -> Option<Rule> {
    REGISTRY.get(name).map(|&(rule, _)| rule)
}

/// The family that decides a command name (`"files"` for `find`), if any.
pub fn family(name: &str) -> Option<&'static str> {
    REGISTRY.get(name).map(|&(_, family)| family)
}

/// Every command name with a rule (for reports and docs).
pub fn known_commands() -> impl Iterator<Item = &'static str> {
    REGISTRY.keys().copied()
}

#[cfg(test)]
mod registry_tests {
    use super::FAMILIES;

    #[test]
    fn no_name_is_registered_twice() {
        let mut seen: std::collections::HashMap<&str, &str> = Default::default();
        let mut twice = Vec::new();
        for &(family, table) in FAMILIES {
            for &(name, _) in table {
                if let Some(first) = seen.insert(name, family) {
                    twice.push(format!("`{name}` in {first} and {family}"));
                }
            }
        }
        assert!(twice.is_empty(), "registered twice:\n{}", twice.join("\n"));
    }

    #[test]
    fn families_answer_where_a_program_is_decided() {
        assert_eq!(super::family("find"), Some("files"));
        assert_eq!(super::family("journalctl"), Some("system"));
        assert_eq!(super::family("psql"), Some("inspectors"));
        assert_eq!(super::family("no-such-program"), None);
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Unit-test helpers for rule tables: run one rule on a whitespace-split line.
    use super::*;
    use crate::invocation::Arg;

    /// Split `line` on whitespace (no shell parsing) and apply the rule for
    /// its first word. Panics if the command has no rule.
    pub(crate) fn rule_verdict(line: &'static str) -> Verdict {
        let mut words = line.split_whitespace();
        let name = words.next().expect("empty line");
        let args: Vec<Arg<'static>> = words.map(Arg::literal).collect();
        let rule = lookup(name).unwrap_or_else(|| panic!("no rule for {name}"));
        rule(&Invocation::new(name, &args))
    }

    pub(crate) fn is_read(line: &'static str) -> bool {
        matches!(rule_verdict(line), Verdict::Read | Verdict::Conditional(_))
    }

    pub(crate) fn is_write(line: &'static str) -> bool {
        match rule_verdict(line) {
            Verdict::Write(..) | Verdict::Unknown(_) | Verdict::Guarded(..) => true,
            Verdict::Interactive(iv) => iv.intent == crate::verdict::Intent::WriteOrUnknown,
            Verdict::Read | Verdict::Conditional(_) | Verdict::Wrap(_) => false,
        }
    }

    /// The whole command a rule's rewrite of `line` stands for (a rule
    /// rewrites the arguments; the engine keeps the name).
    pub(crate) fn full_rewrite(line: &'static str) -> Option<String> {
        let name = line.split_whitespace().next()?;
        match rule_verdict(line) {
            Verdict::Interactive(iv) => iv.rewrite.map(|r| format!("{name} {r}")),
            _ => None,
        }
    }

    pub(crate) fn is_interactive(line: &'static str) -> bool {
        matches!(rule_verdict(line), Verdict::Interactive(_))
    }
}
