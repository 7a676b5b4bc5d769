//! ZFS: `zpool`, `zfs`, and the ARC tools. Each read subcommand has its
//! options allowlisted: `zpool status -c`/`iostat -c` run scripts (named
//! by `ZPOOL_SCRIPTS_PATH`), and an interval without a count repeats
//! forever.

use crate::commands::common::{Globs, bad, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

/// Options of `zpool status|list|iostat|get|history|events|import`.
const ZPOOL_STATUS: Options = Options {
    short_flags: "DegiLpPstvxHl",
    short_values: "cToT",
    long_flags: &[
        "--power",
        "--json",
        "--json-int",
        "--json-flat-vdevs",
        "--json-pool-key-guid",
    ],
    ..Options::GNU
};
const ZPOOL_LIST: Options = Options {
    short_flags: "gHLpPv",
    short_values: "oT",
    long_flags: &["--json", "--json-int", "--json-pool-key-guid"],
    ..Options::GNU
};
const ZPOOL_IOSTAT: Options = Options {
    short_flags: "gHLlnpPqrvwy",
    short_values: "cT",
    long_flags: &["--json"],
    ..Options::GNU
};
const ZPOOL_GET: Options = Options {
    short_flags: "Hp",
    short_values: "o",
    long_flags: &["--json", "--json-int"],
    ..Options::GNU
};
const ZPOOL_HISTORY: Options = Options {
    short_flags: "il",
    ..Options::GNU
};
const ZPOOL_EVENTS: Options = Options {
    short_flags: "vHfc",
    ..Options::GNU
};
const ZPOOL_IMPORT: Options = Options {
    short_flags: "DlsS",
    short_values: "dc",
    ..Options::GNU
};

pub(super) fn zpool(inv: &Invocation<'_, '_>) -> Verdict {
    let Some(sub) = inv.args.first() else {
        return Verdict::unknown("no subcommand");
    };
    if !sub.is_literal() {
        return bad(sub.raw);
    }
    let rest = inv.from(1);
    match sub.as_str() {
        "status" | "list" | "iostat" => {
            let spec = match sub.as_str() {
                "status" => &ZPOOL_STATUS,
                "list" => &ZPOOL_LIST,
                _ => &ZPOOL_IOSTAT,
            };
            let mut numbers = 0;
            let verdict = walk_checked(&rest, &[spec], Globs::Refused, |tok| match tok {
                Tok::Short { flag: 'c', .. } => Some(Verdict::unknown(
                    "`-c` runs scripts (from ZPOOL_SCRIPTS_PATH) on every vdev",
                )),
                Tok::Operand { text, .. } => {
                    numbers += usize::from(text.parse::<f64>().is_ok());
                    None
                }
                _ => None,
            });
            if verdict == Verdict::Read && numbers == 1 {
                return Verdict::interactive(
                    InteractiveCategory::UnboundedStream,
                    "an interval without a count repeats forever",
                );
            }
            verdict
        }
        "get" => walk_checked(&rest, &[&ZPOOL_GET], Globs::Refused, |_| None),
        "history" => walk_checked(&rest, &[&ZPOOL_HISTORY], Globs::Refused, |_| None),
        "events" => walk_checked(&rest, &[&ZPOOL_EVENTS], Globs::Refused, |tok| match tok {
            Tok::Short { flag: 'f', .. } => Some(Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "`events -f` follows forever",
            )),
            Tok::Short { flag: 'c', .. } => {
                Some(Verdict::write(Risk::LowWrite, "`-c` clears the event log"))
            }
            _ => None,
        }),
        // Without a pool, `import` only lists what could be imported.
        "import" => walk_checked(&rest, &[&ZPOOL_IMPORT], Globs::Refused, |tok| match tok {
            Tok::Operand { .. } | Tok::Short { flag: 'c', .. } => {
                Some(Verdict::write(Risk::MediumWrite, "imports a pool"))
            }
            _ => None,
        }),
        "version" | "help" if rest.args.len() <= 1 => Verdict::Read,
        "wait" => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`wait` blocks until the activity ends",
        ),
        "destroy" | "labelclear" | "remove" | "detach" | "split" => Verdict::write(
            Risk::HighWrite,
            format!("`{}` removes pools or devices", sub.as_str()),
        ),
        other => Verdict::write(Risk::MediumWrite, format!("`{other}` changes pools")),
    }
}

const ZFS_LIST: Options = Options {
    short_flags: "rHpu",
    short_values: "dostS",
    long_flags: &["--json", "--json-int"],
    ..Options::GNU
};
const ZFS_GET: Options = Options {
    short_flags: "rHp",
    short_values: "dost",
    long_flags: &["--json", "--json-int"],
    ..Options::GNU
};
const ZFS_SPACE: Options = Options {
    short_flags: "Hinp",
    short_values: "osSt",
    ..Options::GNU
};
const ZFS_DIFF: Options = Options {
    short_flags: "FHth",
    ..Options::GNU
};
const ZFS_HOLDS: Options = Options {
    short_flags: "rHp",
    ..Options::GNU
};
const ZFS_SEND: Options = Options {
    short_flags: "nvPpRLecwDbhsSV",
    short_values: "iIdt",
    long_flags: &[
        "--dryrun",
        "--verbose",
        "--parsable",
        "--props",
        "--replicate",
        "--large-block",
        "--embed",
        "--compressed",
        "--raw",
        "--backup",
        "--holds",
        "--saved",
        "--skip-missing",
        "--proctitle",
    ],
    long_values: &["--redact"],
    ..Options::GNU
};

pub(super) fn zfs(inv: &Invocation<'_, '_>) -> Verdict {
    let Some(sub) = inv.args.first() else {
        return Verdict::unknown("no subcommand");
    };
    if !sub.is_literal() {
        return bad(sub.raw);
    }
    let rest = inv.from(1);
    let spec = match sub.as_str() {
        "list" => &ZFS_LIST,
        "get" => &ZFS_GET,
        "userspace" | "groupspace" | "projectspace" => &ZFS_SPACE,
        "diff" => &ZFS_DIFF,
        "holds" => &ZFS_HOLDS,
        // `zfs mount` alone lists the mounted datasets.
        "mount" if rest.is_empty() => return Verdict::Read,
        "version" | "help" if rest.args.len() <= 1 => return Verdict::Read,
        // A dry run only estimates the stream.
        "send" if rest.has_short('n') || rest.has_long("--dryrun") => &ZFS_SEND,
        "destroy" | "rollback" => {
            return Verdict::write(Risk::HighWrite, format!("`{}` destroys data", sub.as_str()));
        }
        "program" => return Verdict::unknown("`program` runs a channel program"),
        other => return Verdict::write(Risk::MediumWrite, format!("`{other}` changes datasets")),
    };
    walk_checked(&rest, &[spec], Globs::Refused, |_| None)
}

/// `arcstat 1` repeats forever; `arcstat 1 5` stops.
pub(super) fn interval_count(inv: &Invocation<'_, '_>) -> Verdict {
    const ARCSTAT: Options = Options {
        short_flags: "hvxpar",
        short_values: "fos",
        ..Options::GNU
    };
    let mut numbers = 0;
    let verdict = walk_checked(inv, &[&ARCSTAT], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'o', .. } => Some(Verdict::write(
            Risk::LowWrite,
            "`-o` writes the report to a file",
        )),
        Tok::Operand { text, .. } => {
            numbers += usize::from(text.parse::<f64>().is_ok());
            None
        }
        _ => None,
    });
    if verdict == Verdict::Read && numbers == 1 {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "an interval without a count repeats forever",
        );
    }
    verdict
}

/// `arc_summary` prints ARC statistics.
pub(super) fn arc_summary(inv: &Invocation<'_, '_>) -> Verdict {
    const ARC_SUMMARY: Options = Options {
        short_flags: "adgrh",
        short_values: "ps",
        long_flags: &["--alternate", "--description", "--graph", "--raw", "--help"],
        long_values: &["--page", "--section"],
        ..Options::GNU
    };
    walk_checked(inv, &[&ARC_SUMMARY], Globs::Refused, |_| None)
}
