//! Programs that run a command given as their operands, in another place
//! or under other limits: multi-call binaries, CPU and NUMA pinning,
//! containers and namespaces, transient units, sandboxes, user switchers.
//! The inner command is always classified (so the catastrophic check sees
//! it); the runners that change something themselves are guarded writes.

use super::bad;
use super::through;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

fn guarded(
    inv: &Invocation<'_, '_>,
    start: Option<usize>,
    via: &'static str,
    reason: &'static str,
) -> Verdict {
    let inner = match start {
        Some(start) if start < inv.args.len() => Inner::Argv { start },
        _ => Inner::Opaque(format!("{via}: no command to look at").into()),
    };
    Verdict::Guarded(
        Wrap {
            inner,
            bound: Bound::None,
            interactive: None,
            via,
        },
        reason.into(),
    )
}

/// The first operand after `spec`'s options (which end there).
// Cold path: the error is the rule's final verdict.
#[allow(clippy::result_large_err)]
fn first_operand(inv: &Invocation<'_, '_>, spec: &Options) -> Result<Option<usize>, Verdict> {
    for tok in spec.walk(inv.args) {
        match tok {
            Tok::Operand { index, .. } => return Ok(Some(index)),
            Tok::Unknown { text, .. } => return Err(bad(text)),
            Tok::Dynamic { index } => {
                return Err(bad(inv.args.get(index).map_or("$…", |a| a.raw)));
            }
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    Ok(None)
}

/// `busybox CMD…`, `toybox CMD…`: the applet named first.
pub(super) fn multi_call(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        None | Some("--list" | "--list-full" | "--help" | "--version" | "--long") => Verdict::Read,
        Some("--install") => Verdict::write(Risk::MediumWrite, "installs applet links"),
        Some(_) if inv.args.first().is_some_and(|a| a.is_variable()) => {
            Verdict::unknown("the applet comes from an expansion")
        }
        Some(_) if inv.name == "toybox" => Verdict::wrap_argv("toybox", 0),
        Some(_) => Verdict::wrap_argv("busybox", 0),
    }
}

/// `coreutils --coreutils-prog=NAME ARGS…` (the multi-call coreutils): the
/// catastrophic check looks at NAME; the command is unknown.
pub(super) fn coreutils(inv: &Invocation<'_, '_>) -> Verdict {
    if matches!(inv.arg(0), Some("--help" | "--version")) {
        return Verdict::Read;
    }
    Verdict::unknown("runs the program named by `--coreutils-prog`")
}

/// `numactl [policy] CMD…`; `--show`/`--hardware` report.
pub(super) fn numactl(inv: &Invocation<'_, '_>) -> Verdict {
    const NUMACTL: Options = Options {
        short_flags: "aslHS",
        short_values: "imNCpPbw",
        long_flags: &[
            "--all",
            "--show",
            "--localalloc",
            "--hardware",
            "--help",
            "--version",
        ],
        long_values: &[
            "--interleave",
            "--weighted-interleave",
            "--membind",
            "--cpunodebind",
            "--physcpubind",
            "--preferred",
            "--preferred-many",
            "--balancing",
        ],
        ..Options::POSIX
    };
    if inv.has_short('s')
        || inv.has_short('H')
        || inv.has_long("--show")
        || inv.has_long("--hardware")
    {
        return Verdict::Read;
    }
    through(inv, &NUMACTL, "numactl", Bound::None)
}

const LXC_ATTACH: Options = Options {
    short_flags: "eRqh",
    short_values: "nPsuglov",
    long_flags: &[
        "--elevated-privileges",
        "--remount-sys-proc",
        "--keep-env",
        "--clear-env",
        "--quiet",
        "--help",
        "--version",
    ],
    long_values: &[
        "--name",
        "--lxcpath",
        "--namespaces",
        "--uid",
        "--gid",
        "--logpriority",
        "--logfile",
        "--set-var",
        "--rcfile",
        "--arch",
        "--context",
    ],
    ..Options::GNU
};

/// `lxc-attach -n NAME [--] CMD…`: runs CMD in a container (no command: a
/// shell). `-o`/`--logfile` writes a log; `-v` sets variables.
pub(super) fn lxc_attach(inv: &Invocation<'_, '_>) -> Verdict {
    let dashes = inv.args.iter().position(|a| a.as_str() == "--");
    let options = inv.from(0);
    let options = Invocation::new(inv.name, &options.args[..dashes.unwrap_or(inv.args.len())]);
    let mut operand = None;
    for tok in LXC_ATTACH.walk(options.args) {
        match tok {
            Tok::Short { flag: 'o', .. }
            | Tok::Long {
                name: "--logfile", ..
            } => {
                return Verdict::write(Risk::LowWrite, "`-o` writes a log file");
            }
            Tok::Short { flag: 'v', .. }
            | Tok::Long {
                name: "--set-var" | "--rcfile",
                ..
            } => {
                return Verdict::unknown("sets variables or reads a config for the command");
            }
            Tok::Operand { index, .. } => {
                operand = Some(index);
                break;
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    let start = dashes.map(|d| d + 1).or(operand);
    match start {
        Some(start) if start < inv.args.len() => Verdict::wrap_argv("lxc-attach", start),
        _ => Verdict::Wrap(Wrap {
            inner: Inner::Shell,
            bound: Bound::None,
            interactive: None,
            via: "lxc-attach",
        }),
    }
}

/// LXD/Incus: `incus exec NAME [--] CMD…` runs CMD in the instance; list,
/// info and show subcommands read; `shell` and `console` are interactive.
pub(super) fn incus(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &["list", "ls", "info", "version", "query", "monitor"];
    let Some(sub) = inv.args.first() else {
        return Verdict::unknown("no subcommand");
    };
    if !sub.is_literal() {
        return bad(sub.raw);
    }
    match sub.as_str() {
        "exec" => {
            let dashes = inv.args.iter().position(|a| a.as_str() == "--");
            match dashes {
                Some(d) if d + 1 < inv.args.len() && d >= 2 => {
                    Verdict::wrap_argv("incus exec", d + 1)
                }
                _ => Verdict::unknown("`exec` without `--` before the command"),
            }
        }
        "shell" | "console" => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens a shell in the instance",
        ),
        "monitor" => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "streams events until interrupted",
        ),
        s if READS.contains(&s) => {
            if inv.args[1..]
                .iter()
                .all(|a| a.is_literal() && !matches!(a.as_str(), "-f" | "--force"))
            {
                Verdict::Read
            } else {
                Verdict::unknown("unknown arguments")
            }
        }
        "config" | "image" | "storage" | "network" | "profile" | "remote" | "project"
        | "cluster" => match inv.arg(1) {
            Some("show" | "list" | "ls" | "get" | "info") => Verdict::Read,
            _ => Verdict::write(
                Risk::MediumWrite,
                "changes instances or their configuration",
            ),
        },
        other => Verdict::write(Risk::MediumWrite, format!("`{other}` changes instances")),
    }
}

/// `systemd-run [opts] CMD…` starts CMD as a transient unit.
pub(super) fn systemd_run(inv: &Invocation<'_, '_>) -> Verdict {
    const RUN: Options = Options {
        short_flags: "rtPqGdHMS",
        short_values: "upEH",
        long_flags: &[
            "--user",
            "--system",
            "--scope",
            "--remain-after-exit",
            "--no-block",
            "--wait",
            "--pty",
            "--pipe",
            "--quiet",
            "--collect",
            "--same-dir",
            "--shell",
            "--no-ask-password",
            "--help",
            "--version",
        ],
        long_values: &[
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--setenv",
            "--service-type",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--on-calendar",
            "--on-clock-change",
            "--on-timezone-change",
            "--timer-property",
            "--path-property",
            "--socket-property",
            "--host",
            "--machine",
        ],
        ..Options::POSIX
    };
    match first_operand(inv, &RUN) {
        Err(verdict) => verdict,
        Ok(start) => guarded(inv, start, "systemd-run", "starts a transient unit"),
    }
}

/// `systemd-nspawn [opts] [CMD…]` runs a container.
pub(super) fn systemd_nspawn(inv: &Invocation<'_, '_>) -> Verdict {
    let start = inv
        .args
        .iter()
        .position(|a| a.as_str() == "--")
        .map(|d| d + 1);
    guarded(inv, start, "systemd-nspawn", "runs a container")
}

/// `flock [opts] FILE CMD…` takes a lock (creating FILE) and runs CMD.
pub(super) fn flock(inv: &Invocation<'_, '_>) -> Verdict {
    const FLOCK: Options = Options {
        short_flags: "sxunoFhV",
        short_values: "wEc",
        long_flags: &[
            "--shared",
            "--exclusive",
            "--unlock",
            "--nonblock",
            "--close",
            "--no-fork",
            "--verbose",
            "--help",
            "--version",
        ],
        long_values: &["--timeout", "--conflict-exit-code", "--command"],
        ..Options::POSIX
    };
    if let Some(script) = inv.option_value(Some('c'), Some("--command")) {
        return Verdict::Guarded(
            Wrap {
                inner: Inner::Script(script.to_string()),
                bound: Bound::None,
                interactive: None,
                via: "flock -c",
            },
            "takes a lock".into(),
        );
    }
    match first_operand(inv, &FLOCK) {
        Err(verdict) => verdict,
        Ok(file) => guarded(
            inv,
            file.map(|f| f + 1),
            "flock",
            "takes a lock on a file it may create",
        ),
    }
}

/// `setpriv [opts] CMD…` runs CMD with other credentials.
pub(super) fn setpriv(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('d') || inv.has_long("--dump") {
        return Verdict::Read;
    }
    let start = inv.args.iter().position(|a| !a.as_str().starts_with('-'));
    guarded(
        inv,
        start,
        "setpriv",
        "runs a command with other privileges",
    )
}

/// Sandboxes and fake roots: `firejail`, `bwrap`, `proot`, `fakeroot`.
pub(super) fn sandbox(inv: &Invocation<'_, '_>) -> Verdict {
    // Their options take values in ways we do not list; `--` marks the
    // command when present, else the first word that is not an option.
    let start = inv
        .args
        .iter()
        .position(|a| a.as_str() == "--")
        .map(|d| d + 1)
        .or_else(|| inv.args.iter().position(|a| !a.as_str().starts_with('-')));
    guarded(
        inv,
        start,
        "sandbox",
        "runs a command in a sandbox it sets up",
    )
}

/// `unbuffer CMD…` (expect) runs CMD on a pseudo-terminal.
pub(super) fn unbuffer(inv: &Invocation<'_, '_>) -> Verdict {
    const UNBUFFER: Options = Options {
        short_flags: "p",
        ..Options::POSIX
    };
    through(inv, &UNBUFFER, "unbuffer", Bound::None)
}

/// GNU `parallel CMD ::: ARGS`: runs CMD once per argument.
pub(super) fn parallel(inv: &Invocation<'_, '_>) -> Verdict {
    let start = inv.args.iter().position(|a| !a.as_str().starts_with('-'));
    guarded(
        inv,
        start,
        "parallel",
        "runs commands in parallel from its input",
    )
}

/// `gosu USER CMD…`, `su-exec USER CMD…`, `runcon CTX CMD…`, `chpst -u U
/// CMD…`, `cgexec -g C CMD…`: run CMD as another user or context.
pub(super) fn switch_user(inv: &Invocation<'_, '_>) -> Verdict {
    let start = match inv.name {
        "gosu" | "su-exec" | "runcon" => inv
            .args
            .iter()
            .position(|a| !a.as_str().starts_with('-'))
            .map(|user| user + 1),
        _ => {
            // Options with a value each, then the command.
            let mut i = 0;
            while inv.args.get(i).is_some_and(|a| a.as_str().starts_with('-')) {
                i += if inv.args[i].as_str().len() == 2 {
                    2
                } else {
                    1
                };
            }
            Some(i)
        }
    };
    guarded(
        inv,
        start,
        "switch user",
        "runs a command with other privileges",
    )
}

/// `script -c CMD [FILE]` runs CMD on a terminal and records it to FILE.
pub(super) fn script(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.option_value(Some('c'), Some("--command")) {
        Some(cmd) => Verdict::Guarded(
            Wrap {
                inner: Inner::Script(cmd.to_string()),
                bound: Bound::None,
                interactive: None,
                via: "script -c",
            },
            "records the session to a file".into(),
        ),
        None => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "records an interactive shell",
        ),
    }
}

/// `nsenter [opts] [CMD…]`: CMD in other namespaces (no command: a shell).
pub(super) fn nsenter(inv: &Invocation<'_, '_>) -> Verdict {
    const NSENTER: Options = Options {
        short_flags: "amuinpUCTFrwZeh",
        short_values: "tSGWRN",
        long_flags: &[
            "--all",
            "--no-fork",
            "--preserve-credentials",
            "--follow-context",
            "--help",
            "--version",
        ],
        long_optional: &[
            "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time",
            "--root", "--wd",
        ],
        long_values: &[
            "--target",
            "--setuid",
            "--setgid",
            "--wdns",
            "--env",
            "--keep-caps",
            "--join-cgroup",
        ],
        ..Options::POSIX
    };
    match first_operand(inv, &NSENTER) {
        Err(verdict) => verdict,
        Ok(Some(start)) => Verdict::wrap_argv("nsenter", start),
        Ok(None) => Verdict::Wrap(Wrap {
            inner: Inner::Shell,
            bound: Bound::None,
            interactive: None,
            via: "nsenter",
        }),
    }
}
