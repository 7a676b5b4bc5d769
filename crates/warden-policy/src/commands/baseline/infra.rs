//! Baseline: Proxmox VE, Ceph, ZFS, LVM, md RAID, disks, libvirt and git.
//! Family tables registered later refine these entries.

use super::super::Rule;
use super::super::common::{always_read, high_write};
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("lsblk", always_read),
    ("qm", qm),
    ("pct", pct),
    ("pvesm", pvesm),
    ("pvesh", pvesh),
    ("pveversion", always_read),
    ("ceph", ceph),
    ("zpool", zpool),
    ("zfs", zfs),
    ("smartctl", smartctl),
    ("nvme", nvme),
    ("mdadm", mdadm),
    ("lvs", always_read),
    ("vgs", always_read),
    ("pvs", always_read),
    ("virsh", virsh),
    ("git", git),
    ("blkid", always_read),
    ("findmnt", always_read),
    ("lvdisplay", always_read),
    ("vgdisplay", always_read),
    ("pvdisplay", always_read),
    ("lvscan", always_read),
    ("vgscan", always_read),
    ("pvecm", pvecm),
    ("ha-manager", ha_manager),
    ("wipefs", high_write),
    ("lvremove", high_write),
];

fn subcommand_in(inv: &Invocation<'_, '_>, read: &[&str]) -> Verdict {
    match inv.first_positional(OptSpec::NONE) {
        Some((_, sub)) if read.contains(&sub) => Verdict::Read,
        Some((_, sub)) => {
            Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only"))
        }
        None => Verdict::unknown("no subcommand"),
    }
}

const QM_GUEST_READS: &[&str] = &[
    "info",
    "get-fsinfo",
    "get-host-name",
    "get-memory-blocks",
    "get-memory-block-info",
    "get-osinfo",
    "get-time",
    "get-timezone",
    "get-users",
    "get-vcpus",
    "network-get-interfaces",
    "ping",
];

fn qm(inv: &Invocation<'_, '_>) -> Verdict {
    if matches!(inv.arg(0), Some("guest" | "agent")) {
        let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
        return match words.as_slice() {
            ["guest", "cmd", _, command] | ["agent", _, command]
                if QM_GUEST_READS.contains(command) =>
            {
                Verdict::Read
            }
            ["guest", "exec-status", ..] => Verdict::Read,
            _ => Verdict::unknown("guest agent command may change the guest"),
        };
    }
    if matches!(inv.arg(0), Some("terminal" | "monitor" | "vncproxy")) {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens the VM's console or monitor",
        );
    }
    subcommand_in(
        inv,
        &[
            "list",
            "config",
            "pending",
            "showcmd",
            "status",
            "listsnapshot",
            "help",
        ],
    )
}

fn pct(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.arg(0) == Some("exec") {
        return match inv.args.iter().position(|a| a.as_str() == "--") {
            Some(i) => Verdict::wrap_argv("pct exec", i + 1),
            None => Verdict::wrap_argv("pct exec", 2),
        };
    }
    if matches!(inv.arg(0), Some("enter" | "console")) {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens a shell in the container",
        );
    }
    subcommand_in(
        inv,
        &[
            "list",
            "config",
            "pending",
            "status",
            "listsnapshot",
            "df",
            "cpusets",
            "help",
        ],
    )
}

fn pvesm(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(
        inv,
        &["status", "list", "path", "scan", "extractconfig", "help"],
    )
}

fn pvesh(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(inv, &["get", "ls", "usage", "help"])
}

fn ceph(inv: &Invocation<'_, '_>) -> Verdict {
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

fn zpool(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        Some("iostat") => {
            let numbers = inv
                .args
                .iter()
                .filter(|a| a.as_str().parse::<u32>().is_ok())
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
        Some("events") if inv.has_short('f') => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`events -f` follows forever",
        ),
        Some("events") if inv.has_short('c') => {
            Verdict::write(Risk::LowWrite, "`-c` clears the event log")
        }
        _ => subcommand_in(
            inv,
            &[
                "list", "status", "get", "history", "version", "help", "events",
            ],
        ),
    }
}

fn zfs(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(
        inv,
        &[
            "list",
            "get",
            "holds",
            "userspace",
            "groupspace",
            "projectspace",
            "diff",
            "version",
            "help",
        ],
    )
}

fn smartctl(inv: &Invocation<'_, '_>) -> Verdict {
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

fn nvme(inv: &Invocation<'_, '_>) -> Verdict {
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

fn mdadm(inv: &Invocation<'_, '_>) -> Verdict {
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

fn virsh(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() || inv.arg(0) == Some("console") {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens an interactive console",
        );
    }
    subcommand_in(
        inv,
        &[
            "list",
            "dominfo",
            "domstate",
            "domblklist",
            "domiflist",
            "dumpxml",
            "net-list",
            "net-info",
            "pool-list",
            "vol-list",
            "nodeinfo",
            "capabilities",
            "version",
            "snapshot-list",
            "domstats",
            "domifaddr",
            "vcpuinfo",
            "dommemstat",
            "domblkinfo",
            "nodememstats",
            "nodecpustats",
            "hostname",
            "uri",
            "help",
        ],
    )
}

fn pvecm(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(inv, &["status", "nodes", "help"])
}

fn ha_manager(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(inv, &["status", "config", "groupconfig", "help"])
}

fn git(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('p')
        && inv
            .arg(0)
            .is_some_and(|a| a.starts_with('-') && a.contains('p'))
        || inv.has_long("--paginate")
    {
        return Verdict::interactive(InteractiveCategory::Pager, "`--paginate` pages the output");
    }
    let Some(first) = inv.arg(0) else {
        return Verdict::unknown("no subcommand");
    };
    if first.starts_with('-') {
        return Verdict::unknown("global options are not inspected here");
    }
    if inv.args.iter().any(|a| {
        a.as_str().starts_with("--output")
            || a.as_str() == "--ext-diff"
            || a.as_str() == "--textconv"
            || a.as_str() == "-O"
            || a.as_str().starts_with("--open-files-in-pager")
    }) {
        return Verdict::unknown("writes a file or runs a configured program");
    }
    let rest = inv.from(1);
    match first {
        "branch" => {
            let listing = rest.positionals(OptSpec::NONE).next().is_none()
                || rest.has_short('l')
                || rest.has_long("--list")
                || rest.has_long("--contains")
                || rest.has_long("--merged");
            let changes = ['d', 'D', 'm', 'M', 'c', 'C', 'u', 'f']
                .iter()
                .any(|&c| rest.has_short(c))
                || [
                    "--delete",
                    "--move",
                    "--copy",
                    "--set-upstream-to",
                    "--unset-upstream",
                    "--edit-description",
                    "--force",
                ]
                .iter()
                .any(|l| rest.has_long(l));
            if listing && !changes {
                Verdict::Read
            } else {
                Verdict::write(Risk::LowWrite, "creates, renames or deletes a branch")
            }
        }
        "tag" if rest.args.is_empty() || rest.has_short('l') || rest.has_long("--list") => {
            Verdict::Read
        }
        "remote"
            if rest.args.is_empty()
                || matches!(rest.arg(0), Some("-v" | "--verbose" | "show" | "get-url")) =>
        {
            Verdict::Read
        }
        "stash" if matches!(rest.arg(0), Some("list" | "show")) => Verdict::Read,
        "reflog"
            if matches!(rest.arg(0), None | Some("show" | "list" | "exists"))
                || rest
                    .arg(0)
                    .is_some_and(|a| a.starts_with('-') && a != "--expire" && a != "--delete") =>
        {
            Verdict::Read
        }
        "config"
            if rest.args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "--get" | "--get-all" | "--get-regexp" | "--list" | "-l" | "get" | "list"
                )
            }) && !rest.has_word(&[
                "--unset",
                "--add",
                "--unset-all",
                "--replace-all",
                "-e",
                "--edit",
                "set",
                "unset",
            ]) =>
        {
            Verdict::Read
        }
        "log" | "show" | "diff" | "blame" | "annotate" | "status" | "shortlog" | "describe"
        | "rev-parse" | "rev-list" | "ls-files" | "ls-tree" | "cat-file" | "grep" | "show-ref"
        | "for-each-ref" | "merge-base" | "name-rev" | "count-objects" | "whatchanged"
        | "version" => Verdict::Read,
        _ => Verdict::unknown(format!("subcommand `{first}` is not known to be read-only")),
    }
}
