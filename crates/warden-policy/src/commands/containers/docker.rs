//! docker, podman and nerdctl: one engine CLI with management commands
//! (`docker container ls`) and top-level aliases (`docker ps`).

mod tables;

use super::{
    ExecSpec, Flags, any_may_be_option, compose, exec_wrapper, follow_rewrite, given,
    stats_rewrite, switch, unknown_option,
};
use crate::invocation::Invocation;
use crate::options::{Options, Style};
use crate::verdict::{InteractiveCategory, Risk, Verdict};
use Risk::{HighWrite, LowWrite, MediumWrite};
use tables::{ALIASES, GROUPS, LOGS_FLAGS, READ_FLAGS, READS, WRITES};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Engine {
    Docker,
    Podman,
    Nerdctl,
}

pub(super) fn docker(inv: &Invocation<'_, '_>) -> Verdict {
    engine(inv, Engine::Docker)
}

pub(super) fn podman(inv: &Invocation<'_, '_>) -> Verdict {
    engine(inv, Engine::Podman)
}

pub(super) fn nerdctl(inv: &Invocation<'_, '_>) -> Verdict {
    engine(inv, Engine::Nerdctl)
}

const DOCKER_GLOBALS: Flags = Flags {
    short_values: "Hcl",
    short_flags: "Dhv",
    long_values: &[
        "--host",
        "--context",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
    ],
    long_flags: &["--debug", "--tls", "--tlsverify", "--help", "--version"],
    ..Options::GO
};

// Not `--out` (redirects output to a file), `--conmon`, `--runtime`,
// `--hooks-dir`, `--network-cmd-path` (name programs to run), nor `--root`,
// `--runroot`, `--tmpdir`, `--imagestore`, `--volumepath` (create storage
// wherever they point).
const PODMAN_GLOBALS: Flags = Flags {
    short_values: "c",
    short_flags: "rhv",
    long_values: &[
        "--connection",
        "--url",
        "--identity",
        "--log-level",
        "--storage-driver",
        "--cgroup-manager",
        "--events-backend",
        "--db-backend",
        "--ssh",
    ],
    long_flags: &[
        "--remote",
        "--debug",
        "--help",
        "--version",
        "--syslog",
        "--transient-store",
        "--noout",
    ],
    ..Options::GO
};

const NERDCTL_GLOBALS: Flags = Flags {
    short_values: "naH",
    short_flags: "hv",
    long_values: &[
        "--namespace",
        "--address",
        "--host",
        "--snapshotter",
        "--storage-driver",
        "--cni-netconfpath",
        "--cgroup-manager",
        "--hosts-dir",
        "--host-gateway-ip",
        "--bridge-ip",
    ],
    long_flags: &[
        "--debug",
        "--debug-full",
        "--insecure-registry",
        "--experimental",
        "--help",
        "--version",
        "--kube-hide-dupe",
    ],
    ..Options::GO
};

impl Engine {
    fn globals(self) -> &'static Flags {
        match self {
            Engine::Docker => &DOCKER_GLOBALS,
            Engine::Podman => &PODMAN_GLOBALS,
            Engine::Nerdctl => &NERDCTL_GLOBALS,
        }
    }

    fn exec_spec(self) -> &'static ExecSpec {
        match self {
            Engine::Docker => &DOCKER_EXEC,
            Engine::Podman => &PODMAN_EXEC,
            Engine::Nerdctl => &NERDCTL_EXEC,
        }
    }
}

const DOCKER_EXEC: ExecSpec = ExecSpec {
    via: "docker exec",
    options: Options {
        short_flags: "itd",
        short_values: "euw",
        long_flags: &["--interactive", "--privileged", "--tty", "--detach"],
        long_values: &["--env", "--user", "--workdir", "--detach-keys"],
        style: Style::GoStopAtOperand,
        ..Options::GO
    },
    env: ('e', "env"),
    tty: ('t', "tty"),
    no_tty: None,
    tty_default: false,
    detach: Some(('d', "detach")),
};

const PODMAN_EXEC: ExecSpec = ExecSpec {
    via: "podman exec",
    options: Options {
        long_values: &[
            "--env",
            "--user",
            "--workdir",
            "--detach-keys",
            "--preserve-fds",
            "--preserve-fd",
        ],
        ..DOCKER_EXEC.options
    },
    ..DOCKER_EXEC
};

const NERDCTL_EXEC: ExecSpec = ExecSpec {
    via: "nerdctl exec",
    ..DOCKER_EXEC
};

fn engine(inv: &Invocation<'_, '_>, engine: Engine) -> Verdict {
    let globals = engine.globals();
    let (sub_i, sub) = match super::subcommand(inv, &[globals]) {
        Ok(Some(found)) => found,
        Ok(None) if given(inv.args, &[globals], "hv", &["--help", "--version"]) => {
            return Verdict::Read;
        }
        Ok(None) => return Verdict::unknown("no subcommand"),
        Err(verdict) => return verdict,
    };
    match sub {
        "compose" => return compose::compose(inv, sub_i + 1),
        "help" => return Verdict::Read,
        _ => {}
    }
    let (group, action, ai) = if let Some(&(_, group, action)) = ALIASES.iter().find(|a| a.0 == sub)
    {
        (group, action, sub_i)
    } else if GROUPS.contains(&sub) {
        match inv.args.get(sub_i + 1) {
            Some(arg) if arg.is_variable() => {
                return Verdict::unknown("the subcommand comes from an expansion");
            }
            Some(arg) if arg.text == "--help" => return Verdict::Read,
            Some(arg) => (sub, &*arg.text, sub_i + 1),
            None => return Verdict::unknown(format!("no subcommand after `{sub}`")),
        }
    } else {
        return Verdict::unknown(format!("unknown subcommand `{sub}`"));
    };
    operation(inv, engine, group, action, ai)
}

fn operation(
    inv: &Invocation<'_, '_>,
    engine: Engine,
    group: &str,
    action: &str,
    ai: usize,
) -> Verdict {
    let rest = inv.args.get(ai + 1..).unwrap_or(&[]);
    // The words as written: `rmi` for the alias, `image rm` for the group.
    let words = || -> String {
        let grouped = ai > 0 && inv.arg(ai - 1) == Some(group);
        match inv.arg(ai) {
            Some(word) if !grouped => word.to_string(),
            _ => format!("{group} {action}"),
        }
    };
    match (group, action) {
        ("container" | "service" | "pod", "logs") => return logs(inv, ai),
        ("container" | "pod", "stats") => return stats(inv, ai),
        ("system", "events") => return events(inv, ai),
        // `top CONTAINER [ps options]`: the rest goes to `ps`.
        ("container" | "pod", "top") => return Verdict::Read,
        ("container", "exec") => return exec_wrapper(inv, ai, engine.exec_spec()),
        ("container", "run") => return run(inv, ai),
        ("container", "attach") => {
            return Verdict::interactive_writer(
                InteractiveCategory::TtyFlag,
                "attaches the terminal to a container",
            );
        }
        ("container", "wait") => return Verdict::unknown("blocks until containers stop"),
        ("container", "rm" | "remove") => {
            let forced = inv.from(ai + 1).has_flag('f', "--force")
                || inv.from(ai + 1).has_flag('v', "--volumes");
            let risk = if forced { HighWrite } else { MediumWrite };
            return Verdict::write(risk, format!("`{}` removes containers", words()));
        }
        ("buildx" | "builder", "inspect") => {
            if inv.from(ai + 1).has_long("--bootstrap") {
                return Verdict::write(MediumWrite, "`--bootstrap` starts the builder");
            }
            return read_checked(rest);
        }
        ("buildx", "imagetools") => {
            return match inv.arg(ai + 1) {
                Some("inspect") => read_checked(rest.get(1..).unwrap_or(&[])),
                Some("create") => {
                    Verdict::write(MediumWrite, "`imagetools create` pushes a manifest list")
                }
                _ => Verdict::unknown("unknown subcommand of `buildx imagetools`"),
            };
        }
        ("system", "connection") => {
            return match inv.arg(ai + 1) {
                Some("ls" | "list") => read_checked(rest.get(1..).unwrap_or(&[])),
                _ => Verdict::write(MediumWrite, "changes remote connections"),
            };
        }
        ("generate", "kube") | ("kube", "generate") => return generate_kube(inv, ai),
        _ => {}
    }
    if READS
        .iter()
        .any(|(g, actions)| *g == group && actions.contains(&action))
    {
        return read_checked(rest);
    }
    match WRITES
        .iter()
        .find(|(g, actions, ..)| *g == group && actions.contains(&action))
    {
        Some((_, _, risk, effect)) => Verdict::write(*risk, format!("`{}` {effect}", words())),
        None => Verdict::unknown(format!("unknown subcommand `{}`", words())),
    }
}

/// A read-only action, if all its options are known.
fn read_checked(rest: &[crate::invocation::Arg<'_>]) -> Verdict {
    unknown_option(rest, &[&READ_FLAGS]).unwrap_or(Verdict::Read)
}

/// `logs`: `-f`/`--follow` streams forever; suggest `--tail=200` instead.
fn logs(inv: &Invocation<'_, '_>, ai: usize) -> Verdict {
    let rest = inv.args.get(ai + 1..).unwrap_or(&[]);
    let sets = &[&LOGS_FLAGS];
    if let Some(verdict) = unknown_option(rest, sets) {
        return verdict;
    }
    let follow = switch(rest, sets, Some('f'), "--follow");
    if !follow.on {
        return Verdict::Read;
    }
    let reason = "`--follow` streams the log until interrupted";
    let insert: &[&str] = if given(rest, sets, "n", &["--tail"]) {
        &[]
    } else {
        &["--tail=200"]
    };
    follow_rewrite(inv, ai, sets, insert, reason)
}

/// `stats` streams unless `--no-stream`.
fn stats(inv: &Invocation<'_, '_>, ai: usize) -> Verdict {
    let rest = inv.args.get(ai + 1..).unwrap_or(&[]);
    if let Some(verdict) = unknown_option(rest, &[&READ_FLAGS]) {
        return verdict;
    }
    if switch(rest, &[&READ_FLAGS], None, "--no-stream").on {
        return Verdict::Read;
    }
    stats_rewrite(inv, ai, &[&READ_FLAGS])
}

/// `events` streams unless `--until` (or podman's `--stream=false`).
fn events(inv: &Invocation<'_, '_>, ai: usize) -> Verdict {
    let rest = inv.args.get(ai + 1..).unwrap_or(&[]);
    if let Some(verdict) = unknown_option(rest, &[&READ_FLAGS]) {
        return verdict;
    }
    let stream = switch(rest, &[&READ_FLAGS], None, "--stream");
    if given(rest, &[&READ_FLAGS], "", &["--until"]) || (stream.given && !stream.on) {
        return Verdict::Read;
    }
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "streams events until interrupted; `--until` ends it",
    )
}

/// `run` creates a container; `-t`/`--tty` also asks for a terminal.
fn run(inv: &Invocation<'_, '_>, ai: usize) -> Verdict {
    let tty = inv
        .args
        .iter()
        .skip(ai + 1)
        .take_while(|a| a.text != "--")
        .any(|a| {
            let text = a.as_str();
            text == "--tty"
                || text
                    .strip_prefix("--tty=")
                    .is_some_and(|v| super::truthy(Some(v)))
                || (crate::invocation::is_short_cluster(text)
                    && text.contains('t')
                    && !text.contains('d')
                    && text[1..].chars().all(|c| "itPq".contains(c)))
        });
    if tty {
        return Verdict::interactive_writer(
            InteractiveCategory::TtyFlag,
            "runs a new container attached to a terminal",
        );
    }
    Verdict::write(MediumWrite, "`run` creates and starts a container")
}

/// podman `generate kube` prints YAML unless `-f`/`--filename` names a file.
fn generate_kube(inv: &Invocation<'_, '_>, ai: usize) -> Verdict {
    const FLAGS: Flags = Flags {
        short_values: "ft",
        short_flags: "s",
        long_values: &["--filename", "--type", "--replicas"],
        long_flags: &["--service", "--podman-only", "--no-trunc", "--help"],
        ..Options::GO
    };
    let rest = inv.args.get(ai + 1..).unwrap_or(&[]);
    if given(rest, &[&FLAGS], "f", &["--filename"]) {
        return Verdict::write(LowWrite, "`--filename` writes the YAML to a file");
    }
    if any_may_be_option(rest) {
        return Verdict::unknown("an argument from an expansion could name an output file");
    }
    unknown_option(rest, &[&FLAGS]).unwrap_or(Verdict::Read)
}

#[cfg(test)]
mod tests;
