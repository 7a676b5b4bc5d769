//! Clocks and time keeping: `date`, `hwclock`, chrony, NTP.

use super::opts::{Spec, Tok, bad, scan, variable_guard, walk};
use crate::invocation::Invocation;
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;

const DATE: Spec = Spec {
    flags: "uRjnh",
    values: "dfrsv",
    optional: "I",
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
};

/// `date -s`, or an operand that is not `+FORMAT`, sets the clock (BSD
/// `-j` never sets it).
pub(super) fn date(inv: &Invocation<'_, '_>) -> Verdict {
    let bsd_no_set = inv.has_short('j');
    scan(inv, &DATE, |t| match t {
        Tok::Short('s', _) | Tok::Long("--set", _) => {
            Some(Verdict::write(M, "`-s` sets the clock"))
        }
        Tok::Pos(_, text) if !text.starts_with('+') && !bsd_no_set => {
            Some(Verdict::write(M, "an operand sets the clock"))
        }
        _ => None,
    })
}

const HWCLOCK: Spec = Spec {
    flags: "rwsaulvVhD",
    values: "f",
    optional: "",
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
};

pub(super) fn hwclock(inv: &Invocation<'_, '_>) -> Verdict {
    scan(inv, &HWCLOCK, |t| match t {
        Tok::Short('w' | 's' | 'a', _)
        | Tok::Long(
            "--systohc" | "--hctosys" | "--set" | "--adjust" | "--systz" | "--setepoch"
            | "--param-set" | "--vl-clear",
            _,
        ) => Some(Verdict::write(M, "sets the hardware or system clock")),
        Tok::Pos(..) => Some(Verdict::unknown("unexpected operand")),
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

const CHRONYC: Spec = Spec {
    flags: "nNcdmaV46e",
    values: "hpf",
    optional: "",
    long_flags: &[],
    long_values: &[],
    long_optional: &[],
};

/// `chronyc [options] COMMAND…` (options end at the command; with `-m`,
/// each argument is a command).
pub(super) fn chronyc(inv: &Invocation<'_, '_>) -> Verdict {
    let mut start = None;
    for tok in walk(&CHRONYC, inv.args) {
        match tok {
            Tok::Bad(word) => return bad(word),
            Tok::Pos(index, _) => {
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
    const NTPQ: Spec = Spec {
        flags: "46dinpwlsuW",
        values: "cDk",
        optional: "",
        long_flags: &[],
        long_values: &[],
        long_optional: &[],
    };
    let mut queries = false;
    for tok in walk(&NTPQ, inv.args) {
        match tok {
            Tok::Bad(word) => return bad(word),
            Tok::Short('i', _) => break,
            Tok::Short('p' | 's', _) => queries = true,
            Tok::Short('c', Some(cmd)) => {
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
