//! How a command for a resource reaches it from this machine (DESIGN
//! "Resource model", routing chain). This machine runs commands for itself
//! directly and for its Docker containers through `docker exec`; everything
//! else needs an agent on (or above) the resource, which is not this
//! module's business: it says so with [`RoutingError::Unreachable`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use warden_protocol::{Resource, ResourceId, ResourceKind};

/// The hop a routed command takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Runs as is on this machine.
    LocalHost,
    /// Runs inside a container on this machine, through `docker exec`.
    DockerExec { container: String },
}

/// A command ready for [`crate::LocalExecutor::execute_routed`]: what to
/// run on this machine so that `original` runs on the resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutedCommand {
    pub command: String,
    pub route: Route,
    /// For a command inside a container: the value of
    /// [`crate::local_exec::EXEC_TAG_VAR`] its processes there carry, unique
    /// per run, by which the executor finds and stops them (they are not
    /// Warden's children: stopping the local `docker` client leaves them
    /// running).
    pub exec_tag: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoutingError {
    #[error("no agent is connected for {resource} ({name}): {reason}")]
    Unreachable {
        resource: ResourceId,
        name: String,
        reason: String,
    },
}

/// The command that runs `command` on `resource`, from this machine
/// (`local_host`, e.g. `host:web1`).
///
/// - this machine: `command` itself;
/// - a Docker container on this machine:
///   `docker exec -e WARDEN_EXEC_TAG=<tag> <id> /bin/sh -c '<command>'`,
///   with no `-t` (no terminal) and no `-i` (no stdin), `/bin/sh` because a
///   container may have no bash, and a fresh tag ([`RoutedCommand::exec_tag`]);
/// - anything else: [`RoutingError::Unreachable`], naming the resource.
pub fn command_for(
    resource: &Resource,
    local_host: &ResourceId,
    command: &str,
) -> Result<RoutedCommand, RoutingError> {
    let unreachable = |reason: String| RoutingError::Unreachable {
        resource: resource.id.clone(),
        name: resource.name.clone(),
        reason,
    };
    match resource.id.kind {
        ResourceKind::Host if resource.id == *local_host => Ok(RoutedCommand {
            command: command.to_string(),
            route: Route::LocalHost,
            exec_tag: None,
        }),
        ResourceKind::Host => Err(unreachable(format!(
            "only this machine ({local_host}) is reachable without an agent"
        ))),
        ResourceKind::DockerContainer => {
            // Its Docker host: the parent, else the host named in its id.
            let docker_host = resource.parent.clone().or_else(|| {
                resource
                    .id
                    .host()
                    .map(|host| ResourceId::global(ResourceKind::Host, host))
            });
            match docker_host {
                Some(host) if host == *local_host => {
                    // The uid is the short id, which `docker exec` accepts.
                    let container = resource.id.uid.clone();
                    let tag = new_exec_tag();
                    Ok(RoutedCommand {
                        command: format!(
                            "docker exec -e {}={tag} {} /bin/sh -c {}",
                            crate::local_exec::EXEC_TAG_VAR,
                            quote_word(&container),
                            single_quote(command)
                        ),
                        route: Route::DockerExec { container },
                        exec_tag: Some(tag),
                    })
                }
                Some(host) => Err(unreachable(format!(
                    "it runs on {host}, and only this machine ({local_host}) is \
                     reachable without an agent"
                ))),
                None => Err(unreachable("its Docker host is unknown".to_string())),
            }
        }
        ResourceKind::Node
        | ResourceKind::Vm
        | ResourceKind::Lxc
        | ResourceKind::DockerHost
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => Err(unreachable(format!(
            "this {} is reached through an agent, and from this machine ({local_host}) \
             only the machine and its Docker containers are reachable",
            resource.id.kind.label()
        ))),
    }
}

/// A tag no other run on this machine carries: this process's id, a
/// counter, and the time (which tells apart processes that reused a pid).
/// Only letters, digits and `-`, so it needs no quoting.
fn new_exec_tag() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "w{}-{}-{nanos:x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// `text` as one POSIX shell word, always single-quoted: inside single
/// quotes nothing is special, and a `'` is written as `'\''` (close, an
/// escaped quote, reopen). Newlines, `$()`, backticks and `;` stay literal.
pub fn single_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` as one shell word, quoted only when it needs to be (ids, names).
pub fn quote_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.,:/@%+=".contains(c));
    if plain {
        text.to_string()
    } else {
        single_quote(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn local() -> ResourceId {
        ResourceId::global(ResourceKind::Host, "web1")
    }

    fn container(host: &str, uid: &str, parent: Option<&str>) -> Resource {
        let mut r = Resource::new(
            ResourceId::scoped(ResourceKind::DockerContainer, host, uid),
            "homepage",
        );
        r.parent = parent.map(|p| ResourceId::global(ResourceKind::Host, p));
        r
    }

    /// What `sh` makes of `word`: the arguments it passes on, one per line.
    fn words_after_shell_parsing(line: &str) -> Vec<String> {
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("printf '%s\\0' {line}"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .split_terminator('\0')
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn single_quoting_keeps_one_argument() {
        let tricky = [
            "echo 'hi there'",
            "echo \"$HOME\" $(id -u) `uname`",
            "a\nb\n",
            "it's; rm -rf / # not run",
            "'",
            "''''",
            "",
            "\\'\\\\",
            "ünïcödé \t tab",
        ];
        for text in tricky {
            let quoted = single_quote(text);
            assert_eq!(words_after_shell_parsing(&quoted), [text], "{quoted}");
        }
        assert_eq!(single_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(quote_word("3f4e1c2b9a8d"), "3f4e1c2b9a8d");
        assert_eq!(quote_word("a b"), "'a b'");
        assert_eq!(quote_word(""), "''");
        assert_eq!(quote_word("$(x)"), "'$(x)'");
    }

    #[test]
    fn the_local_host_runs_the_command_itself() {
        let host = Resource::new(local(), "web1");
        let routed = command_for(&host, &local(), "df -h").unwrap();
        assert_eq!(
            routed,
            RoutedCommand {
                command: "df -h".into(),
                route: Route::LocalHost,
                exec_tag: None,
            }
        );
    }

    #[test]
    fn a_local_container_runs_through_docker_exec() {
        let c = container("web1", "3f4e1c2b9a8d", Some("web1"));
        let routed = command_for(&c, &local(), "cat /etc/os-release | head -1").unwrap();
        let tag = routed.exec_tag.clone().unwrap();
        assert_eq!(
            routed.command,
            format!(
                "docker exec -e WARDEN_EXEC_TAG={tag} 3f4e1c2b9a8d /bin/sh -c 'cat /etc/os-release | head -1'"
            )
        );
        // Every run gets its own tag, a plain shell word.
        let again = command_for(&c, &local(), "true").unwrap();
        assert_ne!(again.exec_tag, routed.exec_tag);
        assert_eq!(quote_word(&tag), tag);
        assert_eq!(
            routed.route,
            Route::DockerExec {
                container: "3f4e1c2b9a8d".into()
            }
        );
        // The whole command is the single argument after `-c`.
        let words = words_after_shell_parsing(&routed.command);
        assert_eq!(
            words,
            [
                "docker",
                "exec",
                "-e",
                &format!("WARDEN_EXEC_TAG={tag}"),
                "3f4e1c2b9a8d",
                "/bin/sh",
                "-c",
                "cat /etc/os-release | head -1"
            ]
        );
        let nasty = "echo 'a' \"$(hostname)\"\necho done";
        let words = words_after_shell_parsing(&command_for(&c, &local(), nasty).unwrap().command);
        assert_eq!(words.last().map(String::as_str), Some(nasty));
        assert_eq!(words.len(), 8);
        // No parent: the host in its id decides.
        let orphan = container("web1", "3f4e1c2b9a8d", None);
        assert!(command_for(&orphan, &local(), "true").is_ok());
    }

    #[test]
    fn everything_else_is_unreachable_and_named() {
        let other_host = Resource::new(ResourceId::global(ResourceKind::Host, "db1"), "db1");
        let err = command_for(&other_host, &local(), "true").unwrap_err();
        assert_eq!(
            err.to_string(),
            "no agent is connected for host:db1 (db1): only this machine (host:web1) \
             is reachable without an agent"
        );
        let remote = container("db1", "abc", Some("db1"));
        let err = command_for(&remote, &local(), "true")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "no agent is connected for docker_container:db1:abc (homepage): it runs on host:db1"
            ),
            "{err}"
        );
        let lxc = Resource::new(
            ResourceId::scoped(ResourceKind::Lxc, "pve1", "141"),
            "homepage",
        );
        let err = command_for(&lxc, &local(), "true").unwrap_err().to_string();
        assert!(err.starts_with("no agent is connected for lxc:pve1:141 (homepage): this LXC is reached through an agent"), "{err}");
    }
}
