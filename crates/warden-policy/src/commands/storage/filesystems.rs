//! Filesystems and network shares: ext4, XFS, Btrfs, NFS.
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(super) fn tune2fs(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .args
        .iter()
        .all(|a| !a.as_str().starts_with('-') || a.as_str() == "-l")
        && inv.has_short('l')
    {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "changes filesystem parameters")
    }
}

pub(super) fn btrfs(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    let read = matches!(
        words.as_slice(),
        ["filesystem" | "fi", "show" | "df" | "usage" | "du", ..]
            | ["subvolume" | "sub", "list" | "show" | "get-default", ..]
            | ["device" | "dev", "stats" | "usage", ..]
            | ["scrub" | "balance", "status", ..]
            | ["qgroup", "show", ..]
            | ["property", "get" | "list", ..]
            | ["version" | "help", ..]
    );
    if read && !inv.has_short('z') && !inv.has_long("--reset") {
        Verdict::Read
    } else {
        Verdict::unknown("not a read-only btrfs command")
    }
}

pub(super) fn exportfs(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().all(|a| matches!(a.as_str(), "-v" | "-s")) {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "changes NFS exports")
    }
}

/// `nfsstat`: `-z` zeroes the counters; `-Z` repeats until interrupted.
pub(super) fn nfsstat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .args
        .iter()
        .any(|a| a.as_str() == "-z" || a.as_str() == "--zero")
    {
        return Verdict::write(Risk::LowWrite, "`-z` zeroes the statistics");
    }
    if inv
        .args
        .iter()
        .any(|a| a.as_str().starts_with("-Z") || a.as_str().starts_with("--sleep"))
    {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`-Z` repeats until interrupted",
        );
    }
    Verdict::Read
}

/// `zdb -x DIR` copies blocks into DIR.
pub(super) fn zdb(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().any(|a| a.as_str().starts_with("-x")) {
        return Verdict::write(Risk::LowWrite, "`-x` copies blocks into a directory");
    }
    Verdict::Read
}
