//! Containers and orchestration: docker (with compose, podman and nerdctl),
//! kubectl (oc, k3s, microk8s), helm, argocd, crictl, ctr and the cluster
//! tools around them.
//!
//! Most of these are cobra/pflag programs: options may come before the
//! subcommand, short options cluster (`-it`), and values come glued (`-n5`,
//! `--tail=5`) or as the next word. The one walker ([`crate::options`], Go style)
//! reads arguments that way, so each
//! rule can find its subcommands and check every option against an allowlist.

mod argocd;
mod compose;
mod crictl;
mod docker;
mod helm;
mod kubectl;
mod tools;

use super::Rule;
use crate::commands::common::bad;
use crate::env_vars;
use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Tok, walk_sets};
use crate::verdict::{
    Bound, Inner, Intent, InteractiveCategory, InteractiveVerdict, Verdict, Wrap,
};

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("docker", docker::docker),
    ("podman", docker::podman),
    ("nerdctl", docker::nerdctl),
    ("docker-compose", compose::docker_compose),
    ("podman-compose", compose::docker_compose),
    ("kubectl", kubectl::kubectl),
    ("oc", kubectl::kubectl),
    ("kubecolor", kubectl::kubectl),
    ("microk8s.kubectl", kubectl::kubectl),
    ("helm", helm::helm),
    ("argocd", argocd::argocd),
    ("crictl", crictl::crictl),
    ("ctr", crictl::ctr),
    ("k3s", tools::k3s),
    ("microk8s", tools::microk8s),
    ("k9s", tools::k9s),
    ("kubectx", tools::kubectx),
    ("kubens", tools::kubectx),
    ("stern", tools::stern),
    ("kind", tools::kind),
    ("minikube", tools::minikube),
    ("k3d", tools::k3d),
    ("skopeo", tools::skopeo),
    ("lazydocker", tools::lazydocker),
    ("dive", tools::dive),
];

/// The options a program (or a group of its subcommands) accepts: pflag
/// style, so `Options { .., ..Options::GO }`.
pub(super) type Flags = Options;

/// Go's `strconv.ParseBool` for a switch's value; a value it cannot parse
/// makes the program fail, so anything but a false spelling counts as true.
pub(super) fn truthy(value: Option<&str>) -> bool {
    !matches!(value, Some("0" | "f" | "F" | "false" | "FALSE" | "False"))
}

/// The first option that none of `sets` knows (or that could come from an
/// expansion), as an unknown verdict.
pub(super) fn unknown_option(args: &[Arg<'_>], sets: &[&Flags]) -> Option<Verdict> {
    walk_sets(sets, args).find_map(|t| match t {
        Tok::Unknown { text, .. } => Some(bad(text)),
        Tok::Dynamic { index } => Some(bad(args.get(index).map_or("$…", |a| a.raw))),
        _ => None,
    })
}

/// Is any of these options given, in any spelling?
pub(super) fn given(args: &[Arg<'_>], sets: &[&Flags], shorts: &str, longs: &[&str]) -> bool {
    walk_sets(sets, args).any(|t| match t {
        Tok::Short { flag, .. } => shorts.contains(flag),
        Tok::Long { name, .. } => longs.contains(&name),
        Tok::Operand { .. } | Tok::Unknown { .. } | Tok::Dynamic { .. } => false,
    })
}

/// The value of the last occurrence of an option.
pub(super) fn value_of<'i>(
    args: &'i [Arg<'_>],
    sets: &[&Flags],
    short: Option<char>,
    long: &str,
) -> Option<Option<&'i str>> {
    walk_sets(sets, args)
        .filter_map(|t| match t {
            Tok::Short { flag, value, .. } if Some(flag) == short => Some(value),
            Tok::Long { name, value, .. } if name == long => Some(value),
            _ => None,
        })
        .last()
}

/// A boolean switch after all its occurrences (`-f`, `--follow`, `--follow=false`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Switch {
    pub given: bool,
    pub on: bool,
    /// The short flag shares a cluster with others (`-ft`): no rewrite then.
    pub clustered: bool,
}

pub(super) fn switch(args: &[Arg<'_>], sets: &[&Flags], short: Option<char>, long: &str) -> Switch {
    let mut state = Switch::default();
    for tok in walk_sets(sets, args) {
        match tok {
            Tok::Short {
                index, flag, value, ..
            } if Some(flag) == short => {
                state.given = true;
                state.on = truthy(value);
                state.clustered |= args.get(index).is_some_and(|a| a.text.len() != 2);
            }
            Tok::Long { name, value, .. } if name == long => {
                state.given = true;
                state.on = truthy(value);
            }
            _ => {}
        }
    }
    state
}

/// A `--kubeconfig` that is not a plain file (standard input, a device,
/// another process's file): its `exec` plugins would run whatever it says.
/// A server named on the command line (`--server`, `-s`,
/// `--kube-apiserver`) would be sent the kubeconfig's credentials: a read
/// cannot carry them away.
pub(super) fn kubeconfig(args: &[Arg<'_>], sets: &[&Flags]) -> Option<Verdict> {
    // kubectl's global `-s` is `--server`; helm's `-s` is something else.
    let short_server = sets.first().is_some_and(|s| s.short_values.contains('s'));
    let names_server = args.iter().any(|a| {
        let t = a.as_str();
        let long = |name: &str| {
            t.strip_prefix(name)
                .is_some_and(|r| r.is_empty() || r.starts_with('='))
        };
        long("--server")
            || long("--kube-apiserver")
            || (short_server
                && (t == "-s"
                    || (t.starts_with("-s") && !t.starts_with("--") && t.contains([':', '.']))))
    });
    if names_server {
        return Some(Verdict::unknown(
            "a server named on the command line is sent the kubeconfig's credentials",
        ));
    }
    walk_sets(sets, args).find_map(|t| match t {
        Tok::Long {
            name: "--kubeconfig",
            value,
            index,
        } => {
            let literal = args.get(index).is_some_and(Arg::is_literal)
                && args.get(index + 1).is_none_or(Arg::is_literal);
            (!crate::env_vars::kubeconfig_ok(value.unwrap_or_default(), literal)).then(|| {
                Verdict::unknown(
                    "`--kubeconfig` names a file outside the administrators' config directories",
                )
            })
        }
        _ => None,
    })
}

pub(super) fn any_may_be_option(args: &[Arg<'_>]) -> bool {
    args.iter().any(Arg::may_be_option)
}

/// Is `--dry-run` in effect? The arguments are read with `sets`, so a
/// `--dry-run` that is really the value of the option before it (`-f
/// --dry-run`) does not count; pflag keeps the last occurrence; a bare
/// `--dry-run` means client-side, and one followed by `none`/`false` is
/// taken as a real run, the careful reading.
pub(super) fn dry_run(args: &[Arg<'_>], sets: &[&Flags]) -> bool {
    let mut on = false;
    for tok in walk_sets(sets, args) {
        if let Tok::Long {
            index,
            name: "--dry-run",
            value,
        } = tok
        {
            on = match value {
                Some(value) => matches!(value, "client" | "server" | "true" | "unchanged"),
                None => !matches!(args.get(index + 1).map(Arg::as_str), Some("none" | "false")),
            };
        }
    }
    on
}

/// The arguments rebuilt: the words up to and including `after` (the
/// subcommand) as written, then the rest read with `sets`, without the
/// tokens `drop` matches and with `insert` first (see `follow::rewrite_args`).
pub(super) fn rebuild(
    inv: &Invocation<'_, '_>,
    after: usize,
    sets: &[&Flags],
    insert: &[&str],
    drop: fn(&Tok<'_>) -> bool,
) -> Option<String> {
    let rest = inv.from(after + 1);
    let tail = crate::commands::follow::rewrite_args(&rest, sets, drop, insert, None)?;
    let mut words: Vec<&str> = inv.args.get(..=after)?.iter().map(|a| a.raw).collect();
    if !tail.is_empty() {
        words.push(&tail);
    }
    Some(words.join(" "))
}

/// `-f`, `--follow`, `--follow=…` in any spelling.
pub(super) fn is_follow(tok: &Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::Short { flag: 'f', .. }
            | Tok::Long {
                name: "--follow",
                ..
            }
    )
}

/// An unbounded command with a bounded rewrite when one can be made.
pub(super) fn follow_rewrite(
    inv: &Invocation<'_, '_>,
    after: usize,
    sets: &[&Flags],
    insert: &[&str],
    reason: &'static str,
) -> Verdict {
    match rebuild(inv, after, sets, insert, is_follow) {
        Some(rewrite) => Verdict::unbounded_with_rewrite(rewrite, reason),
        None => Verdict::interactive(InteractiveCategory::UnboundedStream, reason),
    }
}

/// `stats` without `--no-stream`: the rewrite adds it.
pub(super) fn stats_rewrite(inv: &Invocation<'_, '_>, after: usize, sets: &[&Flags]) -> Verdict {
    let reason = "streams statistics until interrupted; `--no-stream` prints once";
    let drop = |t: &Tok<'_>| {
        matches!(
            t,
            Tok::Long {
                name: "--no-stream",
                ..
            }
        )
    };
    match rebuild(inv, after, sets, &["--no-stream"], drop) {
        Some(rewrite) => Verdict::unbounded_with_rewrite(rewrite, reason),
        None => Verdict::interactive(InteractiveCategory::UnboundedStream, reason),
    }
}

/// Look through to `args[start..]`, asking for a terminal when `tty`.
pub(super) fn tty_wrap(via: &'static str, start: usize, tty: bool) -> Verdict {
    if !tty {
        return Verdict::wrap_argv(via, start);
    }
    Verdict::Wrap(Wrap {
        inner: Inner::Argv { start },
        bound: Bound::None,
        interactive: Some(InteractiveVerdict {
            ends_with_reader: false,
            category: InteractiveCategory::TtyFlag,
            intent: Intent::ReadOnlyCertain,
            rewrite: None,
            reason: "`-t` asks for a terminal".into(),
        }),
        via,
    })
}

/// The first operand after `after` (a sub-subcommand), which must be literal.
// Cold path: the error is the rule's final verdict.
#[allow(clippy::result_large_err)]
pub(super) fn action<'i>(
    inv: &Invocation<'i, '_>,
    after: usize,
    sets: &[&Flags],
) -> Result<(usize, &'i str), Verdict> {
    let rest = inv.args.get(after + 1..).unwrap_or(&[]);
    match walk_sets(sets, rest).find(|t| matches!(t, Tok::Operand { .. })) {
        Some(Tok::Operand { index, text }) => {
            if rest.get(index).is_some_and(Arg::is_variable) {
                Err(Verdict::unknown("the subcommand comes from an expansion"))
            } else {
                Ok((after + 1 + index, text))
            }
        }
        _ => Err(Verdict::unknown("no subcommand")),
    }
}

/// The subcommand after the program's global options: `Ok(None)` when there
/// is none; an unknown verdict for an option no set knows or for a word
/// that comes from an expansion.
// Cold path: the error is the rule's final verdict.
#[allow(clippy::result_large_err)]
pub(super) fn subcommand<'i>(
    inv: &Invocation<'i, '_>,
    sets: &[&Flags],
) -> Result<Option<(usize, &'i str)>, Verdict> {
    for tok in walk_sets(sets, inv.args) {
        match tok {
            Tok::Operand { index, text } => {
                if inv.args.get(index).is_some_and(Arg::is_variable) {
                    return Err(Verdict::unknown("the subcommand comes from an expansion"));
                }
                return Ok(Some((index, text)));
            }
            Tok::Unknown { text, .. } => return Err(bad(text)),
            Tok::Dynamic { index } => {
                return Err(bad(inv.args.get(index).map_or("$…", |a| a.raw)));
            }
            Tok::Short { .. } | Tok::Long { .. } => {}
        }
    }
    Ok(None)
}

/// How a wrapper like `docker exec [opts] CONTAINER CMD…` spells its options.
pub(super) struct ExecSpec {
    pub via: &'static str,
    /// Every option, with `GoStopAtOperand` style: options end at the container.
    pub options: Options,
    /// Sets a variable for the inner command (`-e`, `--env`).
    pub env: (char, &'static str),
    /// Asks for a terminal.
    pub tty: (char, &'static str),
    /// Refuses a terminal (compose's `-T`).
    pub no_tty: Option<(char, &'static [&'static str])>,
    /// Whether a terminal is allocated without being asked for.
    pub tty_default: bool,
    /// Leaves the command running in the background.
    pub detach: Option<(char, &'static str)>,
}

/// Is `NAME=value` (or `NAME`) safe to set for the inner command?
fn env_ok(text: &str) -> bool {
    match text.split_once('=') {
        Some((name, value)) => env_vars::assignment_refusal(name, value, true).is_none(),
        // The host's own value, whatever it is.
        None => env_vars::assignment_refusal(text, "", false).is_none(),
    }
}

fn detached() -> Verdict {
    Verdict::unknown("`--detach` leaves the command running in the background")
}

/// `WRAPPER [opts] TARGET CMD…` where options stop at the target: look
/// through to `CMD…`. `after` is the index of the `exec` word.
pub(super) fn exec_wrapper(inv: &Invocation<'_, '_>, after: usize, spec: &ExecSpec) -> Verdict {
    let rest = inv.args.get(after + 1..).unwrap_or(&[]);
    let mut tty = spec.tty_default;
    let mut target = None;
    for tok in spec.options.walk(rest) {
        let (flag, value) = match tok {
            Tok::Operand { index, .. } => {
                target = Some(index);
                break;
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(rest.get(index).map_or("$…", |a| a.raw)),
            Tok::Short { flag, value, .. } => (Some(flag), value),
            Tok::Long { name, value, .. } => {
                let short = if name.strip_prefix("--") == Some(spec.env.1) {
                    Some(spec.env.0)
                } else if name.strip_prefix("--") == Some(spec.tty.1) {
                    Some(spec.tty.0)
                } else if spec.no_tty.is_some_and(|(_, longs)| {
                    longs.iter().any(|l| name.strip_prefix("--") == Some(*l))
                }) {
                    spec.no_tty.map(|(c, _)| c)
                } else if spec
                    .detach
                    .is_some_and(|(_, long)| name.strip_prefix("--") == Some(long))
                {
                    spec.detach.map(|(c, _)| c)
                } else {
                    None
                };
                (short, value)
            }
        };
        match flag {
            Some(c) if c == spec.env.0 && !value.is_some_and(env_ok) => {
                return Verdict::unknown("sets a variable that changes which code runs");
            }
            Some(c) if c == spec.tty.0 => tty = truthy(value),
            Some(c) if spec.no_tty.is_some_and(|(n, _)| n == c) => tty = tty && !truthy(value),
            Some(c) if spec.detach.is_some_and(|(d, _)| d == c) && truthy(value) => {
                return detached();
            }
            _ => {}
        }
    }
    let Some(target) = target else {
        return Verdict::unknown("no container");
    };
    if rest.get(target).is_some_and(Arg::is_variable) {
        return Verdict::unknown("the container comes from an expansion");
    }
    if rest.get(target + 1).is_none() {
        return Verdict::unknown("no command to run");
    }
    tty_wrap(spec.via, after + 1 + target + 1, tty)
}

#[cfg(test)]
mod tests;
