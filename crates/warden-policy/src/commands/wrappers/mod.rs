//! Wrappers that run another command, looked through to classify it:
//! `timeout`, `nice`, `env`, `xargs`, `watch`, `ssh host …`, `nsenter`,
//! multi-call binaries (`busybox`, `toybox`, `coreutils`), and the
//! programs that run a command somewhere else (`lxc-attach`, `incus
//! exec`, `systemd-run`, `ip netns exec`, …). A wrapper's own options are
//! an allowlist like any program's; the inner command decides the rest,
//! and the catastrophic check always sees it.

mod remote;
mod runners;

use super::Rule;
use crate::commands::common;
use crate::env_vars;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("timeout", timeout),
    ("nice", nice),
    ("ionice", ionice),
    ("env", env),
    ("xargs", xargs),
    ("stdbuf", stdbuf),
    ("time", time),
    ("command", command),
    ("builtin", builtin),
    ("watch", watch),
    ("ssh", remote::ssh),
    ("nsenter", runners::nsenter),
    ("busybox", runners::multi_call),
    ("toybox", runners::multi_call),
    ("coreutils", runners::coreutils),
    ("numactl", runners::numactl),
    ("lxc-attach", runners::lxc_attach),
    ("lxc-execute", runners::lxc_attach),
    ("incus", runners::incus),
    ("lxc", runners::incus),
    ("systemd-run", runners::systemd_run),
    ("systemd-nspawn", runners::systemd_nspawn),
    ("flock", runners::flock),
    ("setpriv", runners::setpriv),
    ("firejail", runners::sandbox),
    ("bwrap", runners::sandbox),
    ("proot", runners::sandbox),
    ("fakeroot", runners::sandbox),
    ("unbuffer", runners::unbuffer),
    ("parallel", runners::parallel),
    ("gosu", runners::switch_user),
    ("su-exec", runners::switch_user),
    ("chpst", runners::switch_user),
    ("runcon", runners::switch_user),
    ("cgexec", runners::switch_user),
    ("script", runners::script),
];

/// A wrapper's own argument it cannot read (an unknown option, one that
/// may expand into an option) hides the command it runs: not a write
/// Warden can name, so it is judged as the worst it could run, a
/// high-risk write a human approves at every level.
pub(super) fn bad(word: &str) -> Verdict {
    match common::bad(word) {
        Verdict::Unknown(reason) => Verdict::write(
            Risk::HighWrite,
            format!("{reason}, so the command it runs cannot be found"),
        ),
        other => other,
    }
}

/// Look through to the first operand (the command) after the wrapper's own
/// options, which end there; unknown options are refused.
fn through(inv: &Invocation<'_, '_>, spec: &Options, via: &'static str, bound: Bound) -> Verdict {
    for tok in spec.walk(inv.args) {
        match tok {
            Tok::Operand { index, .. } => {
                return Verdict::Wrap(Wrap {
                    inner: Inner::Argv { start: index },
                    bound,
                    interactive: None,
                    via,
                });
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    Verdict::unknown("no command to run")
}

const TIMEOUT: Options = Options {
    short_flags: "fpv",
    short_values: "ks",
    long_flags: &[
        "--foreground",
        "--preserve-status",
        "--verbose",
        "--help",
        "--version",
    ],
    long_values: &["--kill-after", "--signal"],
    ..Options::POSIX
};

/// `timeout DURATION CMD…` bounds CMD when DURATION is a positive literal.
fn timeout(inv: &Invocation<'_, '_>) -> Verdict {
    let mut walk = TIMEOUT.walk(inv.args);
    let duration = loop {
        match walk.next() {
            Some(Tok::Operand { index, text }) => break (index, text),
            Some(Tok::Unknown { text, .. }) => return bad(text),
            Some(Tok::Dynamic { index }) => {
                return bad(inv.args.get(index).map_or("$…", |a| a.raw));
            }
            Some(Tok::Short { .. } | Tok::Long { .. }) => {}
            None if inv.has_word(&["--help", "--version"]) => return Verdict::Read,
            None => return Verdict::unknown("no duration"),
        }
    };
    let (index, text) = duration;
    if inv.args.get(index + 1).is_none() {
        return Verdict::unknown("no command");
    }
    let bounded = inv.args.get(index).is_some_and(|a| a.is_literal()) && duration_is_positive(text);
    Verdict::Wrap(Wrap {
        inner: Inner::Argv { start: index + 1 },
        bound: if bounded {
            Bound::TimeLimited
        } else {
            Bound::None
        },
        interactive: None,
        via: "timeout",
    })
}

/// The longest `timeout` that still counts as a bound: a read that runs
/// for days is as good as unbounded.
const MAX_BOUND_SECONDS: f64 = 3600.0;

/// A positive duration of at most [`MAX_BOUND_SECONDS`] (`5`, `2.5m`, `1h`).
fn duration_is_positive(text: &str) -> bool {
    let (number, unit) = match text.strip_suffix(['s', 'm', 'h', 'd']) {
        Some(number) => (number, &text[number.len()..]),
        None => (text, "s"),
    };
    let scale = match unit {
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => 1.0,
    };
    !number.is_empty()
        && number
            .parse::<f64>()
            .is_ok_and(|n| n > 0.0 && n.is_finite() && n * scale <= MAX_BOUND_SECONDS)
}

const NICE: Options = Options {
    short_values: "n",
    long_values: &["--adjustment"],
    long_flags: &["--help", "--version"],
    ..Options::POSIX
};

/// `nice [-n N] [-N] CMD…`; alone it prints the niceness.
fn nice(inv: &Invocation<'_, '_>) -> Verdict {
    // The obsolete `-N` adjustment.
    let start = usize::from(inv.args.first().is_some_and(|a| {
        a.as_str()
            .strip_prefix('-')
            .is_some_and(|n| n.parse::<i32>().is_ok())
    }));
    let rest = inv.from(start);
    if rest.is_empty() || (rest.args.len() == 2 && rest.arg(0) == Some("-n")) {
        return Verdict::Read;
    }
    match through(&rest, &NICE, "nice", Bound::None) {
        Verdict::Wrap(mut wrap) => {
            if let Inner::Argv { start: inner } = &mut wrap.inner {
                *inner += start;
            }
            Verdict::Wrap(wrap)
        }
        other => other,
    }
}

const IONICE: Options = Options {
    short_flags: "tuhV",
    short_values: "cnpPu",
    long_flags: &["--ignore", "--help", "--version"],
    long_values: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
    ..Options::POSIX
};

/// `ionice [-c C] [-n N] CMD…`; with `-p` it shows or sets a process's class.
fn ionice(inv: &Invocation<'_, '_>) -> Verdict {
    let mut targets = false;
    let mut sets = false;
    for tok in IONICE.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'p' | 'P' | 'u',
                ..
            }
            | Tok::Long {
                name: "--pid" | "--pgid" | "--uid",
                ..
            } => {
                targets = true;
            }
            Tok::Short {
                flag: 'c' | 'n', ..
            }
            | Tok::Long {
                name: "--class" | "--classdata",
                ..
            } => {
                sets = true;
            }
            Tok::Operand { .. } if targets => {}
            Tok::Operand { .. } => break,
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    match (targets, sets) {
        (true, true) => Verdict::write(
            Risk::LowWrite,
            "changes the I/O priority of running processes",
        ),
        (true, false) => Verdict::Read,
        (false, _) if inv.args.iter().all(|a| a.as_str().starts_with('-')) => Verdict::Read,
        (false, _) => through(inv, &IONICE, "ionice", Bound::None),
    }
}

/// `env [-i] [-u NAME] [NAME=VALUE…] [CMD…]`; `-S` splits a string into a
/// command line, `-C` changes directory.
fn env(inv: &Invocation<'_, '_>) -> Verdict {
    const ENV: Options = Options {
        short_flags: "i0v",
        short_values: "uCS",
        long_flags: &[
            "--ignore-environment",
            "--null",
            "--debug",
            "--help",
            "--version",
        ],
        long_values: &[
            "--unset",
            "--chdir",
            "--split-string",
            "--block-signal",
            "--default-signal",
            "--ignore-signal",
        ],
        ..Options::POSIX
    };
    let mut start = None;
    for tok in ENV.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'S', value, ..
            }
            | Tok::Long {
                name: "--split-string",
                value,
                ..
            } => {
                // The string is split into words, not parsed as a shell
                // line; read as one it is still checked for what it runs.
                let at = tok.index();
                let separate = inv.args.get(at + 1).map(|a| a.as_str()) == value
                    && !inv.args[at].as_str().contains('=');
                let rest: Vec<&str> = inv.args[at + 1 + usize::from(separate)..]
                    .iter()
                    .map(|a| a.as_str())
                    .collect();
                let line = format!("{} {}", value.unwrap_or_default(), rest.join(" "));
                return Verdict::Guarded(
                    Wrap {
                        inner: Inner::Script(line),
                        bound: Bound::None,
                        interactive: None,
                        via: "env -S",
                    },
                    "`-S` splits a string into a command".into(),
                );
            }
            Tok::Short { flag: 'C', .. }
            | Tok::Long {
                name: "--chdir", ..
            } => {
                return Verdict::unknown("`-C` runs the command in another directory");
            }
            Tok::Operand { index, .. } => {
                start = Some(index);
                break;
            }
            Tok::Unknown { text: "-", .. } => {}
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    let Some(mut index) = start else {
        return Verdict::Read;
    };
    while let Some(arg) = inv.args.get(index) {
        let Some((name, _)) = arg.as_str().split_once('=') else {
            break;
        };
        if !arg.is_literal() && name.contains(['$', '`']) {
            return bad(arg.raw);
        }
        let value = arg.as_str().split_once('=').map_or("", |(_, v)| v);
        if let Some(reason) = env_vars::assignment_refusal(name, value, arg.is_literal()) {
            return Verdict::Guarded(
                Wrap {
                    inner: Inner::Argv { start: index + 1 },
                    bound: Bound::None,
                    interactive: None,
                    via: "env",
                },
                reason.into(),
            );
        }
        index += 1;
    }
    if index >= inv.args.len() {
        return Verdict::Read;
    }
    Verdict::wrap_argv("env", index)
}

const XARGS: Options = Options {
    short_flags: "0prtxo",
    short_values: "adEILnPs",
    short_optional: "eil",
    long_flags: &[
        "--null",
        "--interactive",
        "--no-run-if-empty",
        "--verbose",
        "--exit",
        "--open-tty",
        "--show-limits",
        "--help",
        "--version",
    ],
    long_values: &[
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ],
    long_optional: &["--replace", "--eof", "--max-lines"],
    ..Options::POSIX
};

/// `xargs [opts] CMD…`: runs CMD with its input appended (or put in place
/// of `-I` marker); `-p` and `-o` use the terminal; `-a FILE` reads the
/// arguments from a file instead of standard input.
fn xargs(inv: &Invocation<'_, '_>) -> Verdict {
    let mut marker: Option<String> = None;
    let mut start = None;
    for tok in XARGS.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'p' | 'o', ..
            }
            | Tok::Long {
                name: "--interactive" | "--open-tty",
                ..
            } => {
                return Verdict::interactive(
                    InteractiveCategory::TtyFlag,
                    "asks on the terminal before each run",
                );
            }
            Tok::Short {
                flag: 'I', value, ..
            } => marker = Some(value.unwrap_or("{}").to_string()),
            Tok::Short {
                flag: 'i', value, ..
            }
            | Tok::Long {
                name: "--replace",
                value,
                ..
            } => {
                marker = Some(value.unwrap_or("{}").to_string());
            }
            Tok::Operand { index, .. } => {
                start = Some(index);
                break;
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    let inner = match (start, marker) {
        (Some(start), Some(marker)) => Inner::ArgvReplacing { start, marker },
        (Some(start), None) => Inner::ArgvAppendingDynamic { start },
        // With no command xargs runs `echo`.
        (None, _) => return Verdict::Read,
    };
    Verdict::Wrap(Wrap {
        inner,
        bound: Bound::None,
        interactive: None,
        via: "xargs",
    })
}

fn stdbuf(inv: &Invocation<'_, '_>) -> Verdict {
    const STDBUF: Options = Options {
        short_values: "ioe",
        long_values: &["--input", "--output", "--error"],
        long_flags: &["--help", "--version"],
        ..Options::POSIX
    };
    through(inv, &STDBUF, "stdbuf", Bound::None)
}

/// `time [-p] CMD…` (bash's keyword, or GNU time, whose `-o` writes a file).
fn time(inv: &Invocation<'_, '_>) -> Verdict {
    const TIME: Options = Options {
        short_flags: "pvqa",
        short_values: "fo",
        long_flags: &[
            "--portability",
            "--verbose",
            "--quiet",
            "--append",
            "--help",
            "--version",
        ],
        long_values: &["--format", "--output"],
        ..Options::POSIX
    };
    if inv.has_short('o') || inv.args.iter().any(|a| a.as_str().starts_with("--output")) {
        return Verdict::write(Risk::LowWrite, "`-o` writes its report to a file");
    }
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    through(inv, &TIME, "time", Bound::None)
}

/// `command [-pvV] CMD…`: `-v`/`-V` only describe CMD.
fn command(inv: &Invocation<'_, '_>) -> Verdict {
    const COMMAND: Options = Options {
        short_flags: "pvV",
        ..Options::POSIX
    };
    if inv.has_short('v') || inv.has_short('V') {
        return Verdict::Read;
    }
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    through(inv, &COMMAND, "command", Bound::None)
}

fn builtin(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    Verdict::wrap_argv("builtin", 0)
}

const WATCH: Options = Options {
    short_flags: "bcCdeEfgprtwx",
    short_values: "nq",
    long_flags: &[
        "--beep",
        "--color",
        "--no-color",
        "--differences",
        "--errexit",
        "--exec",
        "--follow",
        "--chgexit",
        "--precise",
        "--no-rerun",
        "--no-title",
        "--no-wrap",
        "--help",
        "--version",
    ],
    long_values: &["--interval", "--equexit", "--shotsdir"],
    ..Options::POSIX
};

/// `watch CMD`: re-runs CMD forever (its script is still classified).
fn watch(inv: &Invocation<'_, '_>) -> Verdict {
    let unbounded = InteractiveVerdict {
        ends_with_reader: false,
        category: InteractiveCategory::UnboundedStream,
        intent: Intent::ReadOnlyCertain,
        rewrite: None,
        reason: "re-runs the command forever".into(),
    };
    let mut start = None;
    for tok in WATCH.walk(inv.args) {
        match tok {
            Tok::Operand { index, .. } => {
                start = Some(index);
                break;
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    let Some(start) = start else {
        return Verdict::Interactive(unbounded);
    };
    let inner = if inv.has_short('x') || inv.has_long("--exec") {
        Inner::Argv { start }
    } else {
        let words: Vec<&str> = inv.args[start..].iter().map(|a| a.raw).collect();
        Inner::Script(words.join(" "))
    };
    Verdict::Wrap(Wrap {
        inner,
        bound: Bound::None,
        interactive: Some(unbounded),
        via: "watch",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for d in ["5", "5s", "2.5", "1m", "1h"] {
            assert!(duration_is_positive(d), "{d}");
        }
        for d in ["0", "0s", "", "x", "-1"] {
            assert!(!duration_is_positive(d), "{d}");
        }
    }
}
