//! Where a command for a target runs, as the process the agent starts
//! (DESIGN "Agents", routing). Pure.
//!
//! - this host (`host:{name}`): `/bin/sh -c CMD`;
//! - a Docker container this agent reported: `docker exec CONTAINER /bin/sh
//!   -c …` (no `-t`, no `-i`: no terminal, no stdin);
//! - an LXC container on this Proxmox node that this agent reported:
//!   `pct exec VMID -- /bin/sh -c …`;
//! - anything else: `UNKNOWN_TARGET`.
//!
//! Inside a container the command runs under a small wrapper shell whose
//! arguments carry a unique tag: the process inside belongs to the container
//! runtime, not to the agent's process group, so cancelling finds it (and its
//! descendants) by that tag. The wrapper runs the command as a child (a
//! list, so no shell replaces itself with it) and exits with its status.

use std::collections::BTreeSet;

use warden_protocol::agent::{ExecErrorCode, ExecFailure};
use warden_protocol::{Resource, ResourceId, ResourceKind};

/// The wrapper script: `$0` is the tag, `$1` the command.
pub const CONTAINER_WRAPPER: &str = "/bin/sh -c \"$1\"; exit $?";

/// The resources this agent may run commands on, from its latest inventory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// This host's name: its id is `host:{name}`.
    pub host: String,
    /// Docker containers by the uid of their id (the short id).
    pub containers: BTreeSet<String>,
    /// LXC containers on this Proxmox node, by VMID.
    pub lxcs: BTreeSet<String>,
}

impl Reach {
    /// What `resources` (this agent's inventory for host `host`) make reachable.
    pub fn from_inventory(host: &str, resources: &[Resource]) -> Self {
        let mut reach = Reach {
            host: host.to_string(),
            ..Reach::default()
        };
        for resource in resources {
            if resource.id.host() != Some(host) {
                continue;
            }
            match resource.id.kind {
                ResourceKind::DockerContainer => {
                    reach.containers.insert(resource.id.uid.clone());
                }
                ResourceKind::Lxc => {
                    reach.lxcs.insert(resource.id.uid.clone());
                }
                ResourceKind::Host
                | ResourceKind::Node
                | ResourceKind::Vm
                | ResourceKind::DockerHost
                | ResourceKind::K8sCluster
                | ResourceKind::K8sNode
                | ResourceKind::K8sPod
                | ResourceKind::Storage => {}
            }
        }
        reach
    }
}

/// The hop a command takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Host,
    DockerExec { container: String },
    PctExec { vmid: String },
}

/// The process to start for a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub argv: Vec<String>,
    pub route: Route,
    /// The tag of the wrapper inside a container; `None` on the host.
    pub container_tag: Option<String>,
}

/// The invocation that runs `command` on `target`, or `UNKNOWN_TARGET`.
/// `tag` must be unique to this run (it finds the process to cancel).
pub fn route(
    target: &str,
    reach: &Reach,
    command: &str,
    tag: &str,
) -> Result<Invocation, ExecFailure> {
    let unknown = |why: String| {
        ExecFailure::new(
            ExecErrorCode::UnknownTarget,
            format!("{target:?} is not a resource this agent reaches: {why}"),
        )
    };
    let id: ResourceId = target
        .parse()
        .map_err(|err| unknown(format!("not a resource id ({err})")))?;
    let wrapped = |prefix: &[&str]| -> Vec<String> {
        prefix
            .iter()
            .map(|s| s.to_string())
            .chain([
                "/bin/sh".to_string(),
                "-c".to_string(),
                CONTAINER_WRAPPER.to_string(),
                tag.to_string(),
                command.to_string(),
            ])
            .collect()
    };
    match id.kind {
        ResourceKind::Host if id.uid == reach.host => Ok(Invocation {
            argv: vec!["/bin/sh".into(), "-c".into(), command.into()],
            route: Route::Host,
            container_tag: None,
        }),
        ResourceKind::DockerContainer
            if id.host() == Some(reach.host.as_str())
                && reach.containers.contains(&id.uid)
                && is_container_id(&id.uid) =>
        {
            Ok(Invocation {
                argv: wrapped(&["docker", "exec", &id.uid]),
                route: Route::DockerExec {
                    container: id.uid.clone(),
                },
                container_tag: Some(tag.to_string()),
            })
        }
        ResourceKind::Lxc
            if id.host() == Some(reach.host.as_str())
                && reach.lxcs.contains(&id.uid)
                && is_vmid(&id.uid) =>
        {
            Ok(Invocation {
                argv: wrapped(&["pct", "exec", &id.uid, "--"]),
                route: Route::PctExec {
                    vmid: id.uid.clone(),
                },
                container_tag: Some(tag.to_string()),
            })
        }
        ResourceKind::Host
        | ResourceKind::DockerContainer
        | ResourceKind::Lxc
        | ResourceKind::Node
        | ResourceKind::Vm
        | ResourceKind::DockerHost
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => Err(unknown(format!(
            "this agent runs commands on host:{} and the Docker and LXC containers it reported",
            reach.host
        ))),
    }
}

/// Docker ids are hex; anything else could be read as a `docker` option.
fn is_container_id(uid: &str) -> bool {
    !uid.is_empty() && uid.len() <= 64 && uid.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_vmid(uid: &str) -> bool {
    !uid.is_empty() && uid.len() <= 10 && uid.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reach() -> Reach {
        Reach {
            host: "pve1".into(),
            containers: ["abc123def456".to_string()].into(),
            lxcs: ["141".to_string()].into(),
        }
    }

    #[test]
    fn reach_comes_from_this_hosts_resources() {
        let resources = vec![
            Resource::new(ResourceId::global(ResourceKind::Host, "pve1"), "pve1"),
            Resource::new(
                ResourceId::scoped(ResourceKind::DockerContainer, "pve1", "abc123def456"),
                "web",
            ),
            Resource::new(ResourceId::scoped(ResourceKind::Lxc, "pve1", "141"), "ct"),
            Resource::new(ResourceId::scoped(ResourceKind::Vm, "pve1", "101"), "vm"),
            Resource::new(ResourceId::scoped(ResourceKind::Lxc, "pve2", "142"), "far"),
        ];
        assert_eq!(Reach::from_inventory("pve1", &resources), reach());
    }

    #[test]
    fn targets_route_to_their_command_lines() {
        let cases: Vec<(&str, Vec<&str>, Route)> = vec![
            ("host:pve1", vec!["/bin/sh", "-c", "uptime"], Route::Host),
            (
                "docker_container:pve1:abc123def456",
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
                Route::DockerExec {
                    container: "abc123def456".into(),
                },
            ),
            (
                "lxc:pve1:141",
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
                Route::PctExec { vmid: "141".into() },
            ),
        ];
        for (target, argv, expected_route) in cases {
            let invocation = route(target, &reach(), "uptime", "tag-1").unwrap();
            assert_eq!(invocation.argv, argv, "{target}");
            assert_eq!(invocation.route, expected_route);
            assert_eq!(
                invocation.container_tag.is_some(),
                expected_route != Route::Host
            );
        }
    }

    #[test]
    fn everything_else_is_an_unknown_target() {
        for target in [
            "host:pve2",
            "node:pve1",
            "vm:pve1:101",
            "lxc:pve1:999",
            "lxc:pve2:141",
            "docker_container:pve1:ffffffffffff",
            "docker_container:web1:abc123def456",
            "k8s_pod:pve1:default/api",
            "pve1",
            "",
            "host:",
        ] {
            let failure = route(target, &reach(), "uptime", "t").unwrap_err();
            assert_eq!(failure.code, ExecErrorCode::UnknownTarget, "{target}");
        }
    }

    #[test]
    fn reported_ids_that_look_like_options_are_refused() {
        let odd = Reach {
            host: "h".into(),
            containers: ["--privileged".to_string()].into(),
            lxcs: ["-1".to_string()].into(),
        };
        assert!(route("docker_container:h:--privileged", &odd, "id", "t").is_err());
        assert!(route("lxc:h:-1", &odd, "id", "t").is_err());
    }

    proptest! {
        /// The command is always one argument, passed through untouched:
        /// no quoting to get wrong, whatever it contains.
        #[test]
        fn the_command_is_one_untouched_argument(command in ".*") {
            for target in ["host:pve1", "docker_container:pve1:abc123def456", "lxc:pve1:141"] {
                let invocation = route(target, &reach(), &command, "tag").unwrap();
                prop_assert_eq!(invocation.argv.last(), Some(&command));
            }
        }
    }
}
