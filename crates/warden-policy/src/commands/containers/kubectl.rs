//! kubectl and its spellings (`oc`, `kubecolor`, `microk8s.kubectl`; `k3s
//! kubectl …` arrives here through the `k3s` wrapper).

use super::{
    Flags, action, any_may_be_option, follow_rewrite, given, switch, tty_wrap, unknown_option,
    value_of,
};
use crate::commands::common::bad;
use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Tok, walk_sets};
use crate::verdict::{InteractiveCategory, Risk, Verdict};
use flags::{GLOBALS, LOGS, MUTATE, PRE, READ};

/// Read-only subcommands whose options come from [`READ`].
const READ_SUBCOMMANDS: &[&str] = &[
    "describe",
    "explain",
    "api-resources",
    "api-versions",
    "version",
    "completion",
    "options",
    "top",
    "diff",
    "convert",
];

use Risk::{HighWrite, LowWrite, MediumWrite};

/// Mutating subcommands with `--dry-run`.
const WRITES: &[(&[&str], Risk, &str)] = &[
    (&["create"], LowWrite, "creates resources"),
    (
        &["replace", "patch", "set", "label", "annotate", "taint"],
        MediumWrite,
        "changes resources",
    ),
    (
        &["scale", "autoscale"],
        MediumWrite,
        "changes the number of replicas",
    ),
    (&["expose"], MediumWrite, "creates a service"),
    (&["run"], MediumWrite, "starts a pod"),
    (
        &["cordon", "uncordon"],
        MediumWrite,
        "changes node scheduling",
    ),
    (&["delete"], HighWrite, "deletes resources"),
    (&["drain"], HighWrite, "evicts the pods of a node"),
];

pub(super) fn kubectl(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(verdict) = super::kubeconfig(inv.args, &[&GLOBALS, &PRE]) {
        return verdict;
    }
    let (si, sub) = match super::subcommand(inv, &[&GLOBALS, &PRE]) {
        Ok(Some(found)) => found,
        Ok(None) if given(inv.args, &[&GLOBALS], "h", &["--help"]) => return Verdict::Read,
        Ok(None) => return Verdict::unknown("no subcommand"),
        Err(verdict) => return verdict,
    };
    let rest = inv.args.get(si + 1..).unwrap_or(&[]);
    let known = READ_SUBCOMMANDS.contains(&sub)
        || WRITES.iter().any(|(subs, ..)| subs.contains(&sub))
        || SPECIAL.contains(&sub);
    if known && inv.from(si + 1).has_long("--help") {
        return Verdict::Read;
    }
    if READ_SUBCOMMANDS.contains(&sub) {
        return read(rest);
    }
    match sub {
        "help" => Verdict::Read,
        "get" | "events" => watchable(rest),
        "logs" => logs(inv, si, rest),
        "cluster-info" => cluster_info(inv, si),
        "config" => config(inv, si),
        "auth" => match action(inv, si, &[&GLOBALS, &READ]) {
            Ok((ai, "can-i" | "whoami")) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
            Ok((_, "reconcile")) => {
                write_unless_dry_run(inv, "auth reconcile", MediumWrite, "changes RBAC rules")
            }
            Ok((_, other)) => Verdict::unknown(format!("unknown subcommand `auth {other}`")),
            Err(verdict) => verdict,
        },
        "rollout" => match action(inv, si, &[&GLOBALS, &READ]) {
            // `status` waits for the rollout to finish: bounded by the rollout.
            // Its `--watch` (on by default) ends with the rollout.
            Ok((ai, "status" | "history")) => {
                let rest = inv.args.get(ai + 1..).unwrap_or(&[]);
                let sets = &[&GLOBALS, &READ];
                if let Some(verdict) = unknown_option(rest, sets) {
                    return verdict;
                }
                // An explicit `--watch` without a `--timeout` can wait for a
                // stuck rollout forever.
                if switch(rest, sets, Some('w'), "--watch").on
                    && rest
                        .iter()
                        .any(|a| a.as_str().starts_with("-w") || a.as_str().starts_with("--watch"))
                    && !given(rest, sets, "", &["--timeout"])
                {
                    return Verdict::interactive(
                        InteractiveCategory::UnboundedStream,
                        "`--watch` waits for the rollout without a timeout",
                    );
                }
                Verdict::Read
            }
            Ok((_, a @ ("restart" | "undo" | "pause" | "resume"))) => {
                let what = if a == "undo" {
                    "rolls back a workload"
                } else {
                    "changes a rollout"
                };
                write_unless_dry_run(inv, &format!("rollout {a}"), MediumWrite, what)
            }
            Ok((_, other)) => Verdict::unknown(format!("unknown subcommand `rollout {other}`")),
            Err(verdict) => verdict,
        },
        "kustomize" => kustomize(rest),
        "plugin" => match action(inv, si, &[&GLOBALS, &READ]) {
            Ok((ai, "list")) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
            Ok((_, other)) => Verdict::unknown(format!("unknown subcommand `plugin {other}`")),
            Err(verdict) => verdict,
        },
        "certificate" => Verdict::write(
            MediumWrite,
            "`certificate` approves or denies a signing request",
        ),
        "wait" => wait(rest),
        "proxy" | "port-forward" => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            format!("`{sub}` serves until interrupted"),
        ),
        "attach" => {
            if given(rest, &[&GLOBALS, &READ], "it", &["--stdin", "--tty"]) {
                Verdict::interactive_writer(
                    InteractiveCategory::TtyFlag,
                    "attaches the terminal to a container",
                )
            } else {
                Verdict::interactive(
                    InteractiveCategory::UnboundedStream,
                    "streams a container's output until interrupted",
                )
            }
        }
        "exec" => exec(inv, si),
        "edit" => Verdict::interactive_writer(
            InteractiveCategory::Pager,
            "`edit` opens an editor to change resources",
        ),
        "apply" => apply(inv, si),
        "cp" => Verdict::write(MediumWrite, "`cp` copies files into or out of a container"),
        "debug" => Verdict::write(MediumWrite, "`debug` starts a debugging container"),
        "alpha" => Verdict::unknown("alpha subcommands are not known"),
        "status" | "projects" | "whoami" if inv.name == "oc" => read(rest),
        "project" if inv.name == "oc" => {
            if walk_sets(&[&GLOBALS, &READ], rest).any(|w| matches!(w, Tok::Operand { .. })) {
                Verdict::write(MediumWrite, "`project NAME` switches the current project")
            } else {
                read(rest)
            }
        }
        "login" | "logout" if inv.name == "oc" => {
            Verdict::write(MediumWrite, "changes stored credentials")
        }
        "run" if tty_asked(rest) => Verdict::interactive_writer(
            InteractiveCategory::TtyFlag,
            "`run` starts a pod attached to a terminal",
        ),
        _ => match WRITES.iter().find(|(subs, ..)| subs.contains(&sub)) {
            Some((_, risk, what)) => write_unless_dry_run(inv, sub, *risk, what),
            None => Verdict::unknown(format!("unknown subcommand `{sub}`")),
        },
    }
}

/// Subcommands handled one by one below (for `--help`).
const SPECIAL: &[&str] = &[
    "get",
    "events",
    "logs",
    "cluster-info",
    "config",
    "auth",
    "rollout",
    "kustomize",
    "plugin",
    "certificate",
    "wait",
    "proxy",
    "port-forward",
    "attach",
    "exec",
    "edit",
    "apply",
    "cp",
    "debug",
];

/// A read-only subcommand; a `--watch` streams.
fn read(rest: &[Arg<'_>]) -> Verdict {
    watchable(rest)
}

/// `get` and `events`: `-w`/`--watch`/`--watch-only` stream changes.
fn watchable(rest: &[Arg<'_>]) -> Verdict {
    if let Some(verdict) = unknown_option(rest, &[&GLOBALS, &READ]) {
        return verdict;
    }
    let sets = &[&GLOBALS, &READ];
    let raw = value_of(rest, sets, None, "--raw").flatten();
    // A GET of these subresources reaches into a container or an
    // application: `exec`, `attach`, `portforward`, and `proxy` to a pod or
    // service (a node's proxy is the kubelet's read-only GET endpoints).
    if let Some(path) = raw.filter(|p| {
        let segments: Vec<&str> = p.split(['/', '?']).collect();
        let proxies_app = segments.contains(&"proxy")
            && segments.iter().any(|s| matches!(*s, "pods" | "services"));
        proxies_app
            || segments
                .iter()
                .any(|s| matches!(*s, "exec" | "attach" | "portforward"))
    }) {
        return Verdict::unknown(format!(
            "`--raw {path}` reaches into a container or service"
        ));
    }
    let raw_streams = raw.is_some_and(crate::commands::net::urls::streams);
    if raw_streams
        || switch(rest, sets, Some('w'), "--watch").on
        || switch(rest, sets, None, "--watch-only").on
    {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`--watch` streams changes until interrupted",
        );
    }
    Verdict::Read
}

/// `logs -f` streams; suggest `--tail=200 --since=10m` instead.
fn logs(inv: &Invocation<'_, '_>, si: usize, rest: &[Arg<'_>]) -> Verdict {
    let sets = &[&GLOBALS, &LOGS];
    if let Some(verdict) = unknown_option(rest, sets) {
        return verdict;
    }
    let follow = switch(rest, sets, Some('f'), "--follow");
    if !follow.on {
        return Verdict::Read;
    }
    let reason = "`--follow` streams the log until interrupted";
    let tail = !given(rest, sets, "", &["--tail"]);
    let since = !given(rest, sets, "", &["--since", "--since-time"]);
    let insert: &[&str] = match (tail, since) {
        (true, true) => &["--tail=200", "--since=10m"],
        (true, false) => &["--tail=200"],
        (false, true) => &["--since=10m"],
        (false, false) => &[],
    };
    follow_rewrite(inv, si, sets, insert, reason)
}

/// `cluster-info` reads; `cluster-info dump --output-directory` writes files.
fn cluster_info(inv: &Invocation<'_, '_>, si: usize) -> Verdict {
    let rest = inv.args.get(si + 1..).unwrap_or(&[]);
    match action(inv, si, &[&GLOBALS, &READ]) {
        Err(_) => read(rest),
        Ok((_, "dump")) => {
            if given(rest, &[&GLOBALS, &READ], "", &["--output-directory"]) {
                Verdict::write(LowWrite, "`--output-directory` writes files")
            } else if any_may_be_option(rest) {
                Verdict::unknown("an argument from an expansion could name an output directory")
            } else {
                read(rest)
            }
        }
        Ok((_, other)) => Verdict::unknown(format!("unknown subcommand `cluster-info {other}`")),
    }
}

const CONFIG_READS: &[&str] = &[
    "view",
    "get-contexts",
    "get-clusters",
    "get-users",
    "current-context",
];
const CONFIG_WRITES: &[&str] = &[
    "set",
    "set-cluster",
    "set-context",
    "set-credentials",
    "unset",
    "use-context",
    "use",
    "delete-cluster",
    "delete-context",
    "delete-user",
    "rename-context",
];

fn config(inv: &Invocation<'_, '_>, si: usize) -> Verdict {
    match action(inv, si, &[&GLOBALS, &READ]) {
        Ok((ai, a)) if CONFIG_READS.contains(&a) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
        Ok((_, a)) if CONFIG_WRITES.contains(&a) => Verdict::write(
            MediumWrite,
            format!("`config {a}` changes the kubeconfig file"),
        ),
        Ok((_, other)) => Verdict::unknown(format!("unknown subcommand `config {other}`")),
        Err(verdict) => verdict,
    }
}

/// `kustomize` renders to stdout; `-o` writes, plugins and helm run programs.
fn kustomize(rest: &[Arg<'_>]) -> Verdict {
    const FLAGS: Flags = Flags {
        short_values: "o",
        short_flags: "",
        long_values: &[
            "--output",
            "--load-restrictor",
            "--load_restrictor",
            "--reorder",
        ],
        long_flags: &["--enable-managedby-label", "--as-current-user", "--help"],
        ..Options::GO
    };
    if given(rest, &[&GLOBALS, &FLAGS], "o", &["--output"]) {
        return Verdict::write(LowWrite, "`--output` writes the rendered files");
    }
    if any_may_be_option(rest) {
        return Verdict::unknown(
            "an argument from an expansion could enable plugins or an output file",
        );
    }
    unknown_option(rest, &[&GLOBALS, &FLAGS]).unwrap_or(Verdict::Read)
}

/// `wait` blocks until its `--timeout` (we do not rely on the default).
fn wait(rest: &[Arg<'_>]) -> Verdict {
    let sets = &[&GLOBALS, &READ];
    if let Some(verdict) = unknown_option(rest, sets) {
        return verdict;
    }
    match value_of(rest, sets, None, "--timeout") {
        Some(Some(value)) if !value.starts_with('-') => Verdict::Read,
        _ => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`wait` without `--timeout` can block for long",
        ),
    }
}

/// Asks for a terminal or stdin: `-t`, `-i`, `--tty`, `--stdin`, `--attach`.
fn tty_asked(rest: &[Arg<'_>]) -> bool {
    walk_sets(&[&GLOBALS, &PRE, &MUTATE], rest).any(|w| match w {
        Tok::Short { flag, .. } => flag == 't',
        Tok::Long { name, value, .. } => name == "--tty" && super::truthy(value),
        Tok::Operand { .. } | Tok::Unknown { .. } | Tok::Dynamic { .. } => false,
    })
}

/// Options that make a dry run do something after all.
const DRY_RUN_SPOILERS: &[&str] = &[
    "--raw",
    "--edit",
    "--stdin",
    "--tty",
    "--attach",
    "--rm",
    "--interactive",
    "--force",
];

/// A mutating subcommand: a client or server dry run only prints.
fn write_unless_dry_run(inv: &Invocation<'_, '_>, sub: &str, risk: Risk, what: &str) -> Verdict {
    let sets: &[&Flags] = &[&GLOBALS, &PRE, &MUTATE];
    if super::dry_run(inv.args, sets) {
        let spoiled = walk_sets(sets, inv.args).any(|w| match w {
            Tok::Short { flag, .. } => flag == 'i' || flag == 't',
            Tok::Long { name, .. } => DRY_RUN_SPOILERS.contains(&name),
            // Unknown options spoil the dry run too: nobody knows what they do.
            Tok::Unknown { .. } | Tok::Dynamic { .. } => true,
            Tok::Operand { .. } => false,
        });
        if !spoiled {
            return Verdict::Read;
        }
    }
    let risk = if sub == "apply" && inv.has_long("--prune") {
        HighWrite
    } else {
        risk
    };
    Verdict::write(risk, format!("`{sub}` {what}"))
}

fn apply(inv: &Invocation<'_, '_>, si: usize) -> Verdict {
    match action(inv, si, &[&GLOBALS, &READ]) {
        Ok((ai, "view-last-applied")) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
        Ok((_, "edit-last-applied")) => Verdict::interactive_writer(
            InteractiveCategory::Pager,
            "`apply edit-last-applied` opens an editor",
        ),
        _ => write_unless_dry_run(inv, "apply", MediumWrite, "changes resources"),
    }
}

/// `kubectl exec [opts] POD -- CMD…`: look through to `CMD…`.
fn exec(inv: &Invocation<'_, '_>, si: usize) -> Verdict {
    const EXEC: Flags = Flags {
        short_values: "cfp",
        short_flags: "itq",
        long_values: &[
            "--container",
            "--filename",
            "--pod-running-timeout",
            "--pod",
        ],
        long_flags: &["--stdin", "--tty", "--quiet"],
        ..Options::GO
    };
    let start = si + 1;
    let Some(dashes) = inv.args.iter().skip(start).position(|a| a.text == "--") else {
        return Verdict::unknown("no `--` before the command to run");
    };
    let dashes = start + dashes;
    let opts = inv.args.get(start..dashes).unwrap_or(&[]);
    let sets = &[&GLOBALS, &EXEC];
    let mut operands = 0;
    let mut tty = false;
    for tok in walk_sets(sets, opts) {
        match tok {
            Tok::Operand { .. } => {
                operands += 1;
                if operands > 1 {
                    return Verdict::unknown("unexpected arguments before `--`");
                }
            }
            Tok::Dynamic { .. } => {
                return Verdict::unknown("an option comes from an expansion");
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Short { flag: 't', .. } => tty = true,
            Tok::Long {
                name: "--tty",
                value,
                ..
            } => tty = super::truthy(value),
            _ => {}
        }
    }
    if inv.args.get(dashes + 1).is_none() {
        return Verdict::unknown("no command to run");
    }
    tty_wrap("kubectl exec", dashes + 1, tty)
}

mod flags;
#[cfg(test)]
mod tests;
