//! `docker compose …` and `docker-compose …` (v1 and v2 spellings).

use super::{
    ExecSpec, Flags, any_may_be_option, exec_wrapper, follow_rewrite, given, stats_rewrite, switch,
    unknown_option,
};
use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Style};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

pub(super) fn docker_compose(inv: &Invocation<'_, '_>) -> Verdict {
    compose(inv, 0)
}

const GLOBALS: Flags = Flags {
    short_values: "fpcHl",
    short_flags: "hv",
    long_values: &[
        "--file",
        "--project-name",
        "--project-directory",
        "--env-file",
        "--profile",
        "--ansi",
        "--progress",
        "--parallel",
        "--context",
        "--host",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
    ],
    long_flags: &[
        "--compatibility",
        "--dry-run",
        "--all-resources",
        "--verbose",
        "--no-ansi",
        "--tls",
        "--tlsverify",
        "--skip-hostname-check",
        "--help",
        "--version",
    ],
    ..Options::GO
};

/// Options of the listing subcommands (none writes).
const READ_FLAGS: Flags = Flags {
    short_values: "f",
    short_flags: "aq",
    long_values: &["--filter", "--format", "--status", "--index", "--protocol"],
    long_flags: &[
        "--all",
        "--quiet",
        "--no-trunc",
        "--orphans",
        "--services",
        "--short",
        "--help",
        "--no-stream",
    ],
    ..Options::GO
};

const CONFIG_FLAGS: Flags = Flags {
    short_values: "o",
    short_flags: "q",
    long_values: &["--output", "--format", "--hash"],
    long_flags: &[
        "--quiet",
        "--images",
        "--no-consistency",
        "--no-interpolate",
        "--no-normalize",
        "--no-path-resolution",
        "--profiles",
        "--resolve-image-digests",
        "--services",
        "--volumes",
        "--variables",
        "--environment",
        "--networks",
        "--models",
        "--lock-image-digests",
        "--no-env-resolution",
        "--help",
    ],
    ..Options::GO
};

const LOGS_FLAGS: Flags = Flags {
    short_values: "n",
    short_flags: "ft",
    long_values: &["--index", "--since", "--tail", "--until"],
    long_flags: &[
        "--follow",
        "--no-color",
        "--no-log-prefix",
        "--timestamps",
        "--help",
    ],
    ..Options::GO
};

use Risk::{HighWrite, LowWrite, MediumWrite};

const WRITES: &[(&[&str], Risk, &str)] = &[
    (
        &["up", "create", "scale", "watch", "publish"],
        MediumWrite,
        "creates or updates services",
    ),
    (
        &["start", "stop", "restart", "kill", "pause", "unpause"],
        MediumWrite,
        "changes service containers",
    ),
    (&["pull"], LowWrite, "downloads images"),
    (&["push"], MediumWrite, "uploads images"),
    (&["build"], MediumWrite, "builds images"),
    (
        &["cp"],
        MediumWrite,
        "copies files into or out of a container",
    ),
    (&["commit", "export"], LowWrite, "writes images or archives"),
];

const EXEC: ExecSpec = ExecSpec {
    via: "docker compose exec",
    options: Options {
        short_flags: "itTd",
        short_values: "euw",
        long_flags: &[
            "--interactive",
            "--privileged",
            "--tty",
            "--no-TTY",
            "--no-tty",
            "--detach",
        ],
        long_values: &["--env", "--user", "--workdir", "--index"],
        style: Style::GoStopAtOperand,
        ..Options::GO
    },
    env: ('e', "env"),
    tty: ('t', "tty"),
    no_tty: Some(('T', &["no-TTY", "no-tty"])),
    tty_default: true,
    detach: Some(('d', "detach")),
};

/// `start` is the index of the first word after `compose`.
pub(super) fn compose(inv: &Invocation<'_, '_>, start: usize) -> Verdict {
    let view = inv.from(start);
    let (rel, sub) = match super::subcommand(&view, &[&GLOBALS]) {
        Ok(Some(found)) => found,
        Ok(None) if given(view.args, &[&GLOBALS], "hv", &["--help", "--version"]) => {
            return Verdict::Read;
        }
        Ok(None) => return Verdict::unknown("no compose subcommand"),
        Err(verdict) => return verdict,
    };
    let si = start + rel;
    let rest = inv.args.get(si + 1..).unwrap_or(&[]);
    match sub {
        "ps" | "ls" | "images" | "top" | "version" | "port" | "volumes" => {
            unknown_option(rest, &[&READ_FLAGS]).unwrap_or(Verdict::Read)
        }
        "help" => Verdict::Read,
        "config" | "convert" => config(rest),
        "logs" => logs(inv, si, rest),
        "stats" => stats(inv, si, rest),
        "events" => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`events` streams until interrupted",
        ),
        "exec" => exec_wrapper(inv, si, &EXEC),
        "run" => {
            // Like exec, run allocates a terminal unless `-T`.
            if inv.from(si + 1).has_flag('d', "--detach")
                || inv.from(si + 1).has_flag('T', "--no-TTY")
            {
                Verdict::write(MediumWrite, "`run` starts a one-off container")
            } else {
                Verdict::interactive_writer(
                    InteractiveCategory::TtyFlag,
                    "`run` starts a one-off container attached to a terminal",
                )
            }
        }
        "attach" => Verdict::interactive_writer(
            InteractiveCategory::TtyFlag,
            "attaches the terminal to a service container",
        ),
        "wait" => Verdict::unknown("blocks until containers stop"),
        "down" | "rm" => {
            let destroys = given(rest, &[], "v", &["--volumes", "--rmi"]);
            let risk = if destroys { HighWrite } else { MediumWrite };
            Verdict::write(risk, format!("`{sub}` removes service containers"))
        }
        _ => match WRITES.iter().find(|(subs, ..)| subs.contains(&sub)) {
            Some((_, risk, effect)) => Verdict::write(*risk, format!("`{sub}` {effect}")),
            None => Verdict::unknown(format!("unknown compose subcommand `{sub}`")),
        },
    }
}

/// `config` prints the resolved file unless `-o`/`--output` names a file.
fn config(rest: &[Arg<'_>]) -> Verdict {
    if given(rest, &[&CONFIG_FLAGS], "o", &["--output"]) {
        return Verdict::write(LowWrite, "`--output` writes the configuration to a file");
    }
    if any_may_be_option(rest) {
        return Verdict::unknown("an argument from an expansion could name an output file");
    }
    unknown_option(rest, &[&CONFIG_FLAGS]).unwrap_or(Verdict::Read)
}

fn logs(inv: &Invocation<'_, '_>, si: usize, rest: &[Arg<'_>]) -> Verdict {
    let sets = &[&LOGS_FLAGS];
    if let Some(verdict) = unknown_option(rest, sets) {
        return verdict;
    }
    let follow = switch(rest, sets, Some('f'), "--follow");
    if !follow.on {
        return Verdict::Read;
    }
    let reason = "`--follow` streams the logs until interrupted";
    let insert: &[&str] = if given(rest, sets, "n", &["--tail"]) {
        &[]
    } else {
        &["--tail=200"]
    };
    follow_rewrite(inv, si, sets, insert, reason)
}

fn stats(inv: &Invocation<'_, '_>, si: usize, rest: &[Arg<'_>]) -> Verdict {
    if let Some(verdict) = unknown_option(rest, &[&READ_FLAGS]) {
        return verdict;
    }
    if switch(rest, &[&READ_FLAGS], None, "--no-stream").on {
        return Verdict::Read;
    }
    stats_rewrite(inv, si, &[&READ_FLAGS])
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
    use crate::verdict::{Inner, InteractiveCategory, Verdict};

    #[test]
    fn reads() {
        for line in [
            "docker compose ps",
            "docker compose ps -a",
            "docker compose ls",
            "docker compose config",
            "docker compose config --services",
            "docker compose -f prod.yml config -q",
            "docker compose images",
            "docker compose logs web",
            "docker compose logs --tail=100 web",
            "docker compose logs -n 20 web",
            "docker compose top",
            "docker compose version",
            "docker compose port web 80",
            "docker compose -p proj --project-directory /srv ps",
            "docker compose stats --no-stream",
            "docker-compose ps",
            "docker-compose -f a.yml logs web",
            "docker-compose config",
            "docker-compose --version",
            "docker --context prod compose ps",
        ] {
            assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn writes() {
        for line in [
            "docker compose",
            "docker compose up",
            "docker compose up -d",
            "docker compose down",
            "docker compose down -v",
            "docker compose start web",
            "docker compose stop",
            "docker compose restart web",
            "docker compose rm -f",
            "docker compose pull",
            "docker compose push",
            "docker compose build",
            "docker compose create",
            "docker compose kill",
            "docker compose pause",
            "docker compose unpause",
            "docker compose run -d web ls",
            "docker compose cp web:/x .",
            "docker compose scale web=3",
            "docker compose watch",
            "docker compose config -o out.yml",
            "docker compose config --output=out.yml",
            "docker compose frob",
            "docker compose PS",
            "docker compose ps --evil",
            "docker compose exec web",
            "docker compose exec -d web touch /x",
            "docker-compose up -d",
            "docker-compose down",
            "podman-compose --podman-path /tmp/x ps",
        ] {
            assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn interactive() {
        for line in [
            "docker compose logs -f",
            "docker compose logs --follow web",
            "docker compose events",
            "docker compose stats",
            "docker compose run web sh",
            "docker compose attach web",
            "docker-compose logs -f web",
        ] {
            assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
        }
        match rule_verdict("docker compose logs -f web") {
            Verdict::Interactive(_) => {
                assert_eq!(
                    crate::commands::testing::full_rewrite("docker compose logs -f web").as_deref(),
                    Some("docker compose logs --tail=200 web")
                );
            }
            other => panic!("{other:?}"),
        }
        match rule_verdict("docker-compose -f a.yml logs -f -n 5 web") {
            Verdict::Interactive(_) => {
                assert_eq!(
                    crate::commands::testing::full_rewrite(
                        "docker-compose -f a.yml logs -f -n 5 web"
                    )
                    .as_deref(),
                    Some("docker-compose -f a.yml logs -n 5 web")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn exec_wraps() {
        for (line, start, tty) in [
            ("docker compose exec web cat /etc/hosts", 3, true),
            ("docker compose exec -T web cat /etc/hosts", 4, false),
            ("docker compose exec --no-TTY web ls", 4, false),
            ("docker compose exec -T -u root web id", 6, false),
            ("docker compose -f a.yml exec -T db pg_dump", 6, false),
            ("docker-compose exec -T db psql -c select", 3, false),
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
