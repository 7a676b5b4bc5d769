//! Kernel and hardware: host names, the kernel log and parameters,
//! modules, hardware inventory, resource limits.

use super::opts::{Spec, Tok, bad, help_only, scan, variable_guard, walk};
use crate::invocation::Invocation;
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;

const HOSTNAME: Spec = Spec {
    flags: "aAbdfiIsyvVhnl",
    values: "F",
    optional: "",
    long_flags: &[
        "--alias",
        "--all-fqdns",
        "--boot",
        "--domain",
        "--fqdn",
        "--long",
        "--ip-address",
        "--all-ip-addresses",
        "--short",
        "--yp",
        "--nis",
        "--verbose",
        "--version",
        "--help",
        "--node",
    ],
    long_values: &["--file"],
    long_optional: &[],
};

/// `hostname NAME`, `-F FILE`, `-b` set the name.
pub(super) fn hostname(inv: &Invocation<'_, '_>) -> Verdict {
    scan(inv, &HOSTNAME, |t| match t {
        Tok::Pos(..) | Tok::Short('F' | 'b', _) | Tok::Long("--file" | "--boot", _) => {
            Some(Verdict::write(M, "sets the host name"))
        }
        _ => None,
    })
}

/// `domainname NAME` sets the NIS domain.
pub(super) fn domainname(inv: &Invocation<'_, '_>) -> Verdict {
    hostname(inv)
}

const DMESG: Spec = Spec {
    flags: "cCDEwWHTtxkurSdePJhVp",
    values: "lfFsn",
    optional: "L",
    long_flags: &[
        "--read-clear",
        "--clear",
        "--console-off",
        "--console-on",
        "--follow",
        "--follow-new",
        "--human",
        "--ctime",
        "--notime",
        "--decode",
        "--kernel",
        "--userspace",
        "--raw",
        "--syslog",
        "--show-delta",
        "--reltime",
        "--json",
        "--nopager",
        "--force-prefix",
        "--help",
        "--version",
        "--noescape",
    ],
    long_values: &[
        "--level",
        "--facility",
        "--file",
        "--buffer-size",
        "--console-level",
        "--time-format",
        "--since",
        "--until",
    ],
    long_optional: &["--color"],
};

pub(super) fn dmesg(inv: &Invocation<'_, '_>) -> Verdict {
    let mut follows = false;
    for tok in walk(&DMESG, inv.args) {
        match tok {
            Tok::Short('c' | 'C' | 'D' | 'E' | 'n', _)
            | Tok::Long(
                "--read-clear" | "--clear" | "--console-off" | "--console-on" | "--console-level",
                _,
            ) => {
                return Verdict::write(M, "clears the ring buffer or changes console logging");
            }
            Tok::Short('w' | 'W', _) | Tok::Long("--follow" | "--follow-new", _) => {
                follows = true;
            }
            Tok::Bad(word) => return bad(word),
            _ => {}
        }
    }
    if follows {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`-w` follows the kernel log forever",
        );
    }
    Verdict::Read
}

const SYSCTL: Spec = Spec {
    flags: "bneNwfqoxaAXdhVT",
    values: "r",
    optional: "p",
    long_flags: &[
        "--all",
        "--binary",
        "--ignore",
        "--names",
        "--values",
        "--quiet",
        "--write",
        "--system",
        "--deprecated",
        "--help",
        "--version",
        "--dry-run",
    ],
    long_values: &["--pattern"],
    long_optional: &["--load"],
};

pub(super) fn sysctl(inv: &Invocation<'_, '_>) -> Verdict {
    scan(inv, &SYSCTL, |t| match t {
        Tok::Short('w' | 'p' | 'f', _) | Tok::Long("--write" | "--load" | "--system", _) => {
            Some(Verdict::write(M, "sets kernel parameters"))
        }
        Tok::Pos(_, text) if text.contains('=') => {
            Some(Verdict::write(M, "`NAME=VALUE` sets a kernel parameter"))
        }
        _ => None,
    })
}

const MODPROBE: Spec = Spec {
    flags: "arRDcnvqsibfVh",
    values: "dSoC",
    optional: "",
    long_flags: &[
        "--all",
        "--remove",
        "--remove-holders",
        "--show-depends",
        "--showconfig",
        "--show-config",
        "--resolve-alias",
        "--dump-modversions",
        "--dry-run",
        "--show",
        "--verbose",
        "--quiet",
        "--syslog",
        "--ignore-install",
        "--ignore-remove",
        "--use-blacklist",
        "--force",
        "--force-vermagic",
        "--force-modversion",
        "--first-time",
        "--help",
        "--version",
    ],
    long_values: &["--dirname", "--set-version", "--config", "--name", "--wait"],
    long_optional: &[],
};

/// `modprobe -c`, `-D`, `-R` only show; anything else loads or unloads.
pub(super) fn modprobe(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut shows, mut other) = (false, false);
    for tok in walk(&MODPROBE, inv.args) {
        match tok {
            Tok::Bad(word) => return bad(word),
            Tok::Short('c' | 'D' | 'R' | 'h' | 'V', _)
            | Tok::Long(
                "--showconfig" | "--show-config" | "--show-depends" | "--resolve-alias"
                | "--dump-modversions" | "--help" | "--version",
                _,
            ) => shows = true,
            Tok::Short('r' | 'a' | 'n', _)
            | Tok::Long("--remove" | "--remove-holders" | "--all" | "--dry-run" | "--show", _) => {
                other = true;
            }
            _ => {}
        }
    }
    if shows && !other {
        return variable_guard(inv).unwrap_or(Verdict::Read);
    }
    Verdict::write(M, "loads or unloads kernel modules")
}

pub(super) fn depmod(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || inv.has_short('n') || inv.has_long("--show") || inv.has_long("--dry-run") {
        return Verdict::Read;
    }
    Verdict::write(Risk::LowWrite, "regenerates module dependency files")
}

pub(super) fn module_change(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-V") {
        return Verdict::Read;
    }
    Verdict::write(M, "loads or unloads kernel modules")
}

pub(super) fn lshw(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["-dump"]) {
        return Verdict::write(Risk::LowWrite, "`-dump` writes a database file");
    }
    if inv.has_word(&["-X"]) {
        return Verdict::interactive(InteractiveCategory::InteractiveRepl, "`-X` opens a GUI");
    }
    Verdict::Read
}

pub(super) fn dmidecode(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long_abbrev("--dump-bin") {
        return Verdict::write(Risk::LowWrite, "`--dump-bin` writes a file");
    }
    Verdict::Read
}

pub(super) fn hwinfo(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .args
        .iter()
        .any(|a| a.as_str().starts_with("--log") || a.as_str().starts_with("--save-config"))
    {
        return Verdict::write(Risk::LowWrite, "writes a log or saves configuration");
    }
    Verdict::Read
}

pub(super) fn inxi(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('U') || inv.has_long("--update") {
        return Verdict::write(M, "`-U` updates inxi itself");
    }
    if inv.option_args().any(|a| {
        let t = a.as_str();
        t.starts_with("--debug") || t.starts_with("--ftp")
    }) {
        return Verdict::unknown("debug modes write and upload data");
    }
    Verdict::Read
}

pub(super) fn sensors(inv: &Invocation<'_, '_>) -> Verdict {
    const SENSORS: Spec = Spec {
        flags: "sfAjuvh",
        values: "c",
        optional: "",
        long_flags: &[
            "--set",
            "--fahrenheit",
            "--no-adapter",
            "--bus-list",
            "--help",
            "--version",
        ],
        long_values: &["--config-file"],
        long_optional: &[],
    };
    scan(inv, &SENSORS, |t| match t {
        Tok::Short('s', _) | Tok::Long("--set", _) => {
            Some(Verdict::write(M, "`-s` writes limits to the chips"))
        }
        _ => None,
    })
}

/// `ulimit -n` shows; `ulimit -n 4096` changes the shell's limit.
pub(super) fn ulimit(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().any(|a| !a.as_str().starts_with('-')) {
        return Verdict::write(Risk::LowWrite, "sets a resource limit");
    }
    Verdict::Read
}
