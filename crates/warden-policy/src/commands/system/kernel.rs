//! Kernel and hardware: host names, the kernel log and parameters,
//! modules, hardware inventory, resource limits.

use crate::commands::common::{bad, help_only, read_if_known, scan, variable_guard};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;

const HOSTNAME: Options = Options {
    short_flags: "aAbdfiIsyvVhnl",
    short_values: "F",
    short_optional: "",
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
    style: Style::Gnu,
};

/// `hostname NAME`, `-F FILE`, `-b` set the name.
pub(super) fn hostname(inv: &Invocation<'_, '_>) -> Verdict {
    scan(inv, &HOSTNAME, |t| match t {
        Tok::Operand { .. }
        | Tok::Short {
            flag: 'F' | 'b', ..
        }
        | Tok::Long {
            name: "--file" | "--boot",
            ..
        } => Some(Verdict::write(M, "sets the host name")),
        _ => None,
    })
}

/// `domainname NAME` sets the NIS domain.
pub(super) fn domainname(inv: &Invocation<'_, '_>) -> Verdict {
    hostname(inv)
}

const DMESG: Options = Options {
    short_flags: "cCDEwWHTtxkurSdePJhVp",
    short_values: "lfFsn",
    short_optional: "L",
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
    style: Style::Gnu,
};

pub(super) fn dmesg(inv: &Invocation<'_, '_>) -> Verdict {
    let mut follows = false;
    for tok in DMESG.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'c' | 'C' | 'D' | 'E' | 'n',
                ..
            }
            | Tok::Long {
                name:
                    "--read-clear" | "--clear" | "--console-off" | "--console-on" | "--console-level",
                ..
            } => {
                return Verdict::write(M, "clears the ring buffer or changes console logging");
            }
            Tok::Short {
                flag: 'w' | 'W', ..
            }
            | Tok::Long {
                name: "--follow" | "--follow-new",
                ..
            } => {
                follows = true;
            }
            Tok::Unknown { text: word, .. } => return bad(word),
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

const SYSCTL: Options = Options {
    short_flags: "bneNwfqoxaAXdhVT",
    short_values: "r",
    short_optional: "p",
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
    style: Style::Gnu,
};

pub(super) fn sysctl(inv: &Invocation<'_, '_>) -> Verdict {
    scan(inv, &SYSCTL, |t| match t {
        Tok::Short {
            flag: 'w' | 'p' | 'f',
            ..
        }
        | Tok::Long {
            name: "--write" | "--load" | "--system",
            ..
        } => Some(Verdict::write(M, "sets kernel parameters")),
        Tok::Operand { text, .. } if text.contains('=') => {
            Some(Verdict::write(M, "`NAME=VALUE` sets a kernel parameter"))
        }
        _ => None,
    })
}

const MODPROBE: Options = Options {
    short_flags: "arRDcnvqsibfVh",
    short_values: "dSoC",
    short_optional: "",
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
    style: Style::Gnu,
};

/// `modprobe -c`, `-D`, `-R` only show; anything else loads or unloads.
pub(super) fn modprobe(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut shows, mut other) = (false, false);
    for tok in MODPROBE.walk(inv.args) {
        match tok {
            Tok::Unknown { text: word, .. } => return bad(word),
            Tok::Short {
                flag: 'c' | 'D' | 'R' | 'h' | 'V',
                ..
            }
            | Tok::Long {
                name:
                    "--showconfig" | "--show-config" | "--show-depends" | "--resolve-alias"
                    | "--dump-modversions" | "--help" | "--version",
                ..
            } => shows = true,
            Tok::Short {
                flag: 'r' | 'a' | 'n',
                ..
            }
            | Tok::Long {
                name: "--remove" | "--remove-holders" | "--all" | "--dry-run" | "--show",
                ..
            } => {
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
        t.starts_with("--debug") || t.starts_with("--ftp") || t.starts_with("--output-file")
    }) {
        return Verdict::unknown("debug modes and `--output-file` write or upload data");
    }
    Verdict::Read
}

pub(super) fn sensors(inv: &Invocation<'_, '_>) -> Verdict {
    const SENSORS: Options = Options {
        short_flags: "sfAjuvh",
        short_values: "c",
        short_optional: "",
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
        style: Style::Gnu,
    };
    scan(inv, &SENSORS, |t| match t {
        Tok::Short { flag: 's', .. } | Tok::Long { name: "--set", .. } => {
            Some(Verdict::write(M, "`-s` writes limits to the chips"))
        }
        _ => None,
    })
}

/// `zramctl [DEVICE]` lists zram devices; `--size`, `--algorithm`,
/// `--streams`, `--find` and `--reset` (`-r`, not `--raw`) configure them.
pub(super) fn zramctl(inv: &Invocation<'_, '_>) -> Verdict {
    const LIST: Options = Options {
        short_flags: "bnhV",
        short_values: "o",
        short_optional: "",
        long_flags: &[
            "--bytes",
            "--noheadings",
            "--output-all",
            "--raw",
            "--help",
            "--version",
        ],
        long_values: &["--output"],
        long_optional: &[],
        style: Style::Gnu,
    };
    read_if_known(&LIST, inv)
}

/// `ulimit -n` shows; `ulimit -n 4096` changes the shell's limit.
pub(super) fn ulimit(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().any(|a| !a.as_str().starts_with('-')) {
        return Verdict::write(Risk::LowWrite, "sets a resource limit");
    }
    Verdict::Read
}

/// ipmitool: sensor, FRU, SEL, LAN and chassis reports read; power
/// control, clearing the event log, `set` and `raw` commands change the
/// BMC or the machine.
pub(super) fn ipmitool(inv: &Invocation<'_, '_>) -> Verdict {
    const VALUES: &[&str] = &[
        "-I", "-H", "-U", "-P", "-p", "-L", "-C", "-y", "-k", "-K", "-f", "-t", "-b", "-m", "-B",
        "-T", "-R", "-N",
    ];
    let mut words: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(arg) = inv.args.get(i) {
        let text = arg.as_str();
        if !arg.is_literal() {
            return Verdict::unknown(format!("`{}` comes from an expansion", arg.raw));
        }
        if VALUES.contains(&text) {
            i += 2;
            continue;
        }
        if text.starts_with('-') {
            if !matches!(text, "-v" | "-vv" | "-c" | "-E" | "-a" | "-h" | "-V") {
                return Verdict::unknown(format!("unknown option `{text}`"));
            }
            i += 1;
            continue;
        }
        words.push(text);
        i += 1;
    }
    let read = matches!(
        words.as_slice(),
        // `sensor thresh` sets thresholds; `sdr fill`/`sdr dump` write files.
        ["sdr" | "sensor"]
            | [
                "sdr",
                "list" | "elist" | "type" | "info" | "get" | "entity" | "csv",
                ..
            ]
            | ["sensor", "list" | "get", ..]
            | ["fru", "print" | "list"]
            | ["fru"]
            | ["sel", "list" | "elist" | "info" | "get" | "time"]
            | ["sel", "time", "get"]
            | ["lan", "print", ..]
            | [
                "mc",
                "info" | "guid" | "selftest" | "getenables" | "getsysinfo" | "watchdog"
            ]
            | ["mc", "watchdog", "get"]
            | ["chassis", "status" | "restart_cause" | "poh" | "selftest"]
            | ["chassis", "power", "status"]
            | ["power", "status"]
            | ["user", "list", ..]
            | ["channel", "info" | "getaccess" | "getciphers", ..]
            | ["dcmi", "power", "reading"]
            | ["dcmi", "discover" | "sensors"]
            | ["session", "info", ..]
            | ["pef", "list" | "info" | "status"]
    ) && !words.contains(&"set")
        && !words.contains(&"clear");
    if read {
        Verdict::Read
    } else if words.is_empty() {
        Verdict::unknown("no command")
    } else {
        Verdict::write(
            Risk::HighWrite,
            format!(
                "`ipmitool {}` controls the machine or the BMC",
                words.join(" ")
            ),
        )
    }
}
