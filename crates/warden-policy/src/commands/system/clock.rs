//! Clocks and time keeping: `date`, `hwclock`, chrony, NTP.

use crate::commands::common::{bad, scan, variable_guard};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;

const DATE: Options = Options {
    short_flags: "uRjnh",
    short_values: "dfrsv",
    short_optional: "I",
    long_flags: &[
        "--utc",
        "--universal",
        "--rfc-email",
        "--rfc-822",
        "--rfc-2822",
        "--debug",
        "--help",
        "--version",
        "--resolution",
    ],
    long_values: &["--date", "--file", "--reference", "--set", "--rfc-3339"],
    long_optional: &["--iso-8601"],
    style: Style::Gnu,
};

/// `date -s`, or an operand that is not `+FORMAT`, sets the clock (BSD
/// `-j` never sets it).
pub(super) fn date(inv: &Invocation<'_, '_>) -> Verdict {
    let bsd_no_set = inv.has_short('j');
    scan(inv, &DATE, |t| match t {
        Tok::Short { flag: 's', .. } | Tok::Long { name: "--set", .. } => {
            Some(Verdict::write(M, "`-s` sets the clock"))
        }
        Tok::Operand { text, .. } if !text.starts_with('+') && !bsd_no_set => {
            Some(Verdict::write(M, "an operand sets the clock"))
        }
        _ => None,
    })
}

const HWCLOCK: Options = Options {
    short_flags: "rwsaulvVhD",
    short_values: "f",
    short_optional: "",
    long_flags: &[
        "--show",
        "--get",
        "--systohc",
        "--hctosys",
        "--set",
        "--adjust",
        "--systz",
        "--predict",
        "--getepoch",
        "--setepoch",
        "--utc",
        "--localtime",
        "--directisa",
        "--update-drift",
        "--noadjfile",
        "--test",
        "--verbose",
        "--version",
        "--help",
        "--debug",
        "--vl-read",
        "--vl-clear",
    ],
    long_values: &[
        "--rtc",
        "--date",
        "--adjfile",
        "--epoch",
        "--param-get",
        "--param-set",
        "--delay",
    ],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn hwclock(inv: &Invocation<'_, '_>) -> Verdict {
    scan(inv, &HWCLOCK, |t| match t {
        Tok::Short {
            flag: 'w' | 's' | 'a',
            ..
        }
        | Tok::Long {
            name:
                "--systohc" | "--hctosys" | "--set" | "--adjust" | "--systz" | "--setepoch"
                | "--param-set" | "--vl-clear",
            ..
        } => Some(Verdict::write(M, "sets the hardware or system clock")),
        Tok::Operand { .. } => Some(Verdict::unknown("unexpected operand")),
        _ => None,
    })
}

const CHRONYC_READS: &[&str] = &[
    "activity",
    "authdata",
    "clients",
    "ntpdata",
    "rtcdata",
    "selectdata",
    "serverstats",
    "smoothing",
    "sourcename",
    "sources",
    "sourcestats",
    "tracking",
    "help",
    "quit",
    "exit",
    "keygen",
    "accheck",
    "cmdaccheck",
    "timeout",
    "retries",
    "dns",
];

const CHRONYC: Options = Options {
    short_flags: "nNcdmaV46e",
    short_values: "hpf",
    short_optional: "",
    long_flags: &[],
    long_values: &[],
    long_optional: &[],
    style: Style::Gnu,
};

/// `chronyc [options] COMMAND…` (options end at the command; with `-m`,
/// each argument is a command).
pub(super) fn chronyc(inv: &Invocation<'_, '_>) -> Verdict {
    let mut start = None;
    for tok in CHRONYC.walk(inv.args) {
        match tok {
            Tok::Unknown { text: word, .. } => return bad(word),
            Tok::Operand { index, .. } => {
                start = Some(index);
                break;
            }
            _ => {}
        }
    }
    let Some(start) = start else {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens the chronyc prompt",
        );
    };
    let words = &inv.args[start..];
    let multi = inv.args[..start].iter().any(|a| {
        let t = a.as_str();
        t.starts_with('-') && !t.starts_with("--") && t.contains('m')
    });
    let commands: &mut dyn Iterator<Item = (&str, Option<&str>)> = if multi {
        &mut words.iter().map(|a| {
            let mut parts = a.as_str().split_whitespace();
            (parts.next().unwrap_or_default(), parts.next())
        })
    } else {
        let mut parts = words.iter().flat_map(|a| a.as_str().split_whitespace());
        let first = parts.next().unwrap_or_default();
        let second = parts.next();
        &mut std::iter::once((first, second))
    };
    for (command, arg) in commands {
        let read = match command {
            "manual" => arg == Some("list"),
            "waitsync" => arg.is_some_and(|n| n != "0"),
            other => CHRONYC_READS.contains(&other),
        };
        if !read {
            return Verdict::write(M, format!("command `{command}` changes time keeping"));
        }
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

const NTPQ_READS: &[&str] = &[
    "peers",
    "opeers",
    "lpeers",
    "apeers",
    "associations",
    "lassociations",
    "passociations",
    "readvar",
    "rv",
    "sysinfo",
    "sysstats",
    "kerninfo",
    "iostats",
    "monstats",
    "mrulist",
    "ifstats",
    "reslist",
    "pstats",
    "clocklist",
    "cl",
    "clockvar",
    "cv",
    "version",
    "timerstats",
    "authinfo",
    "readlist",
    "rl",
    "mreadvar",
    "mrv",
    "mreadlist",
    "mrl",
    "ntpversion",
    "help",
];

/// `ntpq -p`, `ntpq -c peers`: queries; no command opens the prompt.
pub(super) fn ntpq(inv: &Invocation<'_, '_>) -> Verdict {
    const NTPQ: Options = Options {
        short_flags: "46dinpwlsuW",
        short_values: "cDk",
        short_optional: "",
        long_flags: &[],
        long_values: &[],
        long_optional: &[],
        style: Style::Gnu,
    };
    let mut queries = false;
    for tok in NTPQ.walk(inv.args) {
        match tok {
            Tok::Unknown { text: word, .. } => return bad(word),
            Tok::Short { flag: 'i', .. } => break,
            Tok::Short {
                flag: 'p' | 's', ..
            } => queries = true,
            Tok::Short {
                flag: 'c',
                value: Some(cmd),
                ..
            } => {
                let word = cmd.split_whitespace().next().unwrap_or_default();
                if !NTPQ_READS.contains(&word) {
                    return Verdict::write(M, format!("command `{word}` changes the server"));
                }
                queries = true;
            }
            _ => {}
        }
    }
    if !queries {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens the ntpq prompt",
        );
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

pub(super) fn ntpdate(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('q') || inv.has_short('d') {
        return Verdict::Read;
    }
    Verdict::write(M, "sets the clock")
}
