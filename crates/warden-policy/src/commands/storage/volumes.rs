//! Volume managers and block layers: LVM, device mapper, LUKS, loop
//! devices, multipath, iSCSI, `blkid`. Each reads only in the modes and
//! with the options listed.
use crate::commands::common::{Globs, first_pos, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

/// Options every LVM command takes. `--config` is not here: a config
/// string can name a log file (`log { file = … }`) or change what runs.
const LVM_COMMON: Options = Options {
    short_flags: "dhqtvP",
    long_flags: &[
        "--debug",
        "--help",
        "--quiet",
        "--test",
        "--verbose",
        "--version",
        "--longhelp",
        "--nolocking",
        "--partial",
        "--ignorelockingfailure",
        "--ignoreskippedcluster",
        "--readonly",
        "--foreign",
        "--shared",
    ],
    long_values: &[
        "--commandprofile",
        "--profile",
        "--lockopt",
        "--driverloaded",
        "--devices",
        "--devicesfile",
        "--journal",
        "--reportformat",
        "--units",
    ],
    ..Options::GNU
};

/// `lvs`, `vgs`, `pvs`.
const LVM_REPORT: Options = Options {
    short_flags: "aH",
    short_values: "oOS",
    long_flags: &[
        "--all",
        "--aligned",
        "--binary",
        "--history",
        "--logonly",
        "--nameprefixes",
        "--noheadings",
        "--nosuffix",
        "--rows",
        "--unbuffered",
        "--unquoted",
        "--segments",
    ],
    long_values: &[
        "--options",
        "--sort",
        "--select",
        "--separator",
        "--configreport",
    ],
    ..Options::GNU
};

/// `lvdisplay`, `vgdisplay`, `pvdisplay`.
const LVM_DISPLAY: Options = Options {
    short_flags: "acCms",
    short_values: "oOS",
    long_flags: &[
        "--all",
        "--colon",
        "--columns",
        "--maps",
        "--short",
        "--aligned",
        "--binary",
        "--noheadings",
        "--nosuffix",
        "--unbuffered",
        "--history",
    ],
    long_values: &["--options", "--sort", "--select", "--separator"],
    ..Options::GNU
};

/// `lvscan` and `vgscan` (`--mknodes`, `--notifydbus` are not here).
const LVM_SCAN: Options = Options {
    short_flags: "ab",
    long_flags: &["--all", "--blockdevice"],
    ..Options::GNU
};

/// `pvscan` without `--cache` or `--activate`.
const PVSCAN: Options = Options {
    short_flags: "enus",
    long_flags: &["--exported", "--novolumegroup", "--uuid", "--short"],
    ..Options::GNU
};

/// The LVM reporting commands; `--config`, `--cache`, `--activate`,
/// `--mknodes`, `--notifydbus` and unknown options are not on the list.
pub(super) fn lvm_report(inv: &Invocation<'_, '_>) -> Verdict {
    let own = match inv.name {
        "lvs" | "vgs" | "pvs" => &LVM_REPORT,
        "lvdisplay" | "vgdisplay" | "pvdisplay" => &LVM_DISPLAY,
        "pvscan" => &PVSCAN,
        _ => &LVM_SCAN,
    };
    walk_checked(inv, &[&LVM_COMMON, own], Globs::Refused, |_| None)
}

const DMSETUP: Options = Options {
    short_flags: "cCvh",
    short_values: "oOSjmu",
    long_flags: &[
        "--columns",
        "--noheadings",
        "--verbose",
        "--tree",
        "--showkeys",
        "--noflush",
        "--nameprefixes",
        "--rows",
        "--concise",
        "--inactive",
        "--help",
        "--version",
    ],
    long_values: &[
        "--options",
        "--sort",
        "--select",
        "--separator",
        "--units",
        "--target",
        "--major",
        "--minor",
        "--uuid",
        "--headings",
    ],
    ..Options::GNU
};

/// `dmsetup ls|info|table|status|deps|…`; `ls --exec` runs a program and
/// is not on the list.
pub(super) fn dmsetup(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "ls", "info", "table", "status", "deps", "version", "targets", "help",
    ];
    match first_pos(&DMSETUP, inv.args) {
        Some((_, sub)) if READS.contains(&sub) => {
            walk_checked(inv, &[&DMSETUP], Globs::Refused, |_| None)
        }
        Some((_, sub)) => Verdict::unknown(format!("`dmsetup {sub}` is not known to be read-only")),
        None => Verdict::unknown("no subcommand"),
    }
}

const CRYPTSETUP: Options = Options {
    short_flags: "vqV",
    short_values: "Scs",
    long_flags: &[
        "--verbose",
        "--debug",
        "--debug-json",
        "--dump-json-metadata",
        "--batch-mode",
        "--disable-locks",
        "--disable-external-tokens",
        "--help",
        "--usage",
        "--version",
    ],
    long_values: &[
        "--type",
        "--header",
        "--key-slot",
        "--cipher",
        "--hash",
        "--key-size",
        "--pbkdf",
    ],
    ..Options::GNU
};

/// `cryptsetup status|luksDump|isLuks|luksUUID|…Dump|benchmark`: no key
/// dumps, no `luksUUID --uuid`.
pub(super) fn cryptsetup(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "status",
        "luksDump",
        "isLuks",
        "luksUUID",
        "tcryptDump",
        "bitlkDump",
        "fvault2Dump",
        "benchmark",
    ];
    match first_pos(&CRYPTSETUP, inv.args) {
        Some((_, sub)) if !READS.contains(&sub) => {
            Verdict::unknown(format!("`cryptsetup {sub}` is not known to be read-only"))
        }
        _ => walk_checked(inv, &[&CRYPTSETUP], Globs::Refused, |_| None),
    }
}

const LOSETUP: Options = Options {
    short_flags: "lanJfvVh",
    short_values: "Ojo",
    long_flags: &[
        "--list",
        "--all",
        "--noheadings",
        "--json",
        "--find",
        "--output-all",
        "--raw",
        "--verbose",
        "--version",
        "--help",
    ],
    long_values: &["--output", "--associated", "--offset"],
    ..Options::GNU
};

/// `losetup [-l|-a|-j FILE]` lists and `losetup DEV` shows; `-f` alone
/// prints a free device. A second operand (or `-f FILE`) attaches.
pub(super) fn losetup(inv: &Invocation<'_, '_>) -> Verdict {
    let mut operands = 0;
    let mut find = false;
    let verdict = walk_checked(inv, &[&LOSETUP], Globs::Refused, |tok| {
        match tok {
            Tok::Operand { .. } => operands += 1,
            Tok::Short { flag: 'f', .. } | Tok::Long { name: "--find", .. } => find = true,
            _ => {}
        }
        None
    });
    match verdict {
        Verdict::Read if operands > usize::from(!find) => {
            Verdict::write(Risk::MediumWrite, "attaches a loop device")
        }
        other => other,
    }
}

const MULTIPATH: Options = Options {
    short_flags: "ltTBih",
    short_values: "vb",
    ..Options::GNU
};

/// `multipath -l`, `-ll`, `-t`, `-T`: listing modes only.
pub(super) fn multipath(inv: &Invocation<'_, '_>) -> Verdict {
    let mut mode = false;
    let verdict = walk_checked(inv, &[&MULTIPATH], Globs::Refused, |tok| {
        mode |= matches!(
            tok,
            Tok::Short {
                flag: 'l' | 't' | 'T' | 'h',
                ..
            }
        );
        None
    });
    match verdict {
        Verdict::Read if !mode => Verdict::unknown("not a listing mode of multipath"),
        other => other,
    }
}

const ISCSIADM: Options = Options {
    short_flags: "SsVh",
    short_values: "mPTpIrHdo",
    long_flags: &["--show", "--stats", "--version", "--help"],
    long_values: &[
        "--mode",
        "--print",
        "--targetname",
        "--portal",
        "--interface",
        "--sid",
        "--host",
        "--debug",
        "--op",
    ],
    ..Options::GNU
};

/// `iscsiadm -m session|node|discovery|iface|fw|host [-P N]`: showing
/// records. Logins, discovery (`-t`), updates and `--op` other than `show`
/// are not on the list.
pub(super) fn iscsiadm(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&ISCSIADM], Globs::Refused, |tok| match tok {
        Tok::Short {
            flag: 'o',
            value: Some(op),
            ..
        }
        | Tok::Long {
            name: "--op",
            value: Some(op),
            ..
        } if *op != "show" => Some(Verdict::write(
            Risk::MediumWrite,
            format!("`--op {op}` changes iSCSI records"),
        )),
        Tok::Operand { text, .. } => Some(Verdict::unknown(format!(
            "unexpected operand `{text}` to iscsiadm"
        ))),
        _ => None,
    })
}

const BLKID: Options = Options {
    short_flags: "dgiklpVh",
    short_values: "cLUnoOsStuwH",
    long_flags: &[
        "--no-encoding",
        "--garbage-collect",
        "--info",
        "--list-filesystems",
        "--list-one",
        "--probe",
        "--help",
        "--version",
    ],
    long_values: &[
        "--cache-file",
        "--label",
        "--uuid",
        "--match-types",
        "--output",
        "--offset",
        "--match-tag",
        "--size",
        "--match-token",
        "--usages",
        "--hint",
    ],
    ..Options::GNU
};

/// `blkid`: `-g` prunes and `-w FILE`/`-c FILE` write its cache (unless
/// the file is `/dev/null`).
pub(super) fn blkid(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&BLKID], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'g', .. }
        | Tok::Long {
            name: "--garbage-collect",
            ..
        } => Some(Verdict::write(Risk::LowWrite, "`-g` prunes the cache")),
        Tok::Short {
            flag: 'c' | 'w',
            value: Some(file),
            ..
        }
        | Tok::Long {
            name: "--cache-file",
            value: Some(file),
            ..
        } if *file != "/dev/null" => Some(Verdict::write(Risk::LowWrite, "writes the blkid cache")),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invocation::Arg;

    fn reads(name: &str, rule: fn(&Invocation<'_, '_>) -> Verdict, line: &str) -> bool {
        let args: Vec<Arg<'_>> = line.split_whitespace().map(Arg::literal).collect();
        rule(&Invocation::new(name, &args)) == Verdict::Read
    }

    #[test]
    fn reads_and_refusals() {
        type Rule = fn(&Invocation<'_, '_>) -> Verdict;
        let cases: &[(&str, Rule, &str, bool)] = &[
            ("lvs", lvm_report, "", true),
            ("lvs", lvm_report, "-a -o +devices --units g", true),
            ("vgs", lvm_report, "--reportformat json", true),
            ("lvs", lvm_report, "--config global{x}", false),
            ("lvs", lvm_report, "--activate y", false),
            ("vgscan", lvm_report, "--mknodes", false),
            ("vgscan", lvm_report, "--notifydbus", false),
            ("pvscan", lvm_report, "-s", true),
            ("pvscan", lvm_report, "--cache", false),
            ("pvscan", lvm_report, "-aay", false),
            ("lvdisplay", lvm_report, "-m vg0/root", true),
            ("dmsetup", dmsetup, "ls --tree", true),
            ("dmsetup", dmsetup, "info -c", true),
            ("dmsetup", dmsetup, "ls --exec id", false),
            ("dmsetup", dmsetup, "remove x", false),
            ("cryptsetup", cryptsetup, "luksDump /dev/sda2", true),
            ("cryptsetup", cryptsetup, "status root", true),
            (
                "cryptsetup",
                cryptsetup,
                "luksUUID --uuid x /dev/sda2",
                false,
            ),
            (
                "cryptsetup",
                cryptsetup,
                "luksDump --dump-volume-key /dev/sda2",
                false,
            ),
            ("cryptsetup", cryptsetup, "open /dev/sda2 x", false),
            ("losetup", losetup, "", true),
            ("losetup", losetup, "-l", true),
            ("losetup", losetup, "/dev/loop0", true),
            ("losetup", losetup, "-f", true),
            ("losetup", losetup, "-f img", false),
            ("losetup", losetup, "/dev/loop0 img", false),
            ("losetup", losetup, "-d /dev/loop0", false),
            ("multipath", multipath, "-ll", true),
            ("multipath", multipath, "-v2 -l", true),
            ("multipath", multipath, "-F", false),
            ("multipath", multipath, "-a /dev/sda", false),
            ("multipath", multipath, "", false),
            ("iscsiadm", iscsiadm, "-m session -P 3", true),
            ("iscsiadm", iscsiadm, "-m node -o show", true),
            ("iscsiadm", iscsiadm, "-m node -o delete", false),
            (
                "iscsiadm",
                iscsiadm,
                "-m discovery -t st -p 10.0.0.1",
                false,
            ),
            ("iscsiadm", iscsiadm, "-m node --login", false),
            ("iscsiadm", iscsiadm, "-m node -T x -n a -v b", false),
            ("blkid", blkid, "", true),
            ("blkid", blkid, "-o value -s UUID /dev/sda1", true),
            ("blkid", blkid, "-c /dev/null", true),
            ("blkid", blkid, "-g", false),
            ("blkid", blkid, "-c /tmp/x", false),
        ];
        for (name, rule, line, expected) in cases {
            assert_eq!(reads(name, *rule, line), *expected, "{name} {line}");
        }
    }
}
