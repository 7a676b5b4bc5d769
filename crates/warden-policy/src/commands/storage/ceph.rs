//! Ceph: `ceph`, `rbd`, `rados`.
use crate::commands::common::{Globs, bad, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

/// ceph's global options.
const CEPH: Options = Options {
    short_flags: "hsvwW",
    short_values: "fknmoiC",
    long_flags: &[
        "--status",
        "--concise",
        "--help",
        "--version",
        "--watch",
        "--watch-debug",
        "--watch-info",
        "--watch-sec",
        "--watch-warn",
        "--watch-error",
        "--verbose",
        "--no-increasing",
    ],
    long_values: &[
        "--format",
        "--keyring",
        "--name",
        "--id",
        "--user",
        "--cluster",
        "--mon-host",
        "--connect-timeout",
        "--watch-channel",
        "--out-file",
        "--in-file",
        "--admin-daemon",
    ],
    ..Options::GO
};

/// Read-only ceph commands: the words, then how many free arguments
/// (names, ids) may follow; `*` matches any one word. Anything longer or
/// different (`health mute`, `osd set noout`, `osd pool set`) is not read.
const CEPH_READS: &[(&[&str], usize)] = &[
    (&["status"], 0),
    (&["health"], 0),
    (&["health", "detail"], 0),
    (&["df"], 0),
    (&["df", "detail"], 0),
    (&["versions"], 0),
    (&["version"], 0),
    (&["report"], 1),
    (&["quorum_status"], 0),
    (&["mon_status"], 0),
    (&["time-sync-status"], 0),
    (&["fsid"], 0),
    (&["features"], 0),
    (&["node", "ls"], 1),
    (&["osd", "tree"], 1),
    (&["osd", "df"], 1),
    (&["osd", "df", "tree"], 0),
    (&["osd", "stat"], 0),
    (&["osd", "status"], 1),
    (&["osd", "dump"], 1),
    (&["osd", "ls"], 1),
    (&["osd", "ls-tree"], 1),
    (&["osd", "perf"], 0),
    (&["osd", "utilization"], 0),
    (&["osd", "versions"], 0),
    (&["osd", "blocked-by"], 0),
    (&["osd", "find"], 1),
    (&["osd", "metadata"], 1),
    (&["osd", "count-metadata"], 1),
    (&["osd", "numa-status"], 0),
    (&["osd", "lspools"], 0),
    (&["osd", "getmaxosd"], 0),
    (&["osd", "map"], 2),
    (&["osd", "ok-to-stop"], 8),
    (&["osd", "safe-to-destroy"], 8),
    (&["osd", "pool", "ls"], 1),
    (&["osd", "pool", "get"], 2),
    (&["osd", "pool", "stats"], 1),
    (&["osd", "pool", "autoscale-status"], 0),
    (&["osd", "pool", "get-quota"], 1),
    (&["osd", "pool", "application", "get"], 3),
    (&["osd", "crush", "tree"], 0),
    (&["osd", "crush", "dump"], 0),
    (&["osd", "crush", "rule", "ls"], 0),
    (&["osd", "crush", "rule", "dump"], 1),
    (&["osd", "crush", "class", "ls"], 0),
    (&["osd", "crush", "class", "ls-osd"], 1),
    (&["osd", "crush", "show-tunables"], 0),
    (&["osd", "crush", "ls"], 1),
    (&["osd", "crush", "weight-set", "ls"], 0),
    (&["osd", "erasure-code-profile", "ls"], 0),
    (&["osd", "erasure-code-profile", "get"], 1),
    (&["pg", "stat"], 0),
    (&["pg", "dump"], 1),
    (&["pg", "dump_stuck"], 2),
    (&["pg", "ls"], 2),
    (&["pg", "ls-by-pool"], 2),
    (&["pg", "ls-by-osd"], 2),
    (&["pg", "ls-by-primary"], 2),
    (&["pg", "map"], 1),
    (&["pg", "*", "query"], 0),
    (&["pg", "*", "list_unfound"], 0),
    (&["mon", "stat"], 0),
    (&["mon", "dump"], 1),
    (&["mon", "metadata"], 1),
    (&["mon", "versions"], 0),
    (&["mon", "count-metadata"], 1),
    (&["mon", "feature", "ls"], 0),
    (&["mgr", "stat"], 0),
    (&["mgr", "dump"], 0),
    (&["mgr", "services"], 0),
    (&["mgr", "metadata"], 1),
    (&["mgr", "versions"], 0),
    (&["mgr", "module", "ls"], 0),
    (&["mgr", "count-metadata"], 1),
    (&["mds", "stat"], 0),
    (&["mds", "metadata"], 1),
    (&["mds", "versions"], 0),
    (&["mds", "count-metadata"], 1),
    (&["fs", "ls"], 0),
    (&["fs", "status"], 1),
    (&["fs", "dump"], 0),
    (&["fs", "get"], 1),
    (&["fs", "volume", "ls"], 0),
    (&["fs", "volume", "info"], 1),
    (&["fs", "subvolume", "ls"], 2),
    (&["fs", "subvolume", "info"], 3),
    (&["fs", "subvolumegroup", "ls"], 1),
    (&["auth", "ls"], 0),
    (&["auth", "list"], 0),
    (&["auth", "get"], 1),
    (&["auth", "print-key"], 1),
    (&["auth", "export"], 1),
    (&["config", "get"], 2),
    (&["config", "dump"], 0),
    (&["config", "show"], 2),
    (&["config", "show-with-defaults"], 1),
    (&["config", "ls"], 0),
    (&["config", "log"], 1),
    (&["config", "help"], 1),
    (&["config-key", "get"], 1),
    (&["config-key", "ls"], 0),
    (&["config-key", "list"], 0),
    (&["config-key", "exists"], 1),
    (&["config-key", "dump"], 1),
    (&["crash", "ls"], 0),
    (&["crash", "ls-new"], 0),
    (&["crash", "info"], 1),
    (&["crash", "stat"], 0),
    (&["balancer", "status"], 0),
    (&["balancer", "ls"], 0),
    (&["balancer", "eval"], 1),
    (&["balancer", "pool", "ls"], 0),
    (&["orch", "ps"], 2),
    (&["orch", "ls"], 2),
    (&["orch", "status"], 0),
    (&["orch", "host", "ls"], 0),
    (&["orch", "device", "ls"], 2),
    (&["orch", "upgrade", "status"], 0),
    (&["log", "last"], 3),
    (&["device", "ls"], 0),
    (&["device", "ls-by-daemon"], 1),
    (&["device", "ls-by-host"], 1),
    (&["device", "info"], 1),
    (&["device", "get-health-metrics"], 1),
    (&["progress"], 0),
    (&["progress", "json"], 0),
    (&["telemetry", "status"], 0),
    (&["osd", "pool", "ls", "detail"], 0),
];

/// `ceph [options] COMMAND…`: only the commands in [`CEPH_READS`], with the
/// free arguments they take; `-w` and `iostat` stream; `-o` writes a file.
pub(super) fn ceph(inv: &Invocation<'_, '_>) -> Verdict {
    let mut words: Vec<&str> = Vec::new();
    let mut status = false;
    for tok in CEPH.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'w' | 'W', ..
            }
            | Tok::Long {
                name:
                    "--watch" | "--watch-debug" | "--watch-info" | "--watch-sec" | "--watch-warn"
                    | "--watch-error" | "--watch-channel",
                ..
            } => {
                return Verdict::interactive(
                    InteractiveCategory::UnboundedStream,
                    "`-w` watches the cluster log forever",
                );
            }
            Tok::Short { flag: 'o', .. }
            | Tok::Long {
                name: "--out-file", ..
            } => {
                return Verdict::write(Risk::LowWrite, "`-o` writes the output to a file");
            }
            Tok::Short { flag: 'i', .. }
            | Tok::Long {
                name: "--in-file" | "--admin-daemon",
                ..
            } => {
                return Verdict::unknown("reads input for a command, or talks to an admin socket");
            }
            Tok::Short { flag: 's', .. }
            | Tok::Long {
                name: "--status", ..
            } => status = true,
            Tok::Short {
                flag: 'h' | 'v', ..
            }
            | Tok::Long {
                name: "--help" | "--version",
                ..
            } => {
                return Verdict::Read;
            }
            Tok::Operand { index, text } => {
                if inv.args.get(index).is_some_and(|a| !a.is_literal()) {
                    return bad(inv.args[index].raw);
                }
                words.push(text);
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    if words.is_empty() && status {
        return Verdict::Read;
    }
    if words.first() == Some(&"iostat") {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`iostat` prints until interrupted",
        );
    }
    let read = CEPH_READS.iter().any(|(pattern, extra)| {
        words.len() >= pattern.len()
            && words.len() <= pattern.len() + extra
            && pattern.iter().zip(&words).all(|(p, w)| *p == "*" || p == w)
    });
    if read {
        Verdict::Read
    } else {
        Verdict::unknown(format!(
            "`ceph {}` is not a known read-only command",
            words.join(" ")
        ))
    }
}

/// Options the Ceph clients share: who to connect as and where. Not
/// `-c`/`--conf` (a config file can name log files and admin sockets) nor
/// `--log-file` or `--admin-socket`.
const CEPH_CLIENT: Options = Options {
    short_values: "pnkm",
    long_flags: &["--help", "--version"],
    long_values: &[
        "--pool",
        "--namespace",
        "--id",
        "--name",
        "--user",
        "--cluster",
        "--keyring",
        "--mon-host",
        "--format",
    ],
    ..Options::GNU
};

const RBD_READ: Options = Options {
    short_flags: "la",
    long_flags: &[
        "--long",
        "--all",
        "--pretty-format",
        "--whole-object",
        "--exact",
        "--merge-snapshots",
    ],
    long_values: &["--image", "--snap", "--from-snap"],
    ..Options::GNU
};

/// `rbd` listing and status commands with their options; `watch` streams
/// and is not listed, nor is anything that maps, exports or changes images.
pub(super) fn rbd(inv: &Invocation<'_, '_>) -> Verdict {
    let mut words: Vec<&str> = Vec::new();
    let verdict = walk_checked(inv, &[&CEPH_CLIENT, &RBD_READ], Globs::Refused, |tok| {
        if let Tok::Operand { text, .. } = tok {
            words.push(text);
        }
        None
    });
    if verdict != Verdict::Read {
        return verdict;
    }
    match words.as_slice() {
        [] if inv.has_word(&["--help", "--version"]) => Verdict::Read,
        [
            "ls" | "list" | "info" | "du" | "disk-usage" | "status" | "showmapped" | "diff"
            | "children",
            ..,
        ]
        | [
            "snap" | "trash" | "namespace" | "lock" | "group",
            "ls" | "list",
            ..,
        ]
        | ["device", "ls" | "list", ..]
        | ["pool", "stats", ..]
        | ["mirror", "pool" | "image", "status" | "info", ..] => Verdict::Read,
        _ => Verdict::unknown(format!(
            "`rbd {}` is not known to be read-only",
            words.join(" ")
        )),
    }
}

const RADOS_READ: Options = Options {
    short_values: "sN",
    long_flags: &["--all", "--pretty-format"],
    long_values: &["--snap", "--object-locator", "--target-pool"],
    ..Options::GNU
};

/// `rados` commands that read, with how many operands each takes: more
/// would name an output file (`rados ls OUTFILE`, `getomapval OBJ KEY FILE`).
const RADOS_READS: &[(&str, usize)] = &[
    ("lspools", 0),
    ("df", 0),
    ("ls", 0),
    ("lssnap", 0),
    ("stat", 1),
    ("stat2", 1),
    ("listxattr", 1),
    ("getxattr", 2),
    ("listomapkeys", 1),
    ("listomapvals", 1),
    ("getomapval", 2),
    ("listwatchers", 1),
    ("listsnaps", 1),
    ("list-inconsistent-pg", 1),
    ("list-inconsistent-obj", 1),
    ("list-inconsistent-snapset", 1),
];

pub(super) fn rados(inv: &Invocation<'_, '_>) -> Verdict {
    let mut words: Vec<&str> = Vec::new();
    let verdict = walk_checked(inv, &[&CEPH_CLIENT, &RADOS_READ], Globs::Refused, |tok| {
        if let Tok::Operand { text, .. } = tok {
            words.push(text);
        }
        None
    });
    if verdict != Verdict::Read {
        return verdict;
    }
    let Some((sub, operands)) = words.split_first() else {
        return if inv.has_word(&["--help", "--version"]) {
            Verdict::Read
        } else {
            Verdict::unknown("no command")
        };
    };
    let operands = operands.iter().filter(|w| **w != "-").count();
    match RADOS_READS.iter().find(|(name, _)| name == sub) {
        Some((_, max)) if operands <= *max => Verdict::Read,
        Some(_) => Verdict::write(
            Risk::LowWrite,
            format!("`rados {sub}` writes an output file"),
        ),
        None => Verdict::unknown(format!("`rados {sub}` is not known to be read-only")),
    }
}
