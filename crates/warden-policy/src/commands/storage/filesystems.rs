//! Filesystems and network shares: ext4, XFS, Btrfs, ZFS debugging, NFS.
//! Each reads only in the modes and with the options listed.
use crate::commands::common::{Globs, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

/// `tune2fs -l DEV` lists the superblock; every other option sets one.
pub(super) fn tune2fs(inv: &Invocation<'_, '_>) -> Verdict {
    const TUNE2FS: Options = Options {
        short_flags: "l",
        ..Options::GNU
    };
    let mut lists = false;
    let verdict = walk_checked(inv, &[&TUNE2FS], Globs::Refused, |tok| {
        lists |= matches!(tok, Tok::Short { flag: 'l', .. });
        None
    });
    match verdict {
        Verdict::Read if !lists => {
            Verdict::write(Risk::MediumWrite, "changes filesystem parameters")
        }
        other => other,
    }
}

const DUMPE2FS: Options = Options {
    short_flags: "bfghixmV",
    short_values: "o",
    ..Options::GNU
};

/// `dumpe2fs` prints; it has no option that writes.
pub(super) fn dumpe2fs(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&DUMPE2FS], Globs::Refused, |_| None)
}

/// `xfs_info [-V] [-t MTAB] MOUNT|DEV`.
pub(super) fn xfs_info(inv: &Invocation<'_, '_>) -> Verdict {
    const XFS_INFO: Options = Options {
        short_flags: "V",
        short_values: "t",
        ..Options::GNU
    };
    walk_checked(inv, &[&XFS_INFO], Globs::Refused, |_| None)
}

/// `showmount [-ade] [HOST]` asks a server for its exports.
pub(super) fn showmount(inv: &Invocation<'_, '_>) -> Verdict {
    const SHOWMOUNT: Options = Options {
        short_flags: "adehv",
        long_flags: &[
            "--all",
            "--directories",
            "--exports",
            "--help",
            "--version",
            "--no-headers",
        ],
        ..Options::GNU
    };
    walk_checked(inv, &[&SHOWMOUNT], Globs::Refused, |_| None)
}

/// `exportfs [-v] [-s]` lists the exports; anything else changes them.
pub(super) fn exportfs(inv: &Invocation<'_, '_>) -> Verdict {
    const EXPORTFS: Options = Options {
        short_flags: "vs",
        ..Options::GNU
    };
    let verdict = walk_checked(inv, &[&EXPORTFS], Globs::Refused, |tok| {
        matches!(tok, Tok::Operand { .. })
            .then(|| Verdict::write(Risk::MediumWrite, "changes NFS exports"))
    });
    match verdict {
        Verdict::Unknown(_) => Verdict::write(Risk::MediumWrite, "changes NFS exports"),
        other => other,
    }
}

/// `nfsstat`: `-z` zeroes the counters (not on the list); `-Z` repeats
/// until interrupted.
pub(super) fn nfsstat(inv: &Invocation<'_, '_>) -> Verdict {
    const NFSSTAT: Options = Options {
        short_flags: "scnrvlm234",
        short_values: "oS",
        short_optional: "Z",
        long_flags: &[
            "--server",
            "--client",
            "--nfs",
            "--rpc",
            "--verbose",
            "--all",
            "--list",
            "--mounts",
            "--help",
            "--version",
        ],
        long_values: &["--since"],
        long_optional: &["--sleep"],
        ..Options::GNU
    };
    walk_checked(inv, &[&NFSSTAT], Globs::Refused, |tok| {
        matches!(
            tok,
            Tok::Short { flag: 'Z', .. }
                | Tok::Long {
                    name: "--sleep",
                    ..
                }
        )
        .then(|| {
            Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "`-Z` repeats until interrupted",
            )
        })
    })
}

const ZDB: Options = Options {
    short_flags: "AbBcCdDeEFGhikLlmMNOPqRsSuvVXYyr",
    short_values: "IoptUxK",
    ..Options::POSIX
};

/// `zdb` opens pools read-only; `-x DIR` copies blocks into DIR and `-r`
/// copies a file out of a dataset.
pub(super) fn zdb(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&ZDB], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'x', .. } => Some(Verdict::write(
            Risk::LowWrite,
            "`-x` copies blocks into a directory",
        )),
        Tok::Short { flag: 'r', .. } => Some(Verdict::write(
            Risk::LowWrite,
            "`-r` copies a file out of a dataset",
        )),
        _ => None,
    })
}

/// btrfs's options before the command group.
const BTRFS_GLOBAL: Options = Options {
    short_flags: "vq",
    long_flags: &["--verbose", "--quiet", "--help", "--version"],
    long_values: &["--format", "--log"],
    style: crate::options::Style::GnuStopAtOperand,
    ..Options::GNU
};

/// Options of btrfs's read-only commands: units, listing filters, the
/// read-only `check`.
const BTRFS_READ: Options = Options {
    short_flags: "bhHkmgtTdsacoupqRrefFCG",
    short_values: "",
    long_flags: &[
        "--raw",
        "--human-readable",
        "--iec",
        "--si",
        "--kbytes",
        "--mbytes",
        "--gbytes",
        "--tbytes",
        "--all-devices",
        "--mounted",
        "--summarize",
        "--check",
        "--readonly",
        "--progress",
        "--check-data-csum",
        "--backup",
        "--qgroup-report",
        "--sync",
        "--help",
    ],
    long_values: &[
        "--sort",
        "--super",
        "--subvol-extents",
        "--rootid",
        "--uuid",
    ],
    ..Options::GNU
};

/// The btrfs command groups and their commands, for prefix matching
/// (btrfs takes any unambiguous prefix: `fi sh`).
const BTRFS_GROUPS: &[(&str, &[&str])] = &[
    ("balance", &["start", "pause", "cancel", "resume", "status"]),
    ("check", &[]),
    (
        "device",
        &["add", "delete", "remove", "scan", "ready", "stats", "usage"],
    ),
    (
        "filesystem",
        &[
            "df",
            "du",
            "show",
            "sync",
            "defragment",
            "resize",
            "label",
            "usage",
            "mkswapfile",
        ],
    ),
    (
        "inspect-internal",
        &[
            "inode-resolve",
            "logical-resolve",
            "subvolid-resolve",
            "rootid",
            "min-dev-size",
            "dump-tree",
            "dump-super",
            "tree-stats",
            "map-swapfile",
            "list-chunks",
        ],
    ),
    ("property", &["get", "set", "list"]),
    (
        "qgroup",
        &[
            "assign",
            "remove",
            "create",
            "destroy",
            "show",
            "limit",
            "clear-stale",
        ],
    ),
    ("quota", &["enable", "disable", "rescan", "status"]),
    ("receive", &[]),
    ("replace", &["start", "status", "cancel"]),
    (
        "rescue",
        &[
            "chunk-recover",
            "super-recover",
            "zero-log",
            "fix-device-size",
            "clear-uuid-tree",
        ],
    ),
    ("restore", &[]),
    ("scrub", &["start", "cancel", "resume", "status", "limit"]),
    ("send", &[]),
    (
        "subvolume",
        &[
            "create",
            "delete",
            "snapshot",
            "list",
            "show",
            "get-default",
            "set-default",
            "find-new",
            "sync",
        ],
    ),
    ("help", &[]),
    ("version", &[]),
];

/// The read-only `group command` pairs (`check` is read-only without
/// `--repair` and the tree-rebuilding options, which are not listed).
const BTRFS_READS: &[(&str, &str)] = &[
    ("filesystem", "show"),
    ("filesystem", "df"),
    ("filesystem", "usage"),
    ("filesystem", "du"),
    ("subvolume", "list"),
    ("subvolume", "show"),
    ("subvolume", "get-default"),
    ("subvolume", "find-new"),
    ("device", "stats"),
    ("device", "usage"),
    ("scrub", "status"),
    ("balance", "status"),
    ("replace", "status"),
    ("quota", "status"),
    ("qgroup", "show"),
    ("property", "get"),
    ("property", "list"),
    ("inspect-internal", "inode-resolve"),
    ("inspect-internal", "logical-resolve"),
    ("inspect-internal", "subvolid-resolve"),
    ("inspect-internal", "rootid"),
    ("inspect-internal", "min-dev-size"),
    ("inspect-internal", "dump-tree"),
    ("inspect-internal", "dump-super"),
    ("inspect-internal", "tree-stats"),
    ("check", ""),
    ("help", ""),
    ("version", ""),
];

/// The one name in `names` that `word` spells or abbreviates.
fn expand<'n>(word: &str, names: impl Iterator<Item = &'n str> + Clone) -> Option<&'n str> {
    if let Some(exact) = names.clone().find(|n| *n == word) {
        return Some(exact);
    }
    let mut matches = names.filter(|n| n.starts_with(word));
    match (matches.next(), matches.next()) {
        (Some(one), None) if !word.is_empty() => Some(one),
        _ => None,
    }
}

/// `btrfs [global] GROUP COMMAND [options] ARGS`: the listed read-only
/// commands with their options; `device stats -z` resets the counters.
pub(super) fn btrfs(inv: &Invocation<'_, '_>) -> Verdict {
    let Some((group_index, group_word)) = BTRFS_GLOBAL.walk(inv.args).find_map(|t| match t {
        Tok::Operand { index, text } => Some((index, text)),
        _ => None,
    }) else {
        return walk_checked(inv, &[&BTRFS_GLOBAL], Globs::Refused, |_| None);
    };
    let Some((group, commands)) = expand(group_word, BTRFS_GROUPS.iter().map(|(g, _)| *g))
        .and_then(|g| BTRFS_GROUPS.iter().find(|(name, _)| *name == g))
    else {
        return Verdict::unknown(format!("`btrfs {group_word}` is not known"));
    };
    let (command, rest) = if commands.is_empty() {
        ("", group_index + 1)
    } else {
        let word = inv.arg(group_index + 1).unwrap_or_default();
        match expand(word, commands.iter().copied()) {
            Some(command) => (command, group_index + 2),
            None => {
                return Verdict::unknown(format!("`btrfs {group} {word}` is not known"));
            }
        }
    };
    if !BTRFS_READS.contains(&(*group, command)) {
        return Verdict::unknown(format!("`btrfs {group} {command}` is not read-only"));
    }
    let globals = Invocation::new(inv.name, &inv.args[..group_index]);
    let global = walk_checked(&globals, &[&BTRFS_GLOBAL], Globs::Refused, |_| None);
    if global != Verdict::Read {
        return global;
    }
    let own = inv.from(rest.min(inv.args.len()));
    walk_checked(&own, &[&BTRFS_READ], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'z', .. } => Some(Verdict::write(
            Risk::LowWrite,
            "`-z` resets the error counters",
        )),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invocation::Arg;

    fn reads(rule: fn(&Invocation<'_, '_>) -> Verdict, line: &str) -> bool {
        let args: Vec<Arg<'_>> = line.split_whitespace().map(Arg::literal).collect();
        rule(&Invocation::new("x", &args)) == Verdict::Read
    }

    #[test]
    fn reads_and_refusals() {
        type Rule = fn(&Invocation<'_, '_>) -> Verdict;
        let cases: &[(Rule, &str, bool)] = &[
            (tune2fs, "-l /dev/sda1", true),
            (tune2fs, "-l -c 20 /dev/sda1", false),
            (tune2fs, "-O ^has_journal /dev/sda1", false),
            (dumpe2fs, "-h /dev/sda1", true),
            (exportfs, "-v", true),
            (exportfs, "-vs", true),
            (exportfs, "-ra", false),
            (exportfs, "host:/srv", false),
            (nfsstat, "-s", true),
            (nfsstat, "-z", false),
            (nfsstat, "-Z5", false),
            (zdb, "-C tank", true),
            (zdb, "-bcsv tank", true),
            (zdb, "-x /tmp/d tank", false),
            (zdb, "-r tank/fs /etc/x /tmp/y", false),
            (btrfs, "filesystem show", true),
            (btrfs, "fi sh", true),
            (btrfs, "fi df -h /", true),
            (btrfs, "--format json filesystem df /", true),
            (btrfs, "subvolume list -a /", true),
            (btrfs, "sub list /", true),
            (btrfs, "device stats /", true),
            (btrfs, "device stats -z /", false),
            (btrfs, "dev stats -c /", true),
            (btrfs, "scrub status /", true),
            (btrfs, "scrub start /", false),
            (btrfs, "check --readonly /dev/sda", true),
            (btrfs, "check --repair /dev/sda", false),
            (btrfs, "check --init-csum-tree /dev/sda", false),
            (btrfs, "subvolume delete /x", false),
            (btrfs, "filesystem label /dev/sda new", false),
            (btrfs, "f show", true),
            (btrfs, "s list /", false),
            (btrfs, "property set / ro true", false),
            (btrfs, "rescue zero-log /dev/sda", false),
        ];
        for (rule, line, expected) in cases {
            assert_eq!(reads(*rule, line), *expected, "{line}");
        }
    }
}
