//! Baseline, more: Proxmox tools, Ceph RBD/RADOS, ZFS helpers, disks and
//! filesystems, mostly as allowlists of read-only subcommands or flags.

use super::super::Rule;
use super::super::common::always_read;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("pvenode", pvenode),
    ("pveum", pveum),
    ("pveperf", always_read),
    ("pvereport", always_read),
    ("pveam", pveam),
    ("pvesubscription", pvesubscription),
    ("pve-firewall", pve_firewall),
    ("proxmox-backup-client", proxmox_backup_client),
    ("proxmox-backup-manager", proxmox_backup_manager),
    ("rbd", rbd),
    ("rados", rados),
    ("arc_summary", always_read),
    ("arcstat", interval_count),
    ("zdb", always_read),
    ("pvscan", pvscan),
    ("hdparm", hdparm),
    ("fdisk", fdisk),
    ("sfdisk", sfdisk),
    ("parted", parted),
    ("blockdev", blockdev),
    ("tune2fs", tune2fs),
    ("dumpe2fs", always_read),
    ("xfs_info", always_read),
    ("btrfs", btrfs),
    ("multipath", multipath),
    ("iscsiadm", iscsiadm),
    ("showmount", always_read),
    ("exportfs", exportfs),
    ("nfsstat", always_read),
    ("losetup", losetup),
    ("dmsetup", dmsetup),
    ("cryptsetup", cryptsetup),
    ("qemu-img", qemu_img),
    ("lxc-ls", always_read),
    ("lxc-info", always_read),
];

/// The subcommand (first positional) is one of `read`.
pub(super) fn sub_in(inv: &Invocation<'_, '_>, spec: OptSpec, read: &[&str]) -> Verdict {
    match inv.first_positional(spec) {
        Some((_, sub)) if read.contains(&sub) => Verdict::Read,
        Some((_, sub)) => {
            Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only"))
        }
        None => Verdict::unknown("no subcommand"),
    }
}

/// The first two positionals as `object action`, with `action` in `read`.
pub(super) fn object_action_in(inv: &Invocation<'_, '_>, read: &[&str]) -> Verdict {
    let mut pos = inv.positionals(OptSpec::NONE).map(|(_, w)| w);
    let object = pos.next();
    match pos.next() {
        Some(action) if read.contains(&action) => Verdict::Read,
        Some(action) => Verdict::unknown(format!(
            "`{} {action}` is not known to be read-only",
            object.unwrap_or_default()
        )),
        None => Verdict::unknown("no action"),
    }
}

/// Read only when one of `flags` (exact words) selects a read-only mode and
/// none of `writers` is present.
pub(super) fn mode_flags(inv: &Invocation<'_, '_>, flags: &[&str], writers: &[&str]) -> Verdict {
    if inv.args.iter().any(|a| writers.contains(&a.as_str())) {
        return Verdict::write(Risk::MediumWrite, "changes the configuration");
    }
    if inv.args.iter().any(|a| flags.contains(&a.as_str())) {
        Verdict::Read
    } else {
        Verdict::unknown("not a read-only mode")
    }
}

fn pvenode(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        ["config", "get", ..]
        | ["cert", "info", ..]
        | ["task", "list" | "log" | "status", ..]
        | ["help", ..] => Verdict::Read,
        _ => Verdict::unknown("not a read-only pvenode command"),
    }
}

fn pveum(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        [_, "list", ..]
        | ["user", "permissions", ..]
        | ["user", "token", "list", ..]
        | ["help", ..] => Verdict::Read,
        ["acl" | "user" | "group" | "role" | "pool" | "realm", ..] => {
            Verdict::write(Risk::MediumWrite, "changes users, groups or permissions")
        }
        _ => Verdict::unknown("not a read-only pveum command"),
    }
}

fn pveam(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(inv, OptSpec::NONE, &["available", "list", "help"])
}

fn pvesubscription(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(inv, OptSpec::NONE, &["get", "help"])
}

fn pve_firewall(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &["status", "compile", "localnet", "help"],
    )
}

fn proxmox_backup_client(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        ["list" | "status" | "version" | "help", ..]
        | ["snapshot", "list" | "files", ..]
        | ["catalog", "dump", ..] => Verdict::Read,
        _ => Verdict::unknown("not a read-only backup-client command"),
    }
}

fn proxmox_backup_manager(inv: &Invocation<'_, '_>) -> Verdict {
    object_action_in(inv, &["list", "show", "status"])
}

fn rbd(inv: &Invocation<'_, '_>) -> Verdict {
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

fn rados(inv: &Invocation<'_, '_>) -> Verdict {
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

/// `arcstat 1` repeats forever; `arcstat 1 5` stops.
fn interval_count(inv: &Invocation<'_, '_>) -> Verdict {
    let numbers = inv
        .positionals(OptSpec::NONE)
        .filter(|(_, w)| w.parse::<f64>().is_ok())
        .count();
    if numbers == 1 {
        Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "an interval without a count repeats forever",
        )
    } else {
        Verdict::Read
    }
}

fn pvscan(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long("--cache") || inv.has_short('a') || inv.has_long("--activate") {
        return Verdict::write(Risk::LowWrite, "updates the LVM cache or activates volumes");
    }
    Verdict::Read
}

fn hdparm(inv: &Invocation<'_, '_>) -> Verdict {
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

fn fdisk(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('l') || inv.has_long("--list") {
        return Verdict::Read;
    }
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "edits the partition table interactively",
    )
}

fn sfdisk(inv: &Invocation<'_, '_>) -> Verdict {
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

fn parted(inv: &Invocation<'_, '_>) -> Verdict {
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

fn blockdev(inv: &Invocation<'_, '_>) -> Verdict {
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

fn tune2fs(inv: &Invocation<'_, '_>) -> Verdict {
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

fn btrfs(inv: &Invocation<'_, '_>) -> Verdict {
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

fn multipath(inv: &Invocation<'_, '_>) -> Verdict {
    mode_flags(
        inv,
        &["-ll", "-l", "-t", "-T"],
        &["-f", "-F", "-r", "-w", "-W", "-a"],
    )
}

fn iscsiadm(inv: &Invocation<'_, '_>) -> Verdict {
    let writes = [
        "--login",
        "-l",
        "--logout",
        "-u",
        "--op",
        "-o",
        "--rescan",
        "-R",
        "--logoutall",
        "--loginall",
    ];
    if inv
        .args
        .iter()
        .any(|a| writes.contains(&a.as_str()) || a.as_str().starts_with("--op="))
    {
        return Verdict::write(Risk::MediumWrite, "logs in, out, or changes iSCSI records");
    }
    Verdict::Read
}

fn exportfs(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().all(|a| matches!(a.as_str(), "-v" | "-s")) {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "changes NFS exports")
    }
}

fn losetup(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty()
        || inv.args.iter().all(|a| {
            matches!(
                a.as_str(),
                "-l" | "-a" | "--list" | "--all" | "-J" | "--json" | "-n" | "--noheadings"
            ) || a.as_str().starts_with("-O")
                || a.as_str().starts_with("--output")
        })
    {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "attaches or detaches loop devices")
    }
}

fn dmsetup(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "ls", "info", "table", "status", "deps", "version", "targets", "help",
        ],
    )
}

fn cryptsetup(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "status",
            "luksDump",
            "isLuks",
            "luksUUID",
            "tcryptDump",
            "bitlkDump",
            "--version",
            "--help",
        ],
    )
}

fn qemu_img(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "info",
            "check",
            "compare",
            "map",
            "measure",
            "--version",
            "--help",
        ],
    )
}
