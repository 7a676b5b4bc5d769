//! Processes: signals, priorities, limits, tracers, open files (the
//! monitors and samplers are in `monitors.rs`).

use crate::commands::common::{bad, help_only, variable_guard};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

use super::monitors::monitor;

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
