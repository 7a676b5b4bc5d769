//! A hop and a command as the process to start: the one place that writes
//! `docker exec` and `pct exec` lines, for Warden's own host and for agents.
//!
//! Inside a container the command runs under a small wrapper shell whose
//! `$0` is a tag unique to the run ([`ExecTag`]): the process inside
//! belongs to the container runtime, not to the runner's process group, so
//! stopping the local `docker`/`pct` client would leave it running. The
//! runner finds the wrapper by that argument in the host's `/proc`
//! (containers share its kernel), and everything the command starts by the
//! [`EXEC_TAG_VAR`] the wrapper exports, even after it was reparented. The
//! wrapper runs the command as a child (a list, so no shell replaces itself
//! with it) and exits with its status.

use super::answer::Hop;

/// The variable every process of a command inside a container carries.
pub const EXEC_TAG_VAR: &str = "WARDEN_EXEC_TAG";

/// The wrapper script: `$0` is the tag, `$1` the command.
pub const CONTAINER_WRAPPER: &str =
    "WARDEN_EXEC_TAG=\"$0\"; export WARDEN_EXEC_TAG; /bin/sh -c \"$1\"; exit $?";

/// The shell a container's commands run under: a container may have no bash.
pub const CONTAINER_SHELL: &str = "/bin/sh";

/// A run's tag: letters, digits, `-` and `_` only (it is matched in
/// `/proc`, written to the watchdog's pipe and needs no quoting), at most
/// 128 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExecTag(String);

impl ExecTag {
    pub fn new(tag: impl Into<String>) -> Option<Self> {
        let tag = tag.into();
        is_plain_tag(&tag).then_some(ExecTag(tag))
    }

    /// `w{process}-{counter}-{nanos in hex}`: plain by construction; unique
    /// on a machine when the caller passes its pid, a counter of its own
    /// and the time (which tells apart processes that reused a pid).
    pub fn unique(process: u32, counter: u64, nanos: u128) -> Self {
        ExecTag(format!("w{process}-{counter}-{nanos:x}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether `tag` may be an [`ExecTag`].
pub fn is_plain_tag(tag: &str) -> bool {
    !tag.is_empty()
        && tag.len() <= 128
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The process to start for a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// Program and arguments; the command is always one argument, passed
    /// through untouched (no quoting to get wrong).
    pub argv: Vec<String>,
    /// Inside a container: the tag its processes carry there.
    pub exec_tag: Option<ExecTag>,
}

/// The invocation that runs `command` after `hop`: `host_shell -c COMMAND`
/// in the runner's own shell (bash on Warden's host, `/bin/sh` on agents),
/// else the container client, then the tagged wrapper under `/bin/sh`:
///
/// - `docker exec CONTAINER /bin/sh -c WRAPPER TAG COMMAND`
/// - `pct exec VMID -- /bin/sh -c WRAPPER TAG COMMAND`
pub fn invocation(hop: &Hop, command: &str, host_shell: &str, tag: &ExecTag) -> Invocation {
    let wrapped = |client: &[&str]| {
        let argv = client
            .iter()
            .copied()
            .chain([
                CONTAINER_SHELL,
                "-c",
                CONTAINER_WRAPPER,
                tag.as_str(),
                command,
            ])
            .map(str::to_string)
            .collect();
        Invocation {
            argv,
            exec_tag: Some(tag.clone()),
        }
    };
    match hop {
        Hop::HostShell => Invocation {
            argv: vec![
                host_shell.to_string(),
                "-c".to_string(),
                command.to_string(),
            ],
            exec_tag: None,
        },
        Hop::DockerExec { container } => wrapped(&["docker", "exec", container]),
        Hop::PctExec { vmid } => wrapped(&["pct", "exec", vmid, "--"]),
    }
}

/// Whether a process's arguments (`/proc/PID/cmdline`) are the wrapper of
/// the run tagged `tag`: `/bin/sh -c WRAPPER TAG …`, the tag as `$0`. The
/// local client carries the same words further along and does not match.
pub fn is_wrapper_of(argv: &[String], tag: &str) -> bool {
    matches!(argv, [_, dash_c, script, found, ..]
        if dash_c == "-c" && script == CONTAINER_WRAPPER && found == tag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tag() -> ExecTag {
        ExecTag::new("tag-1").unwrap()
    }

    #[test]
    fn hops_become_command_lines() {
        let cases: [(Hop, Vec<&str>); 3] = [
            (Hop::HostShell, vec!["/bin/bash", "-c", "uptime"]),
            (
                Hop::DockerExec {
                    container: "abc123def456".into(),
                },
                vec![
                    "docker",
                    "exec",
                    "abc123def456",
                    "/bin/sh",
                    "-c",
                    CONTAINER_WRAPPER,
                    "tag-1",
                    "uptime",
                ],
            ),
            (
                Hop::PctExec { vmid: "141".into() },
                vec![
                    "pct",
                    "exec",
                    "141",
                    "--",
                    "/bin/sh",
                    "-c",
                    CONTAINER_WRAPPER,
                    "tag-1",
                    "uptime",
                ],
            ),
        ];
        for (hop, argv) in cases {
            let invocation = invocation(&hop, "uptime", "/bin/bash", &tag());
            assert_eq!(invocation.argv, argv, "{hop:?}");
            assert_eq!(
                invocation.exec_tag.is_some(),
                hop != Hop::HostShell,
                "{hop:?}"
            );
            // The wrapper is recognised by its tag, the client is not.
            if let Some(at) = invocation.argv.iter().position(|a| a == "/bin/sh") {
                assert!(is_wrapper_of(&invocation.argv[at..], "tag-1"));
                assert!(!is_wrapper_of(&invocation.argv[at..], "tag-2"));
                assert!(!is_wrapper_of(&invocation.argv, "tag-1"));
            }
        }
    }

    #[test]
    fn tags_are_plain_words() {
        assert!(ExecTag::new("w123-4-abc_DEF").is_some());
        let unique = ExecTag::unique(u32::MAX, u64::MAX, u128::MAX);
        assert_eq!(ExecTag::new(unique.as_str()), Some(unique.clone()));
        for bad in ["", "a b", "a/b", "x;y", "$(id)", &"a".repeat(129)] {
            assert!(ExecTag::new(bad).is_none(), "{bad:?}");
        }
    }

    proptest! {
    /// The command is always one argument, passed through untouched.
        #[test]
        fn the_command_is_one_untouched_argument(command in ".*") {
            for hop in [
                Hop::HostShell,
                Hop::DockerExec { container: "abc".into() },
                Hop::PctExec { vmid: "141".into() },
            ] {
                let invocation = invocation(&hop, &command, "/bin/sh", &tag());
                prop_assert_eq!(invocation.argv.last(), Some(&command));
            }
        }
    }
}
