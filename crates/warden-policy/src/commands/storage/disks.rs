//! Disks and partitions: SMART, NVMe, hdparm, partitioners, md RAID.
use crate::commands::common::mode_flags;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

use super::subcommand_in;

pub(super) fn smartctl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('t')
        || inv.has_long("--test")
        || inv.has_short('s')
        || inv.has_long("--smart")
        || inv.has_short('o')
        || inv.has_short('S')
        || inv.has_short('X')
        || inv.has_long("--set")
        || inv.has_long("--offlineauto")
        || inv.has_long("--saveauto")
        || inv.has_long("--abort")
    {
        return Verdict::write(Risk::LowWrite, "starts a test or changes drive settings");
    }
    Verdict::Read
}

pub(super) fn nvme(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(
        inv,
        &[
            "list",
            "list-subsys",
            "id-ctrl",
            "id-ns",
            "smart-log",
            "error-log",
            "fw-log",
            "help",
            "version",
        ],
    )
}

pub(super) fn mdadm(inv: &Invocation<'_, '_>) -> Verdict {
    let reads = inv.has_long("--detail")
        || inv.has_short('D')
        || inv.has_long("--examine")
        || inv.has_short('E')
        || inv.has_long("--query")
        || inv.has_short('Q')
        || inv.has_long("--detail-platform");
    let writes = [
        "--create",
        "--fail",
        "--remove",
        "--add",
        "--re-add",
        "--stop",
        "--assemble",
        "--grow",
        "--zero-superblock",
        "--run",
        "--manage",
        "--build",
        "--monitor",
    ]
    .iter()
    .any(|l| inv.has_long(l))
        || ['C', 'f', 'r', 'a', 'S', 'A', 'G', 'R', 'F', 'B']
            .iter()
            .any(|&c| inv.has_short(c));
    if reads && !writes {
        Verdict::Read
    } else {
        Verdict::unknown("not a read-only mdadm mode")
    }
}

pub(super) fn hdparm(inv: &Invocation<'_, '_>) -> Verdict {
    const READ: &[&str] = &[
        "-i", "-I", "-t", "-T", "-tT", "-Tt", "-C", "-g", "--direct", "-v", "-h", "-V",
    ];
    if inv
        .option_args()
        .all(|a| !a.as_str().starts_with('-') || READ.contains(&a.as_str()))
    {
        Verdict::Read
    } else {
        Verdict::write(
            Risk::HighWrite,
            "changes drive settings or writes to the drive",
        )
    }
}

pub(super) fn fdisk(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('l') || inv.has_long("--list") {
        return Verdict::Read;
    }
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "edits the partition table interactively",
    )
}

pub(super) fn sfdisk(inv: &Invocation<'_, '_>) -> Verdict {
    mode_flags(
        inv,
        &[
            "-l",
            "--list",
            "-d",
            "--dump",
            "-s",
            "--show-size",
            "-V",
            "--verify",
            "-J",
            "--json",
            "-F",
            "--list-free",
        ],
        &[
            "--delete",
            "--reorder",
            "-r",
            "-A",
            "--activate",
            "--part-type",
            "--part-label",
            "--part-uuid",
            "--part-attrs",
        ],
    )
}

pub(super) fn parted(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('l') || inv.has_long("--list") {
        return Verdict::Read;
    }
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        [_] | [] => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "edits partitions interactively",
        ),
        [_device, "print" | "p", ..] if words.len() <= 3 => Verdict::Read,
        _ => Verdict::write(Risk::HighWrite, "changes the partition table"),
    }
}

pub(super) fn blockdev(inv: &Invocation<'_, '_>) -> Verdict {
    let all_getters = inv
        .option_args()
        .filter(|a| a.as_str().starts_with("--"))
        .all(|a| a.as_str().starts_with("--get") || a.as_str() == "--report");
    if all_getters {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "changes block device settings")
    }
}
