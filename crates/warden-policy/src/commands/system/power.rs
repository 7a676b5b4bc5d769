//! Swap, mounts, shutdown and firmware boot settings, CPU power.

use crate::commands::common::{help_only, variable_guard};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;

pub(super) fn swapon(inv: &Invocation<'_, '_>) -> Verdict {
    const SWAPON: Options = Options {
        short_flags: "aefhsvV",
        short_values: "LopU",
        short_optional: "d",
        long_flags: &[
            "--all",
            "--ifexists",
            "--fixpgsz",
            "--help",
            "--summary",
            "--verbose",
            "--version",
            "--noheadings",
            "--raw",
            "--bytes",
        ],
        long_values: &["--options", "--priority"],
        long_optional: &["--show", "--discard"],
        style: Style::Gnu,
    };
    let mut shows = false;
    for tok in SWAPON.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 's' | 'h' | 'V',
                ..
            }
            | Tok::Long {
                name: "--show" | "--summary" | "--help" | "--version",
                ..
            } => shows = true,
            Tok::Short { flag: 'v', .. }
            | Tok::Long {
                name: "--noheadings" | "--raw" | "--bytes" | "--verbose",
                ..
            } => {}
            _ => return Verdict::write(M, "enables swap"),
        }
    }
    if shows {
        Verdict::Read
    } else {
        Verdict::write(M, "enables swap")
    }
}

const MOUNT: Options = Options {
    short_flags: "aBcFfilMnRrsvwVh",
    short_values: "NOotTLU",
    short_optional: "m",
    long_flags: &[
        "--all",
        "--bind",
        "--no-canonicalize",
        "--fork",
        "--fake",
        "--internal-only",
        "--show-labels",
        "--move",
        "--no-mtab",
        "--rbind",
        "--read-only",
        "--rw",
        "--read-write",
        "--verbose",
        "--version",
        "--help",
    ],
    long_values: &[
        "--namespace",
        "--test-opts",
        "--options",
        "--types",
        "--fstab",
        "--label",
        "--uuid",
        "--source",
        "--target",
        "--target-prefix",
        "--onlyonce",
        "--options-mode",
        "--options-source",
    ],
    long_optional: &["--mkdir"],
    style: Style::Gnu,
};

/// `mount` alone (or `-l`, `-t TYPE`) lists; anything that names a source,
/// a target or `-a` mounts.
pub(super) fn mount(inv: &Invocation<'_, '_>) -> Verdict {
    for tok in MOUNT.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'l' | 't' | 'v' | 'n' | 'h' | 'V' | 'c',
                ..
            }
            | Tok::Long {
                name:
                    "--show-labels" | "--types" | "--verbose" | "--no-mtab" | "--help" | "--version"
                    | "--no-canonicalize",
                ..
            } => {}
            _ => return Verdict::write(M, "mounts or changes a filesystem"),
        }
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

const FINDMNT: Options = Options {
    short_flags: "AabcDfhiJklmnrsUuvxeRPtyCVLSQ",
    short_values: "dFMNOoSTtwIHQ",
    short_optional: "p",
    long_flags: &[],
    long_values: &[
        "--direction",
        "--tab-file",
        "--mountpoint",
        "--task",
        "--options",
        "--output",
        "--source",
        "--target",
        "--types",
        "--timeout",
        "--filter",
        "--id",
        "--uniq-id",
    ],
    long_optional: &["--poll"],
    style: Style::Gnu,
};

/// `findmnt -p` polls for changes forever unless `--timeout` bounds it.
pub(super) fn findmnt(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut polls, mut timeout) = (false, false);
    for tok in FINDMNT.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'p', .. } | Tok::Long { name: "--poll", .. } => polls = true,
            Tok::Short { flag: 'w', .. }
            | Tok::Long {
                name: "--timeout", ..
            } => timeout = true,
            _ => {}
        }
    }
    if polls && !timeout {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`--poll` waits for mount changes forever",
        );
    }
    Verdict::Read
}

pub(super) fn umount(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(Risk::HighWrite, "unmounts filesystems")
}

pub(super) fn swapoff(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(M, "disables swap")
}

/// `reboot`, `poweroff`, `halt`, `shutdown` (`shutdown -c` cancels one).
pub(super) fn power(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    if inv.name == "shutdown" {
        if inv.has_short('c') {
            return Verdict::write(M, "`-c` cancels a pending shutdown");
        }
        if inv.has_short('k') {
            return Verdict::write(Risk::LowWrite, "`-k` only warns logged-in users");
        }
    }
    Verdict::write(Risk::HighWrite, "takes the machine down")
}

pub(super) fn init(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args {
        [] => Verdict::unknown("starts the init system"),
        [a] if matches!(a.as_str(), "q" | "Q" | "u" | "U") => {
            Verdict::write(M, "re-examines the init configuration")
        }
        _ if help_only(inv) => Verdict::Read,
        _ => Verdict::write(Risk::HighWrite, "changes the runlevel"),
    }
}

/// `efibootmgr` (or `-v`) lists the boot entries; other options change them.
pub(super) fn efibootmgr(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().all(|a| {
        matches!(
            a.as_str(),
            "-v" | "-vv" | "--verbose" | "-q" | "--quiet" | "-V" | "--version" | "-h" | "--help"
        )
    }) {
        return Verdict::Read;
    }
    Verdict::write(M, "changes the firmware boot entries")
}

pub(super) fn mokutil(inv: &Invocation<'_, '_>) -> Verdict {
    const READ: &[&str] = &[
        "--list-enrolled",
        "-l",
        "--list-new",
        "-N",
        "--list-delete",
        "--sb-state",
        "--test-key",
        "-t",
        "--pk",
        "--kek",
        "--db",
        "--dbx",
        "--list-sbat-revocations",
        "--help",
        "-h",
        "--version",
        "--mokx",
    ];
    if !inv.args.is_empty()
        && inv
            .args
            .iter()
            .all(|a| READ.contains(&a.as_str()) || !a.as_str().starts_with('-'))
        && inv.args.iter().all(|a| a.is_literal())
    {
        return Verdict::Read;
    }
    Verdict::write(M, "changes Secure Boot keys or state")
}

pub(super) fn cpupower(inv: &Invocation<'_, '_>) -> Verdict {
    const CPUPOWER: Options = Options {
        short_flags: "hvd",
        short_values: "c",
        short_optional: "",
        long_flags: &["--help", "--version", "--debug"],
        long_values: &["--cpu"],
        long_optional: &[],
        style: Style::Gnu,
    };
    let sub = CPUPOWER.walk(inv.args).find_map(|t| match t {
        Tok::Operand { text, .. } => Some(text),
        _ => None,
    });
    match sub {
        None if help_only(inv) => Verdict::Read,
        Some("frequency-info" | "idle-info" | "info" | "monitor" | "help") => Verdict::Read,
        Some(sub @ ("frequency-set" | "idle-set" | "set")) => {
            Verdict::write(M, format!("subcommand `{sub}` changes power settings"))
        }
        Some(sub) => Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only")),
        None => Verdict::unknown("no subcommand"),
    }
}

pub(super) fn turbostat(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    if inv.has_short('o') || inv.has_long_abbrev("--out") {
        return Verdict::write(Risk::LowWrite, "`--out` writes a file");
    }
    if inv.has_short('n') || inv.has_long_abbrev("--num_iterations") {
        return Verdict::Read;
    }
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "samples until stopped without `-n`",
    )
}

pub(super) fn tuned_adm(inv: &Invocation<'_, '_>) -> Verdict {
    match inv
        .args
        .iter()
        .map(|a| a.as_str())
        .find(|t| !t.starts_with('-'))
    {
        Some("list" | "active" | "recommend" | "verify" | "profile_info") => Verdict::Read,
        Some("profile") if inv.args.len() == 1 => Verdict::Read,
        Some(sub) => Verdict::write(M, format!("subcommand `{sub}` changes the tuning profile")),
        None if help_only(inv) => Verdict::Read,
        None => Verdict::unknown("no subcommand"),
    }
}
