//! The agent's side of routing: the target of an `exec` frame, decided by
//! [`warden_protocol::routing`] with this agent's own facts (its host, and
//! the Docker and LXC containers its inventory reported; no agents, no
//! guest API), becomes the process to start. Anything this agent does not
//! run itself is `UNKNOWN_TARGET`.

use warden_protocol::agent::{ExecErrorCode, ExecFailure};
use warden_protocol::routing::{
    CallKind, ExecTag, Facts, GuestApiService, Invocation, Route, RouteFacts, Runner, ShellRoute,
    ThisMachine, invocation, route,
};
use warden_protocol::{Resource, ResourceId};

/// The shell of the agent's own host: `/bin/sh`, which every host has
/// (the policy proves commands read-only under it too).
pub const AGENT_SHELL: &str = "/bin/sh";

/// The invocation that runs `command` on `target`, or `UNKNOWN_TARGET`.
/// `tag` must be unique to this run (it finds the process to cancel inside
/// a container).
pub fn invocation_for(
    target: &str,
    this_machine: &ThisMachine,
    command: &str,
    tag: &ExecTag,
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
    let backends = RouteFacts::only(this_machine.clone());
    let facts = Facts {
        backends: &backends,
        guest_api: GuestApiService::NotServed,
    };
    match route(
        Some(&Resource::new(id, String::new())),
        CallKind::Shell,
        &facts,
    ) {
        Route::Shell(ShellRoute {
            runner: Runner::ThisMachine,
            hop,
        }) => Ok(invocation(&hop, command, AGENT_SHELL, tag)),
        Route::Unreachable(why) => Err(unknown(why.to_string())),
        // Neither can come from an agent's own facts (no agents, no API).
        Route::Shell(ShellRoute {
            runner: Runner::Agent { .. },
            ..
        })
        | Route::GuestApi(_) => Err(unknown("it runs elsewhere".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::ResourceKind;
    use warden_protocol::routing::{CONTAINER_WRAPPER, Children, Machines};

    fn reach() -> ThisMachine {
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
        ThisMachine::reported_by("pve1", &resources)
    }

    fn tag() -> ExecTag {
        ExecTag::new("tag-1").unwrap()
    }

    #[test]
    fn reach_comes_from_this_hosts_resources() {
        let reach = reach();
        assert_eq!(reach.hosts, Machines::Named(["pve1".to_string()].into()));
        let ids =
            |ids: &[&str]| Children::Reported(ids.iter().map(|i| i.parse().unwrap()).collect());
        assert_eq!(reach.docker, ids(&["docker_container:pve1:abc123def456"]));
        assert_eq!(reach.lxc, ids(&["lxc:pve1:141"]));
    }

    #[test]
    fn targets_route_to_their_command_lines() {
        let cases: Vec<(&str, Vec<&str>)> = vec![
            ("host:pve1", vec!["/bin/sh", "-c", "uptime"]),
            // The node is this host too.
            ("node:pve1", vec!["/bin/sh", "-c", "uptime"]),
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
            ),
        ];
        for (target, argv) in cases {
            let invocation = invocation_for(target, &reach(), "uptime", &tag()).unwrap();
            assert_eq!(invocation.argv, argv, "{target}");
            assert_eq!(
                invocation.exec_tag.is_some(),
                argv[0] != "/bin/sh",
                "{target}"
            );
        }
    }

    #[test]
    fn everything_else_is_an_unknown_target() {
        for target in [
            "host:pve2",
            "vm:pve1:101",
            "lxc:pve1:999",
            "lxc:pve2:141",
            "docker_container:pve1:ffffffffffff",
            "docker_container:web1:abc123def456",
            "k8s_pod:pve1:default/api",
            "storage:pve1:local",
            "pve1",
            "",
            "host:",
        ] {
            let failure = invocation_for(target, &reach(), "uptime", &tag()).unwrap_err();
            assert_eq!(failure.code, ExecErrorCode::UnknownTarget, "{target}");
        }
    }

    #[test]
    fn reported_ids_that_look_like_options_are_refused() {
        let odd = [
            Resource::new(
                ResourceId::scoped(ResourceKind::DockerContainer, "h", "--privileged"),
                "x",
            ),
            Resource::new(ResourceId::scoped(ResourceKind::Lxc, "h", "-1"), "y"),
        ];
        let odd = ThisMachine::reported_by("h", &odd);
        assert!(invocation_for("docker_container:h:--privileged", &odd, "id", &tag()).is_err());
        assert!(invocation_for("lxc:h:-1", &odd, "id", &tag()).is_err());
    }
}
