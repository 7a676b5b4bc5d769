//! crictl (CRI runtimes) and ctr (containerd). Both use urfave/cli: global
//! options come before the subcommand, command options before operands.

use super::{ExecSpec, Flags, exec_wrapper, follow_rewrite, given, switch, unknown_option};
use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Style, Tok, walk_sets};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

const GLOBALS: Flags = Flags {
    short_values: "ritc",
    short_flags: "Dhv",
    long_values: &[
        "--runtime-endpoint",
        "--image-endpoint",
        "--timeout",
        "--config",
        "--tracing-endpoint",
        "--tracing-sampling-rate-per-million",
    ],
    long_flags: &["--debug", "--enable-tracing", "--help", "--version"],
    ..Options::GO
};

/// Options of the listing and inspecting subcommands.
const READ: Flags = Flags {
    short_values: "nopsf",
    short_flags: "aqvlrwh",
    long_values: &[
        "--id",
        "--image",
        "--label",
        "--last",
        "--name",
        "--namespace",
        "--output",
        "--pod",
        "--state",
        "--filter",
        "--template",
        "--seconds",
    ],
    long_flags: &[
        "--all",
        "--digests",
        "--latest",
        "--no-trunc",
        "--quiet",
        "--verbose",
        "--resolve-image-path",
        "--pinned",
        "--watch",
        "--list",
        "--help",
    ],
    ..Options::GO
};

/// `logs` options; not `-r`/`--reopen`, which makes the runtime reopen log files.
const LOGS: Flags = Flags {
    short_values: "",
    short_flags: "fpt",
    long_values: &["--limit-bytes", "--since", "--tail"],
    long_flags: &["--follow", "--previous", "--timestamps", "--help"],
    ..Options::GO
};

const READS: &[&str] = &[
    "ps",
    "pods",
    "images",
    "image",
    "img",
    "inspect",
    "inspecti",
    "inspectp",
    "imagefsinfo",
    "info",
    "version",
    "completion",
];

use Risk::{HighWrite, LowWrite, MediumWrite};

const WRITES: &[(&[&str], Risk, &str)] = &[
    (&["pull"], LowWrite, "downloads an image"),
    (
        &["rm", "rmi", "rmp"],
        HighWrite,
        "removes containers, images or pods",
    ),
    (
        &["create", "run", "runp"],
        MediumWrite,
        "creates containers or pods",
    ),
    (
        &[
            "start",
            "stop",
            "stopp",
            "update",
            "update-runtime-config",
            "checkpoint",
        ],
        MediumWrite,
        "changes containers or pods",
    ),
];

const EXEC: ExecSpec = ExecSpec {
    via: "crictl exec",
    options: Options {
        short_flags: "ist",
        short_values: "",
        long_flags: &["--interactive", "--sync", "--ignore-errors", "--tty"],
        long_values: &["--timeout", "--transport"],
        style: Style::GoStopAtOperand,
        ..Options::GO
    },
    env: ('\0', ""),
    tty: ('t', "tty"),
    no_tty: None,
    tty_default: false,
    detach: None,
};

pub(super) fn crictl(inv: &Invocation<'_, '_>) -> Verdict {
    let (si, sub) = match super::subcommand(inv, &[&GLOBALS]) {
        Ok(Some(found)) => found,
        Ok(None) if given(inv.args, &[&GLOBALS], "hv", &["--help", "--version"]) => {
            return Verdict::Read;
        }
        Ok(None) => return Verdict::unknown("no subcommand"),
        Err(verdict) => return verdict,
    };
    let rest = inv.args.get(si + 1..).unwrap_or(&[]);
    if READS.contains(&sub) {
        return read(rest);
    }
    match sub {
        "help" => Verdict::Read,
        "stats" | "statsp" | "metricsp" => read(rest),
        "logs" => logs(inv, si, rest),
        "config" => {
            // Only `--get`/`--list` read; `--set` or `KEY VALUE` write.
            const CONFIG: Flags = Flags {
                short_values: "",
                short_flags: "h",
                long_values: &["--get", "--set"],
                long_flags: &["--list", "--help"],
                ..Options::GO
            };
            let sets = &[&CONFIG];
            let positional = walk_sets(sets, rest).any(|w| matches!(w, Tok::Operand { .. }));
            if positional || given(rest, sets, "", &["--set"]) {
                return Verdict::write(MediumWrite, "`config` changes the crictl configuration");
            }
            unknown_option(rest, sets).unwrap_or(Verdict::Read)
        }
        "events" => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`events` streams until interrupted",
        ),
        "exec" => exec_wrapper(inv, si, &EXEC),
        "attach" => Verdict::interactive_writer(
            InteractiveCategory::TtyFlag,
            "attaches the terminal to a container",
        ),
        "port-forward" => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`port-forward` serves until interrupted",
        ),
        _ => match WRITES.iter().find(|(subs, ..)| subs.contains(&sub)) {
            Some((_, risk, effect)) => Verdict::write(*risk, format!("`{sub}` {effect}")),
            None => Verdict::unknown(format!("unknown subcommand `{sub}`")),
        },
    }
}

/// A listing or inspecting subcommand; `-w`/`--watch` streams.
fn read(rest: &[Arg<'_>]) -> Verdict {
    if let Some(verdict) = unknown_option(rest, &[&READ]) {
        return verdict;
    }
    if switch(rest, &[&READ], Some('w'), "--watch").on {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`--watch` streams until interrupted",
        );
    }
    Verdict::Read
}

fn logs(inv: &Invocation<'_, '_>, si: usize, rest: &[Arg<'_>]) -> Verdict {
    if let Some(verdict) = unknown_option(rest, &[&LOGS]) {
        return verdict;
    }
    let follow = switch(rest, &[&LOGS], Some('f'), "--follow");
    if !follow.on {
        return Verdict::Read;
    }
    let reason = "`--follow` streams the log until interrupted";
    let insert: &[&str] = if given(rest, &[&LOGS], "", &["--tail"]) {
        &[]
    } else {
        &["--tail=200"]
    };
    follow_rewrite(inv, si, &[&LOGS], insert, reason)
}

const CTR_GLOBALS: Flags = Flags {
    short_values: "na",
    short_flags: "hv",
    long_values: &["--namespace", "--address", "--timeout", "--connect-timeout"],
    long_flags: &["--debug", "--help", "--version"],
    ..Options::GO
};

/// ctr object groups (with their aliases) and their read-only actions.
const CTR_READS: &[(&[&str], &[&str])] = &[
    (&["containers", "container", "c"], &["ls", "list", "info"]),
    (&["images", "image", "i"], &["ls", "list", "check"]),
    (&["tasks", "task", "t"], &["ls", "list", "ps", "metrics"]),
    (&["namespaces", "namespace", "ns"], &["ls", "list"]),
    (
        &["snapshots", "snapshot"],
        &["ls", "list", "info", "usage", "tree"],
    ),
    (&["content"], &["ls", "list"]),
    (&["leases"], &["ls", "list"]),
    (&["plugins", "plugin"], &["ls", "list"]),
];

/// ctr: the listing actions read; anything else is unknown.
pub(super) fn ctr(inv: &Invocation<'_, '_>) -> Verdict {
    const LIST: Flags = Flags {
        short_values: "",
        short_flags: "qh",
        long_values: &["--format"],
        long_flags: &["--quiet", "--help", "--detailed"],
        ..Options::GO
    };
    let (gi, group) = match super::subcommand(inv, &[&CTR_GLOBALS]) {
        Ok(Some(found)) => found,
        Ok(None) if given(inv.args, &[&CTR_GLOBALS], "hv", &["--help", "--version"]) => {
            return Verdict::Read;
        }
        Ok(None) => return Verdict::unknown("no subcommand"),
        Err(verdict) => return verdict,
    };
    match group {
        "version" | "help" => return Verdict::Read,
        "events" | "event" => {
            return Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "`events` streams until interrupted",
            );
        }
        _ => {}
    }
    let Some((_, actions)) = CTR_READS.iter().find(|(names, _)| names.contains(&group)) else {
        return Verdict::unknown(format!("unknown subcommand `{group}`"));
    };
    match super::action(inv, gi, &[&LIST]) {
        Ok((ai, act)) if actions.contains(&act) => {
            unknown_option(inv.args.get(ai + 1..).unwrap_or(&[]), &[&LIST]).unwrap_or(Verdict::Read)
        }
        Ok((_, act)) => {
            Verdict::unknown(format!("`{group} {act}` is not a known read-only action"))
        }
        Err(verdict) => verdict,
    }
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
    use crate::verdict::{Inner, InteractiveCategory, Verdict};

    #[test]
    fn reads() {
        for line in [
            "crictl ps",
            "crictl ps -a",
            "crictl ps --name web -q",
            "crictl pods",
            "crictl pods --namespace kube-system",
            "crictl images",
            "crictl images --digests",
            "crictl inspect abc123",
            "crictl inspecti nginx",
            "crictl inspectp -o json pod1",
            "crictl info",
            "crictl version",
            "crictl stats",
            "crictl stats -a",
            "crictl statsp",
            "crictl logs abc123",
            "crictl logs --tail 50 abc123",
            "crictl -r unix:///run/containerd/containerd.sock ps",
            "crictl --runtime-endpoint unix:///x.sock images",
            "crictl config --get runtime-endpoint",
            "crictl config --list",
            "crictl imagefsinfo",
            "ctr c ls",
            "ctr containers list",
            "ctr images ls",
            "ctr i ls -q",
            "ctr task ls",
            "ctr -n k8s.io c ls",
            "ctr --namespace k8s.io images ls",
            "ctr namespaces ls",
            "ctr version",
        ] {
            assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn writes() {
        for line in [
            "crictl",
            "crictl pull nginx",
            "crictl rmi nginx",
            "crictl rmi --prune",
            "crictl rm abc",
            "crictl rmp pod1",
            "crictl stop abc",
            "crictl stopp pod1",
            "crictl start abc",
            "crictl runp pod.json",
            "crictl create p c.json p.json",
            "crictl logs --reopen abc",
            "crictl config --set runtime-endpoint=x",
            "crictl config runtime-endpoint unix:///x",
            "crictl exec abc",
            "crictl frob",
            "crictl PS",
            "ctr images pull docker.io/library/nginx:latest",
            "ctr run docker.io/library/nginx:latest web",
            "ctr c rm web",
            "ctr task kill web",
            "ctr frob ls",
            "ctr",
        ] {
            assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn interactive() {
        for line in [
            "crictl logs -f abc",
            "crictl logs --follow abc",
            "crictl stats -w",
            "crictl ps -w",
            "crictl events",
            "crictl attach abc",
            "crictl port-forward pod 8080:80",
            "ctr events",
        ] {
            assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
        }
        match rule_verdict("crictl logs -f abc") {
            Verdict::Interactive(_) => {
                assert_eq!(
                    crate::commands::testing::full_rewrite("crictl logs -f abc").as_deref(),
                    Some("crictl logs --tail=200 abc")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn exec_wraps() {
        for (line, start, tty) in [
            ("crictl exec abc ls /", 2, false),
            ("crictl exec -i abc cat", 3, false),
            ("crictl exec -it abc sh", 3, true),
            ("crictl exec --timeout 5 abc ls", 4, false),
        ] {
            match rule_verdict(line) {
                Verdict::Wrap(w) => {
                    assert_eq!(w.inner, Inner::Argv { start }, "{line}");
                    assert_eq!(
                        w.interactive.map(|i| i.category),
                        tty.then_some(InteractiveCategory::TtyFlag),
                        "{line}"
                    );
                }
                other => panic!("{line}: {other:?}"),
            }
        }
    }
}
