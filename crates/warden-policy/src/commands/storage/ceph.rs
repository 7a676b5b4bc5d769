//! Ceph: `ceph`, `rbd`, `rados`.
use crate::commands::common::sub_in;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(super) fn ceph(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('w') || inv.has_long("--watch") || inv.has_short('W') {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`-w` watches the cluster log forever",
        );
    }
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    let read = matches!(
        words.as_slice(),
        [
            "status"
                | "health"
                | "df"
                | "versions"
                | "report"
                | "quorum_status"
                | "time-sync-status"
                | "-s",
            ..
        ] | [
            "osd",
            "tree"
                | "df"
                | "stat"
                | "dump"
                | "ls"
                | "perf"
                | "utilization"
                | "versions"
                | "blocked-by",
            ..
        ] | ["osd", "pool", "ls" | "get" | "stats", ..]
            | [
                "mon" | "mgr" | "mds" | "pg" | "fs",
                "stat" | "dump" | "ls" | "status" | "services",
                ..
            ]
            | ["auth", "ls" | "get", ..]
            | ["config", "get" | "dump" | "show" | "ls", ..]
            | ["crash", "ls" | "info", ..]
            | ["balancer", "status", ..]
            | ["orch", "ps" | "ls" | "status", ..]
            | ["orch", "host" | "device", "ls", ..]
            | ["log", "last", ..]
            | ["features" | "node" | "tell", "ls", ..]
    );
    if read || inv.arg(0) == Some("-s") {
        Verdict::Read
    } else {
        Verdict::unknown("not a known read-only ceph command")
    }
}

pub(super) fn rbd(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv
        .positionals(OptSpec {
            short_with_value: "p",
            long_with_value: &["--pool"],
        })
        .map(|(_, w)| w)
        .collect();
    match words.as_slice() {
        [
            "ls" | "list" | "info" | "du" | "status" | "showmapped" | "diff",
            ..,
        ]
        | ["snap", "ls" | "list", ..] => Verdict::Read,
        _ => Verdict::unknown("not a read-only rbd command"),
    }
}

pub(super) fn rados(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec {
            short_with_value: "p",
            long_with_value: &["--pool"],
        },
        &[
            "lspools",
            "df",
            "ls",
            "stat",
            "listxattr",
            "getxattr",
            "list-inconsistent-pg",
            "list-inconsistent-obj",
        ],
    )
}
