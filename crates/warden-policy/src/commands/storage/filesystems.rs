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
