//! Processes: monitors, samplers, signals, priorities, tracers.

use crate::commands::common::{bad, first_bad, help_only, read_if_known, variable_guard};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

fn monitor(what: &'static str) -> Verdict {
    Verdict::interactive(InteractiveCategory::UnboundedStream, what)
}

const FULL_SCREEN: &str = "a full-screen monitor that never exits";

/// Full-screen monitors without a batch mode.
pub(super) fn full_screen(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-V" || a.as_str() == "-v") {
        return Verdict::Read;
    }
    monitor(FULL_SCREEN)
}

const TOP: Options = Options {
    short_flags: "bcHiOSs1hvCF",
    short_values: "dEenopuUlmX",
    short_optional: "w",
    long_flags: &[
        "--batch",
        "--cmdline-toggle",
        "--threads-show",
        "--idle-toggle",
        "--list-fields",
        "--accum-time-toggle",
        "--secure-mode",
        "--single-cpu-toggle",
        "--help",
        "--version",
    ],
    long_values: &[
        "--delay",
        "--scale-summary-mem",
        "--scale-task-mem",
        "--iterations",
        "--sort-override",
        "--pid",
        "--filter-only-euser",
        "--filter-any-user",
    ],
    long_optional: &["--width"],
    style: Style::Gnu,
};

/// `top -b -n N` is a bounded report (`-l N` on BSD); anything else is the
/// full-screen monitor.
pub(super) fn top(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut batch, mut iterations, mut info) = (false, false, false);
    for tok in TOP.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'b', .. }
            | Tok::Long {
                name: "--batch", ..
            } => batch = true,
            Tok::Short {
                flag: 'n' | 'l',
                value: Some(_),
                ..
            }
            | Tok::Long {
                name: "--iterations",
                value: Some(_),
                ..
            } => {
                iterations = true;
            }
            Tok::Short {
                flag: 'h' | 'v', ..
            }
            | Tok::Long {
                name: "--help" | "--version",
                ..
            } => info = true,
            _ => {}
        }
    }
    if info || iterations && (batch || inv.args.iter().any(|a| a.as_str().starts_with("-l"))) {
        return Verdict::Read;
    }
    monitor("runs until stopped without `-b -n COUNT`")
}

const IOTOP: Options = Options {
    short_flags: "obPaktqhV",
    short_values: "ndpu",
    short_optional: "",
    long_flags: &[
        "--only",
        "--batch",
        "--processes",
        "--accumulated",
        "--kilobytes",
        "--time",
        "--quiet",
        "--help",
        "--version",
    ],
    long_values: &["--iter", "--delay", "--pid", "--user"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn iotop(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut batch, mut iterations) = (false, false);
    for tok in IOTOP.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'b', .. }
            | Tok::Long {
                name: "--batch", ..
            } => batch = true,
            Tok::Short {
                flag: 'n',
                value: Some(_),
                ..
            }
            | Tok::Long {
                name: "--iter",
                value: Some(_),
                ..
            } => iterations = true,
            Tok::Short {
                flag: 'h' | 'V', ..
            }
            | Tok::Long {
                name: "--help" | "--version",
                ..
            } => {
                return Verdict::Read;
            }
            _ => {}
        }
    }
    if batch && iterations {
        return Verdict::Read;
    }
    monitor("runs until stopped without `-b -n COUNT`")
}

pub(super) fn atop(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.option_args().any(|a| a.as_str().starts_with("-w")) {
        return Verdict::write(Risk::LowWrite, "`-w` writes samples to a raw file");
    }
    full_screen(inv)
}

pub(super) fn nmon(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('f') || inv.has_short('F') {
        return Verdict::write(Risk::LowWrite, "`-f` records samples to a file");
    }
    full_screen(inv)
}

pub(super) fn glances(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .option_args()
        .any(|a| a.as_str().starts_with("--export"))
    {
        return Verdict::write(Risk::LowWrite, "`--export` writes samples out");
    }
    full_screen(inv)
}

pub(super) fn slabtop(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('o') || inv.has_long_abbrev("--once") || help_only(inv) {
        return Verdict::Read;
    }
    monitor("refreshes until stopped without `-o`")
}

pub(super) fn powertop(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    if inv.option_args().any(|a| {
        let t = a.as_str();
        [
            "--html",
            "--csv",
            "--auto-tune",
            "--calibrate",
            "--workload",
        ]
        .iter()
        .any(|l| t.starts_with(l))
    }) {
        return Verdict::write(Risk::LowWrite, "writes a report or tunes devices");
    }
    monitor(FULL_SCREEN)
}

/// `PROGRAM [interval [count]]`: one number repeats forever.
fn sampler(inv: &Invocation<'_, '_>, spec: &'static Options, bare_bounded: bool) -> Verdict {
    if let Some(word) = first_bad(spec, inv.args) {
        return bad(word);
    }
    let mut numbers = spec.walk(inv.args).filter_map(|t| match t {
        Tok::Operand { text, .. } if text.parse::<f64>().is_ok() => Some(text),
        _ => None,
    });
    match (numbers.next(), numbers.next()) {
        (None, _) if bare_bounded => Verdict::Read,
        (Some(_), Some(count)) if count.parse::<f64>().is_ok_and(|c| c > 0.0) => Verdict::Read,
        _ => monitor("an interval without a count repeats forever"),
    }
}

const VMSTAT: Options = Options {
    short_flags: "afmnsdDtwyhV",
    short_values: "pSc",
    short_optional: "",
    long_flags: &[
        "--active",
        "--forks",
        "--slabs",
        "--one-header",
        "--stats",
        "--disk",
        "--disk-sum",
        "--timestamp",
        "--wide",
        "--no-first",
        "--help",
        "--version",
    ],
    long_values: &["--partition", "--unit"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn vmstat(inv: &Invocation<'_, '_>) -> Verdict {
    sampler(inv, &VMSTAT, true)
}

const IOSTAT: Options = Options {
    short_flags: "cdhkmNstVxyzH",
    short_values: "gjof",
    short_optional: "p",
    long_flags: &["--human", "--pretty", "--compact", "--debuginfo", "--help"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn iostat(inv: &Invocation<'_, '_>) -> Verdict {
    sampler(inv, &IOSTAT, true)
}

const MPSTAT: Options = Options {
    short_flags: "AhnTuVH",
    short_values: "INPo",
    short_optional: "",
    long_flags: &["--help"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn mpstat(inv: &Invocation<'_, '_>) -> Verdict {
    sampler(inv, &MPSTAT, true)
}

const PIDSTAT: Options = Options {
    short_flags: "dHhIlRrsUuVvwt",
    short_values: "CGpT",
    short_optional: "",
    long_flags: &["--human", "--help"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn pidstat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('e') {
        return Verdict::unknown("`-e` runs a program");
    }
    sampler(inv, &PIDSTAT, true)
}

const SAR: Options = Options {
    short_flags: "ABbdHhpqSvWwyzturFxV",
    short_values: "nIPmsefij",
    short_optional: "o",
    long_flags: &["--human", "--pretty", "--help", "--sadc"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn sar(inv: &Invocation<'_, '_>) -> Verdict {
    if SAR
        .walk(inv.args)
        .any(|t| matches!(t, Tok::Short { flag: 'o', .. }))
    {
        return Verdict::write(Risk::LowWrite, "`-o` saves samples to a data file");
    }
    if SAR.walk(inv.args).any(|t| {
        matches!(
            t,
            Tok::Short {
                flag: 'f',
                value: Some(_),
                ..
            }
        )
    }) {
        return read_if_known(&SAR, inv);
    }
    sampler(inv, &SAR, true)
}

const DSTAT: Options = Options {
    short_flags: "acdfgilmnprstTvyV",
    short_values: "CDINS",
    short_optional: "",
    long_flags: &[
        "--all",
        "--cpu",
        "--disk",
        "--full",
        "--integer",
        "--load",
        "--mem",
        "--net",
        "--page",
        "--proc",
        "--swap",
        "--time",
        "--vmstat",
        "--version",
        "--nocolor",
        "--noheaders",
        "--noupdate",
        "--bw",
        "--float",
        "--top-cpu",
        "--top-io",
        "--top-mem",
        "--top-bio",
        "--tcp",
        "--udp",
        "--unix",
        "--raw",
        "--socket",
        "--fs",
        "--ipc",
        "--lock",
        "--aio",
        "--help",
    ],
    long_values: &[],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn dstat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long_abbrev("--output") {
        return Verdict::write(Risk::LowWrite, "`--output` writes a CSV file");
    }
    sampler(inv, &DSTAT, false)
}

const FREE: Options = Options {
    short_flags: "bkmghltvwLV",
    short_values: "sc",
    short_optional: "",
    long_flags: &[
        "--bytes",
        "--kilo",
        "--mega",
        "--giga",
        "--tera",
        "--peta",
        "--kibi",
        "--mebi",
        "--gibi",
        "--tebi",
        "--pebi",
        "--human",
        "--si",
        "--lohi",
        "--line",
        "--total",
        "--committed",
        "--wide",
        "--help",
        "--version",
    ],
    long_values: &["--seconds", "--count"],
    long_optional: &[],
    style: Style::Gnu,
};

/// `-s N` repeats forever unless `-c COUNT` bounds it.
pub(super) fn free(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut delay, mut count) = (false, false);
    for tok in FREE.walk(inv.args) {
        match tok {
            Tok::Short { flag: 's', .. }
            | Tok::Long {
                name: "--seconds", ..
            } => delay = true,
            Tok::Short { flag: 'c', .. }
            | Tok::Long {
                name: "--count", ..
            } => count = true,
            _ => {}
        }
    }
    if delay && !count {
        return monitor("`-s` repeats forever without `-c`");
    }
    Verdict::Read
}

/// `kill -l`, `kill -0 PID` (existence check) read; other signals write.
pub(super) fn kill(inv: &Invocation<'_, '_>) -> Verdict {
    let args = inv.args;
    let first = args.first().map(|a| a.as_str());
    if matches!(first, Some("-l" | "-L" | "--list" | "--table")) || help_only(inv) {
        return Verdict::Read;
    }
    let (signal, targets) = match args {
        [opt, sig, rest @ ..] if matches!(opt.as_str(), "-s" | "-n" | "--signal") => {
            (sig.as_str(), rest)
        }
        [sig, rest @ ..] if sig.as_str().starts_with('-') && sig.as_str() != "--" => {
            (&sig.as_str()[1..], rest)
        }
        _ => ("TERM", args),
    };
    let plain_target = |a: &&crate::invocation::Arg<'_>| {
        a.is_literal() && (a.as_str().parse::<i64>().is_ok() || a.as_str().starts_with('%'))
    };
    if matches!(signal, "0" | "SIG0")
        && !targets.is_empty()
        && targets.iter().all(|a| plain_target(&a))
    {
        return Verdict::Read;
    }
    if targets.iter().any(|a| matches!(a.as_str(), "1" | "-1")) {
        return Verdict::write(Risk::HighWrite, "signals init or every process");
    }
    Verdict::write(Risk::MediumWrite, "sends a signal to processes")
}

/// `pkill`, `killall`, `skill`, `snice`: `-l` lists signals.
pub(super) fn kill_by_name(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv)
        || matches!(inv.args, [a] if matches!(a.as_str(), "-l" | "--list" | "-V" | "-L"))
    {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "signals processes by name")
}

pub(super) fn renice(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "changes process priorities")
}

const PRLIMIT: Options = Options {
    short_flags: "hV",
    short_values: "po",
    short_optional: "cdefilmnqrstuvxy",
    long_flags: &["--noheadings", "--raw", "--verbose", "--help", "--version"],
    long_values: &["--pid", "--output"],
    long_optional: &[
        "--core",
        "--data",
        "--nice",
        "--fsize",
        "--sigpending",
        "--memlock",
        "--rss",
        "--nofile",
        "--msgqueue",
        "--rtprio",
        "--stack",
        "--cpu",
        "--nproc",
        "--as",
        "--locks",
        "--rttime",
    ],
    style: Style::Gnu,
};

/// Shows limits; `--nofile=N` sets them on `--pid`, or on a command it runs.
pub(super) fn prlimit(inv: &Invocation<'_, '_>) -> Verdict {
    let mut sets = false;
    for tok in PRLIMIT.walk(inv.args) {
        match tok {
            Tok::Operand { index, .. } => return Verdict::wrap_argv("prlimit", index),
            Tok::Unknown { text: word, .. } => return bad(word),
            Tok::Short {
                flag: c,
                value: Some(_),
                ..
            } if PRLIMIT.short_optional.contains(c) => sets = true,
            Tok::Long {
                name,
                value: Some(_),
                ..
            } if PRLIMIT.long_optional.contains(&name) => sets = true,
            _ => {}
        }
    }
    if sets {
        return Verdict::write(Risk::MediumWrite, "sets resource limits of a process");
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

const AFFINITY: Options = Options {
    short_flags: "apchVbdfiormvR",
    short_values: "TPD",
    short_optional: "",
    long_flags: &[
        "--all-tasks",
        "--pid",
        "--cpu-list",
        "--help",
        "--version",
        "--batch",
        "--deadline",
        "--fifo",
        "--idle",
        "--other",
        "--rr",
        "--max",
        "--verbose",
        "--reset-on-fork",
        "--ext",
    ],
    long_values: &["--sched-runtime", "--sched-period", "--sched-deadline"],
    long_optional: &[],
    style: Style::Gnu,
};

/// `taskset`/`chrt`: `-p PID` shows, `-p VALUE PID` sets, `VALUE CMD…` runs
/// the command (options end at the first operand).
pub(super) fn affinity(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    let by_pid = inv.has_short('p') || inv.has_long("--pid");
    let max = inv.name == "chrt" && (inv.has_short('m') || inv.has_long("--max"));
    let via = if inv.name == "chrt" {
        "chrt"
    } else {
        "taskset"
    };
    let mut operands = 0;
    for tok in AFFINITY.walk(inv.args) {
        match tok {
            Tok::Unknown { text: word, .. } => return bad(word),
            Tok::Operand { index, .. } => {
                operands += 1;
                if operands == 2 && !by_pid {
                    return Verdict::wrap_argv(via, index);
                }
            }
            _ => {}
        }
    }
    if max && operands == 0 || by_pid && operands == 1 {
        return variable_guard(inv).unwrap_or(Verdict::Read);
    }
    if by_pid {
        return Verdict::write(Risk::MediumWrite, "changes a running process's scheduling");
    }
    Verdict::unknown("no command or process")
}

/// Tracers and debuggers attach to or run programs.
pub(super) fn tracer(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-V") {
        return Verdict::Read;
    }
    Verdict::unknown("attaches to or runs a program under a tracer")
}

pub(super) fn gdb(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    if inv.args.is_empty() {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "starts the interactive debugger",
        );
    }
    Verdict::unknown("debugs, attaches to or runs a program")
}

pub(super) fn perf(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args.first().map(|a| a.as_str()) {
        Some("list" | "version" | "--version" | "-v" | "--help" | "evlist") => Verdict::Read,
        Some("top") => monitor("`top` refreshes until stopped"),
        _ => Verdict::unknown("records, runs or attaches to programs"),
    }
}

/// `lsof`: `-r`/`+r` repeat mode never ends; nothing else changes anything.
pub(super) fn lsof(inv: &Invocation<'_, '_>) -> Verdict {
    // Letters that take a value: the rest of the word (or the next one) is it.
    const VALUED: &str = "AcdDeEFgikKmopsSTuz";
    for arg in inv.args {
        let text = arg.as_str();
        let Some(letters) = text
            .strip_prefix('-')
            .or_else(|| text.strip_prefix('+'))
            .filter(|l| !l.starts_with('-'))
        else {
            continue;
        };
        for c in letters.chars() {
            if c == 'r' {
                return monitor("`-r` repeats the listing forever");
            }
            if VALUED.contains(c) {
                break;
            }
        }
    }
    Verdict::Read
}

/// `fuser -k` kills what it finds.
pub(super) fn fuser(inv: &Invocation<'_, '_>) -> Verdict {
    let mut args = inv.option_args();
    while let Some(arg) = args.next() {
        let text = arg.as_str();
        if text == "-n" {
            args.next();
            continue;
        }
        let kills = if text.starts_with("--") {
            text.len() >= 3 && "--kill".starts_with(text) || text == "--kill"
        } else {
            text.starts_with('-')
                && text[1..].chars().all(|c| "acfkiImMsuvVw46".contains(c))
                && text.contains('k')
        };
        if kills {
            return Verdict::write(Risk::MediumWrite, "`-k` kills the processes it finds");
        }
    }
    if inv.any_variable() {
        return Verdict::unknown("an argument could expand into `-k`");
    }
    Verdict::Read
}

pub(super) fn endless(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::generator("prints forever")
}
