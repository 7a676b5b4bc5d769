//! Disks and partitions: SMART, NVMe, hdparm, partitioners, md RAID,
//! `blockdev`. Each reads only in the modes and with the options listed.
use crate::commands::common::{Globs, first_pos, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const SMARTCTL: Options = Options {
    short_flags: "hViaxHcA",
    short_values: "dTbrnqlvFPBfg",
    short_optional: "j",
    long_flags: &[
        "--help",
        "--usage",
        "--version",
        "--copyright",
        "--license",
        "--info",
        "--all",
        "--xall",
        "--scan",
        "--scan-open",
        "--health",
        "--capabilities",
        "--attributes",
    ],
    long_values: &[
        "--device",
        "--tolerance",
        "--badsum",
        "--report",
        "--nocheck",
        "--quietmode",
        "--log",
        "--vendorattribute",
        "--firmwarebug",
        "--presets",
        "--drivedb",
        "--format",
        "--get",
    ],
    long_optional: &["--json", "--identify"],
    ..Options::GNU
};

/// `-l` logs that only print; `scterc` only without timer values, and no
/// `,reset` anywhere (it clears PHY counters).
const SMART_LOGS: &[&str] = &[
    "error",
    "xerror",
    "selftest",
    "xselftest",
    "selective",
    "directory",
    "background",
    "sasphy",
    "sataphy",
    "scttemp",
    "scttempsts",
    "scttemphist",
    "scterc",
    "devstat",
    "defects",
    "ssd",
    "gplog",
    "smartlog",
    "nvmelog",
    "farm",
    "zdevstat",
    "envrep",
    "genstats",
    "tapeinfo",
    "tapealert",
];

/// `smartctl`: reports and logs read; `-t`, `-s`, `-o`, `-S`, `-X`,
/// `--set` and unknown options are not on the list.
pub(super) fn smartctl(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&SMARTCTL], Globs::Refused, |tok| match tok {
        Tok::Short {
            flag: 'l',
            value: Some(log),
            ..
        }
        | Tok::Long {
            name: "--log",
            value: Some(log),
            ..
        } => {
            let (kind, params) = log.split_once(',').unwrap_or((log, ""));
            let sets = log.contains("reset") || (kind == "scterc" && !params.is_empty());
            (sets || !SMART_LOGS.contains(&kind))
                .then(|| Verdict::unknown(format!("`-l {log}` may change a drive setting")))
        }
        _ => None,
    })
}

const NVME: Options = Options {
    short_flags: "vHbV",
    short_values: "onefsilcu",
    long_flags: &[
        "--verbose",
        "--human-readable",
        "--raw-binary",
        "--vendor-specific",
        "--help",
    ],
    long_values: &[
        "--output-format",
        "--namespace-id",
        "--log-entries",
        "--feature-id",
        "--sel",
        "--data-len",
        "--uuid-index",
        "--cdw11",
        "--log-id",
        "--log-len",
        "--lpo",
        "--lsp",
        "--lsi",
        "--csi",
        "--timeout",
    ],
    ..Options::GNU
};

/// nvme-cli commands that only read identify data, logs and features.
const NVME_READS: &[&str] = &[
    "list",
    "list-subsys",
    "list-ns",
    "list-ctrl",
    "id-ctrl",
    "id-ns",
    "id-iocs",
    "id-domain",
    "id-nvmset",
    "ns-descs",
    "primary-ctrl-caps",
    "list-secondary",
    "smart-log",
    "error-log",
    "fw-log",
    "effects-log",
    "endurance-log",
    "self-test-log",
    "sanitize-log",
    "ana-log",
    "changed-ns-list-log",
    "supported-log-pages",
    "get-feature",
    "get-log",
    "show-regs",
    "show-hostnqn",
    "version",
    "help",
];

pub(super) fn nvme(inv: &Invocation<'_, '_>) -> Verdict {
    match first_pos(&NVME, inv.args) {
        Some((_, sub)) if NVME_READS.contains(&sub) => {
            walk_checked(inv, &[&NVME], Globs::Refused, |_| None)
        }
        Some((_, sub)) => Verdict::unknown(format!("`nvme {sub}` is not known to be read-only")),
        None => Verdict::unknown("no subcommand"),
    }
}

const MDADM: Options = Options {
    short_flags: "DEQXsbvYtqh",
    short_values: "c",
    long_flags: &[
        "--detail",
        "--examine",
        "--query",
        "--detail-platform",
        "--examine-bitmap",
        "--scan",
        "--brief",
        "--verbose",
        "--export",
        "--test",
        "--quiet",
        "--help",
        "--version",
    ],
    long_values: &["--config", "--prefer"],
    ..Options::GNU
};

/// `mdadm`: the query modes (`--detail`, `--examine`, `--query`) read; every
/// other mode is not on the list.
pub(super) fn mdadm(inv: &Invocation<'_, '_>) -> Verdict {
    let mut mode = false;
    let verdict = walk_checked(inv, &[&MDADM], Globs::Refused, |tok| {
        mode |= matches!(
            tok,
            Tok::Short {
                flag: 'D' | 'E' | 'Q' | 'X' | 'h',
                ..
            } | Tok::Long {
                name: "--detail"
                    | "--examine"
                    | "--query"
                    | "--detail-platform"
                    | "--examine-bitmap"
                    | "--help"
                    | "--version",
                ..
            }
        );
        None
    });
    match verdict {
        Verdict::Read if !mode => Verdict::unknown("not a read-only mdadm mode"),
        other => other,
    }
}

/// `hdparm`: most of its letters get a setting alone and set it with a
/// value (`-W` / `-W0`); only these never set anything.
const HDPARM: Options = Options {
    short_flags: "iItTCgvhVH",
    long_flags: &["--direct", "--help"],
    ..Options::GNU
};

pub(super) fn hdparm(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&HDPARM], Globs::Refused, |_| None)
}

const FDISK: Options = Options {
    short_flags: "lxVh",
    short_values: "boCHSt",
    short_optional: "cuL",
    long_flags: &[
        "--list",
        "--list-details",
        "--version",
        "--help",
        "--noauto-pt",
        "--getsz",
    ],
    long_values: &[
        "--sector-size",
        "--output",
        "--type",
        "--cylinders",
        "--heads",
        "--sectors",
    ],
    long_optional: &["--compatibility", "--units", "--color", "--lock"],
    ..Options::GNU
};

/// `fdisk -l` lists; without it fdisk edits interactively.
pub(super) fn fdisk(inv: &Invocation<'_, '_>) -> Verdict {
    let mut lists = false;
    let verdict = walk_checked(inv, &[&FDISK], Globs::Refused, |tok| {
        lists |= matches!(
            tok,
            Tok::Short {
                flag: 'l' | 'x' | 'V' | 'h',
                ..
            } | Tok::Long {
                name: "--list" | "--list-details" | "--version" | "--help" | "--getsz",
                ..
            }
        );
        None
    });
    match verdict {
        Verdict::Read if !lists => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "edits the partition table interactively",
        ),
        other => other,
    }
}

const SFDISK: Options = Options {
    short_flags: "ldsVJFgqnh",
    short_values: "oX",
    long_flags: &[
        "--list",
        "--dump",
        "--show-size",
        "--verify",
        "--json",
        "--list-free",
        "--show-geometry",
        "--quiet",
        "--no-act",
        "--help",
        "--version",
    ],
    long_values: &["--output", "--label"],
    long_optional: &["--color", "--lock"],
    ..Options::GNU
};

/// `sfdisk` reads in its listing modes; otherwise it writes a partition
/// table from its input.
pub(super) fn sfdisk(inv: &Invocation<'_, '_>) -> Verdict {
    let mut lists = false;
    let verdict = walk_checked(inv, &[&SFDISK], Globs::Refused, |tok| {
        lists |= matches!(
            tok,
            Tok::Short {
                flag: 'l' | 'd' | 's' | 'V' | 'J' | 'F' | 'g' | 'h',
                ..
            } | Tok::Long {
                name: "--list"
                    | "--dump"
                    | "--show-size"
                    | "--verify"
                    | "--json"
                    | "--list-free"
                    | "--show-geometry"
                    | "--help"
                    | "--version",
                ..
            }
        );
        None
    });
    match verdict {
        Verdict::Read if !lists => {
            Verdict::write(Risk::HighWrite, "writes a partition table from its input")
        }
        other => other,
    }
}

const PARTED: Options = Options {
    short_flags: "lmsjvh",
    long_flags: &[
        "--list",
        "--machine",
        "--script",
        "--json",
        "--version",
        "--help",
    ],
    style: crate::options::Style::GnuStopAtOperand,
    ..Options::GNU
};

/// `parted -l`, `parted DEV [unit U] print [free|all]`; a device alone
/// opens the interactive editor; other commands change partitions.
pub(super) fn parted(inv: &Invocation<'_, '_>) -> Verdict {
    let mut lists = false;
    let mut words: Vec<&str> = Vec::new();
    let verdict = walk_checked(inv, &[&PARTED], Globs::Refused, |tok| {
        match tok {
            Tok::Short {
                flag: 'l' | 'v' | 'h',
                ..
            }
            | Tok::Long {
                name: "--list" | "--version" | "--help",
                ..
            } => lists = true,
            Tok::Operand { text, .. } => words.push(text),
            _ => {}
        }
        None
    });
    if verdict != Verdict::Read {
        return verdict;
    }
    match words.as_slice() {
        [] if lists => Verdict::Read,
        [] | [_] => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "edits partitions interactively",
        ),
        [_device, rest @ ..] if prints_only(rest) => Verdict::Read,
        _ => Verdict::write(Risk::HighWrite, "changes the partition table"),
    }
}

/// parted commands after the device: `unit U` and `print [free|all|list|devices]`.
fn prints_only(commands: &[&str]) -> bool {
    let mut rest = commands;
    let mut printed = false;
    while let Some((first, tail)) = rest.split_first() {
        rest = match (*first, tail) {
            ("unit", [_, after @ ..]) => after,
            ("print" | "p", ["free" | "all" | "list" | "devices", after @ ..]) => {
                printed = true;
                after
            }
            ("print" | "p", after) => {
                printed = true;
                after
            }
            _ => return false,
        };
    }
    printed
}

const BLOCKDEV: Options = Options {
    short_flags: "qvVh",
    long_flags: &[
        "--getsz",
        "--getsize",
        "--getsize64",
        "--getss",
        "--getpbsz",
        "--getiomin",
        "--getioopt",
        "--getalignoff",
        "--getmaxsect",
        "--getbsz",
        "--getro",
        "--getdiscardzeroes",
        "--getzonesz",
        "--getra",
        "--getfra",
        "--getdiskseq",
        "--report",
        "--help",
        "--version",
    ],
    ..Options::GNU
};

/// `blockdev --get…` and `--report` read; the setters and `--flushbufs`
/// and `--rereadpt` are not on the list.
pub(super) fn blockdev(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&BLOCKDEV], Globs::Refused, |_| None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invocation::Arg;

    fn verdict(rule: fn(&Invocation<'_, '_>) -> Verdict, line: &str) -> Verdict {
        let args: Vec<Arg<'_>> = line.split_whitespace().map(Arg::literal).collect();
        rule(&Invocation::new("x", &args))
    }

    #[test]
    fn reads_and_refusals() {
        type Rule = fn(&Invocation<'_, '_>) -> Verdict;
        let cases: &[(Rule, &str, bool)] = &[
            (smartctl, "-a /dev/sda", true),
            (smartctl, "-x -j /dev/nvme0", true),
            (smartctl, "--json=c -a /dev/sda", true),
            (smartctl, "-l error /dev/sda", true),
            (smartctl, "-l scterc /dev/sda", true),
            (smartctl, "-l scterc,70,70 /dev/sda", false),
            (smartctl, "-l scttempint,1 /dev/sda", false),
            (smartctl, "-l sasphy,reset /dev/sda", false),
            (smartctl, "-t long /dev/sda", false),
            (smartctl, "-s on -a /dev/sda", false),
            (smartctl, "--smart=off /dev/sda", false),
            (smartctl, "--set=standby,now /dev/sda", false),
            (smartctl, "-X /dev/sda", false),
            (smartctl, "--al /dev/sda", true),
            (nvme, "smart-log /dev/nvme0", true),
            (nvme, "list -o json", true),
            (nvme, "format /dev/nvme0n1", false),
            (nvme, "smart-log /dev/nvme0 --output-file=/tmp/x", false),
            (mdadm, "--detail /dev/md0", true),
            (mdadm, "-D --scan", true),
            (mdadm, "--examine --scan --config=/etc/mdadm.conf", true),
            (mdadm, "--detail /dev/md0 --fail /dev/sda", false),
            (mdadm, "-D /dev/md0 -f /dev/sda", false),
            (mdadm, "--monitor --scan", false),
            (mdadm, "/dev/md0", false),
            (hdparm, "-I /dev/sda", true),
            (hdparm, "-tT /dev/sda", true),
            (hdparm, "-W0 /dev/sda", false),
            (hdparm, "-C -y /dev/sda", false),
            (hdparm, "-S 1 /dev/sda", false),
            (fdisk, "-l", true),
            (fdisk, "-l /dev/sda", true),
            (fdisk, "-l -w always /dev/sda", false),
            (sfdisk, "-d /dev/sda", true),
            (sfdisk, "--json /dev/sda", true),
            (sfdisk, "/dev/sda", false),
            (sfdisk, "--delete /dev/sda 1", false),
            (sfdisk, "--part-type /dev/sda 1 83", false),
            (parted, "-l", true),
            (parted, "-s /dev/sda print", true),
            (parted, "/dev/sda unit s print free", true),
            (parted, "-s /dev/sda rm 1", false),
            (parted, "-s /dev/sda print rm 1", false),
            (parted, "-s /dev/sda mklabel gpt", false),
            (blockdev, "--getsz /dev/sda", true),
            (blockdev, "--report", true),
            (blockdev, "--setro /dev/sda", false),
            (blockdev, "--flushbufs /dev/sda", false),
            (blockdev, "--rereadpt /dev/sda", false),
        ];
        for (rule, line, reads) in cases {
            let v = verdict(*rule, line);
            assert_eq!(v == Verdict::Read, *reads, "{line}: {v:?}");
        }
    }
}
