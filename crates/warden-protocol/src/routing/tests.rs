use std::collections::BTreeSet;

use proptest::prelude::*;

use super::*;
use crate::{Resource, ResourceId, ResourceKind};

fn resource(id: &str, name: &str) -> Resource {
    let id: ResourceId = id.parse().unwrap();
    let mut r = Resource::new(id.clone(), name);
    // As the connectors report them: guests under their node, containers
    // under their host.
    r.parent = match (id.kind, id.host()) {
        (ResourceKind::Vm | ResourceKind::Lxc | ResourceKind::Storage, Some(h)) => {
            Some(ResourceId::global(ResourceKind::Node, h))
        }
        (ResourceKind::DockerContainer, Some(h)) => Some(ResourceId::global(ResourceKind::Host, h)),
        _ => None,
    };
    r
}

fn agent(id: &str, name: &str, presence: Presence) -> AgentFacts {
    AgentFacts {
        id: id.into(),
        name: name.into(),
        presence,
    }
}

/// One line per answer, for tables.
fn show(route: &Route) -> String {
    let hop = |hop: &Hop| match hop {
        Hop::HostShell => "shell".to_string(),
        Hop::DockerExec { container } => format!("docker exec {container}"),
        Hop::PctExec { vmid } => format!("pct exec {vmid}"),
    };
    match route {
        Route::Shell(ShellRoute {
            runner: Runner::ThisMachine,
            hop: h,
        }) => format!("here: {}", hop(h)),
        Route::Shell(ShellRoute {
            runner: Runner::Agent { agent_id, on, .. },
            hop: h,
        }) => format!("{agent_id} on {on}: {}", hop(h)),
        Route::GuestApi(ApiRoute { node, via }) => {
            let node = node
                .as_ref()
                .map_or_else(|| "cluster".to_string(), ToString::to_string);
            match via {
                ApiVia::QemuGuestAgent => format!("guest agent via {node}"),
                ApiVia::ProxmoxApi => format!("api of {node}"),
            }
        }
        Route::Unreachable(why) => format!("unreachable: {why}"),
    }
}

/// Warden's own host `here` (shell, `docker exec`, no `pct`), a server
/// with agents: on hosts, on Proxmox nodes, inside a guest (`media`), one
/// disconnected, one named like this machine.
fn server() -> RouteFacts {
    use Presence::*;
    RouteFacts {
        this_machine: ThisMachine::warden_host("here"),
        own_hosts: BTreeSet::from(["here".to_string()]),
        agents: vec![
            agent("a-web1", "web1", Connected),
            agent("a-pve1", "pve1", Connected),
            agent("a-media", "media", Connected),
            agent("a-down", "down", Disconnected),
            agent("a-pve2", "pve2", Disconnected),
            agent("a-here", "here", Connected),
        ],
    }
}

/// An agent on Proxmox node `pve1` that reported one Docker container and
/// one LXC.
fn agent_on_pve1() -> RouteFacts {
    let inventory = vec![
        resource("host:pve1", "pve1"),
        resource("docker_container:pve1:abc123def456", "web"),
        resource("lxc:pve1:141", "ct"),
        resource("vm:pve1:101", "vm"),
        resource("lxc:pve2:142", "far"),
    ];
    RouteFacts::only(ThisMachine::reported_by("pve1", &inventory))
}

fn check(backends: &RouteFacts, cases: &[(&str, &str, GuestApiService, &str)]) {
    for (id, name, guest_api, expected) in cases {
        let facts = Facts {
            backends,
            guest_api: *guest_api,
        };
        let target = resource(id, name);
        let got = show(&route(Some(&target), CallKind::Shell, &facts));
        assert_eq!(got, *expected, "{id} ({name}) with {guest_api:?}");
    }
}

#[test]
fn shell_commands_on_a_server_with_agents() {
    use GuestApiService::{NotServed as No, Serves as Api};
    let cases = [
        // Hosts, nodes and Docker hosts: this machine, else their agent.
        ("host:here", "here", No, "here: shell"),
        ("host:web1", "web1", No, "a-web1 on host:web1: shell"),
        (
            "host:down",
            "down",
            No,
            "unreachable: the agent on down is not connected",
        ),
        (
            "host:db9",
            "db9",
            No,
            "unreachable: no agent is enrolled for db9 (where host:db9 runs), and only this machine (host:here) is reachable without an agent",
        ),
        ("node:here", "here", No, "here: shell"),
        ("node:pve1", "pve1", Api, "a-pve1 on host:pve1: shell"),
        (
            "node:pve2",
            "pve2",
            Api,
            "unreachable: the agent on pve2 is not connected",
        ),
        ("docker_host:web1", "web1", No, "a-web1 on host:web1: shell"),
        ("docker_host:here", "here", No, "here: shell"),
        // Docker containers: `docker exec` by whoever runs their host.
        (
            "docker_container:here:abc123",
            "x",
            No,
            "here: docker exec abc123",
        ),
        (
            "docker_container:web1:abc123",
            "nginx",
            No,
            "a-web1 on docker_container:web1:abc123: docker exec abc123",
        ),
        (
            "docker_container:down:abc123",
            "x",
            No,
            "unreachable: the agent on down is not connected",
        ),
        (
            "docker_container:web1:--privileged",
            "x",
            No,
            "unreachable: docker_container:web1:--privileged: `--privileged` is not a container id or VMID that can be passed on safely",
        ),
        // LXCs: their own agent, else `pct exec` by their node's agent.
        (
            "lxc:pve1:141",
            "cache",
            Api,
            "a-pve1 on lxc:pve1:141: pct exec 141",
        ),
        ("lxc:pve1:142", "media", Api, "a-media on host:media: shell"),
        (
            "lxc:pve1:144",
            "down",
            No,
            "a-pve1 on lxc:pve1:144: pct exec 144",
        ),
        (
            "lxc:pve1:145",
            "here",
            No,
            "a-pve1 on lxc:pve1:145: pct exec 145",
        ),
        (
            "lxc:pve1:pwn",
            "x",
            No,
            "unreachable: lxc:pve1:pwn: `pwn` is not a container id or VMID that can be passed on safely",
        ),
        (
            "lxc:here:146",
            "x",
            No,
            "unreachable: here does not run commands inside its LXCs from here; an agent inside lxc:here:146 or on here could",
        ),
        (
            "lxc:pve2:147",
            "x",
            Api,
            "unreachable: the agent on pve2 is not connected",
        ),
        (
            "lxc:pve9:148",
            "x",
            No,
            "unreachable: no agent is enrolled for pve9 (where lxc:pve9:148 runs), and only this machine (host:here) is reachable without an agent",
        ),
        // VMs: their own agent, else the guest agent through the API.
        ("vm:pve1:101", "media", No, "a-media on host:media: shell"),
        ("vm:pve1:102", "db", Api, "guest agent via node:pve1"),
        (
            "vm:pve1:102",
            "db",
            No,
            "unreachable: vm:pve1:102 (db) has no agent of its own connected, no Proxmox API serves it, and the agent on pve1 cannot run commands inside a VM",
        ),
        ("vm:pve1:103", "down", Api, "guest agent via node:pve1"),
        ("vm:here:104", "x", Api, "guest agent via node:here"),
        ("vm:pve9:105", "x", Api, "guest agent via node:pve9"),
        // No shell of their own.
        (
            "storage:pve1:local",
            "local",
            Api,
            "unreachable: storage:pve1:local is a storage pool, which has no shell of its own: run the command on its node",
        ),
        (
            "k8s_cluster:prod",
            "prod",
            No,
            "unreachable: k8s_cluster:prod is a Kubernetes cluster: commands do not run in it (use the kubernetes tool)",
        ),
        (
            "k8s_node:prod:n1",
            "n1",
            No,
            "unreachable: k8s_node:prod:n1 is a Kubernetes node: commands do not run in it (use the kubernetes tool)",
        ),
        (
            "k8s_pod:prod:api",
            "api",
            No,
            "unreachable: k8s_pod:prod:api is a Kubernetes pod: commands do not run in it (use the kubernetes tool)",
        ),
    ];
    check(&server(), &cases);
    // Every kind has a row.
    let kinds: BTreeSet<ResourceKind> = cases
        .iter()
        .map(|(id, ..)| id.parse::<ResourceId>().unwrap().kind)
        .collect();
    assert_eq!(kinds, ResourceKind::ALL.into_iter().collect());
}

#[test]
fn a_guest_is_matched_by_alias_too() {
    let backends = server();
    let facts = Facts {
        backends: &backends,
        guest_api: GuestApiService::NotServed,
    };
    let mut guest = resource("lxc:pve1:142", "ct142");
    guest.aliases = vec!["MEDIA".into()];
    let got = route(Some(&guest), CallKind::Shell, &facts);
    assert_eq!(show(&got), "a-media on host:media: shell");
}

#[test]
fn shell_commands_on_an_agent() {
    use GuestApiService::NotServed as No;
    let cases = [
        ("host:pve1", "pve1", No, "here: shell"),
        ("node:pve1", "pve1", No, "here: shell"),
        (
            "docker_container:pve1:abc123def456",
            "web",
            No,
            "here: docker exec abc123def456",
        ),
        (
            "docker_container:pve1:ffffffffffff",
            "web",
            No,
            "unreachable: docker_container:pve1:ffffffffffff is not among the containers pve1 reported",
        ),
        ("lxc:pve1:141", "ct", No, "here: pct exec 141"),
        (
            "lxc:pve1:999",
            "ct",
            No,
            "unreachable: lxc:pve1:999 is not among the containers pve1 reported",
        ),
        (
            "lxc:pve2:142",
            "far",
            No,
            "unreachable: no agent is enrolled for pve2 (where lxc:pve2:142 runs), and only this machine (host:pve1) is reachable without an agent",
        ),
        (
            "vm:pve1:101",
            "vm",
            No,
            "unreachable: vm:pve1:101 (vm) has no agent of its own connected, no Proxmox API serves it, and the agent on pve1 cannot run commands inside a VM",
        ),
        (
            "host:pve2",
            "pve2",
            No,
            "unreachable: no agent is enrolled for pve2 (where host:pve2 runs), and only this machine (host:pve1) is reachable without an agent",
        ),
        (
            "docker_container:web1:abc123def456",
            "web",
            No,
            "unreachable: no agent is enrolled for web1 (where docker_container:web1:abc123def456 runs), and only this machine (host:pve1) is reachable without an agent",
        ),
    ];
    check(&agent_on_pve1(), &cases);
}

#[test]
fn this_machine_shadows_agents_named_like_it() {
    use GuestApiService::NotServed as No;
    // The server's inventory knows host:here (this machine, no container
    // of it) and host:db1 (another source); agents `here` and `db1` exist.
    let reported =
        |ids: &[&str]| Children::Reported(ids.iter().map(|id| id.parse().unwrap()).collect());
    let backends = RouteFacts {
        this_machine: ThisMachine {
            hosts: Machines::Named(BTreeSet::from(["here".to_string()])),
            docker: reported(&["docker_container:here:def456"]),
            lxc: Children::Nothing,
        },
        own_hosts: BTreeSet::from(["here".to_string(), "db1".to_string()]),
        agents: vec![
            agent("a-here", "here", Presence::Connected),
            agent("a-db1", "db1", Presence::Connected),
        ],
    };
    let cases = [
        ("host:here", "here", No, "here: shell"),
        (
            "docker_container:here:def456",
            "x",
            No,
            "here: docker exec def456",
        ),
        (
            "docker_container:here:abc123",
            "x",
            No,
            "unreachable: docker_container:here:abc123 is reported only by an agent named like this machine, and this machine does not know it",
        ),
        (
            "host:db1",
            "db1",
            No,
            "unreachable: host:db1 is in this machine's inventory, but commands run here only for host:here",
        ),
        (
            "lxc:pve1:1",
            "db1",
            No,
            "unreachable: no agent is enrolled for pve1 (where lxc:pve1:1 runs), and only this machine (host:here) is reachable without an agent",
        ),
    ];
    check(&backends, &cases);
}

#[test]
fn simulated_hosts_answer_for_every_machine_no_agent_serves() {
    use GuestApiService::NotServed as No;
    let backends = RouteFacts {
        this_machine: ThisMachine {
            hosts: Machines::All,
            docker: Children::Any,
            lxc: Children::Any,
        },
        own_hosts: BTreeSet::from(["here".to_string()]),
        agents: vec![
            agent("a-pve9", "pve9", Presence::Connected),
            agent("a-ct141", "ct141", Presence::Connected),
        ],
    };
    let cases = [
        ("host:here", "here", No, "here: shell"),
        ("vm:pve1:101", "web1", No, "here: shell"),
        ("lxc:pve1:141", "media-server", No, "here: pct exec 141"),
        (
            "docker_container:media-server:abc123",
            "jellyfin",
            No,
            "here: docker exec abc123",
        ),
        // Agents still serve their machines and guests.
        ("host:pve9", "pve9", No, "a-pve9 on host:pve9: shell"),
        (
            "lxc:pve9:142",
            "ct142",
            No,
            "a-pve9 on lxc:pve9:142: pct exec 142",
        ),
        ("lxc:pve9:141", "ct141", No, "a-ct141 on host:ct141: shell"),
        (
            "vm:pve9:101",
            "vm101",
            No,
            "unreachable: vm:pve9:101 (vm101) has no agent of its own connected, no Proxmox API serves it, and the agent on pve9 cannot run commands inside a VM",
        ),
        (
            "storage:pve1:local",
            "local",
            No,
            "unreachable: storage:pve1:local is a storage pool, which has no shell of its own: run the command on its node",
        ),
    ];
    check(&backends, &cases);
}

#[test]
fn a_server_whose_own_backend_runs_nothing() {
    let backends = RouteFacts::only(ThisMachine::nothing());
    let cases = [(
        "host:web1",
        "web1",
        GuestApiService::NotServed,
        "unreachable: no agent is enrolled for web1 (where host:web1 runs), and this machine runs no commands itself",
    )];
    check(&backends, &cases);
}

#[test]
fn api_actions_go_to_the_api_that_serves_them() {
    let backends = server();
    let facts = |guest_api| Facts {
        backends: &backends,
        guest_api,
    };
    let lxc = resource("lxc:pve1:141", "ct");
    let storage = resource("storage:pve2:local", "local");
    let cases: [(Option<&Resource>, GuestApiService, &str); 5] = [
        (Some(&lxc), GuestApiService::Serves, "api of node:pve1"),
        (Some(&storage), GuestApiService::Serves, "api of node:pve2"),
        (None, GuestApiService::Serves, "api of cluster"),
        (
            Some(&lxc),
            GuestApiService::NotServed,
            "unreachable: no Proxmox API is connected for lxc:pve1:141",
        ),
        (
            None,
            GuestApiService::NotServed,
            "unreachable: no Proxmox API is connected for the cluster",
        ),
    ];
    for (target, guest_api, expected) in cases {
        let got = route(target, CallKind::ApiAction, &facts(guest_api));
        assert_eq!(show(&got), expected, "{target:?} {guest_api:?}");
    }
    let none = route(None, CallKind::Shell, &facts(GuestApiService::Serves));
    assert_eq!(
        show(&none),
        "unreachable: a command needs a target to run on"
    );
}

#[test]
fn nodes_come_from_parents_then_ids() {
    let lxc = resource("lxc:pve1:141", "ct");
    assert_eq!(node_of(&lxc).to_string(), "node:pve1");
    let node = resource("node:pve2", "pve2");
    assert_eq!(node_of(&node).to_string(), "node:pve2");
    let mut moved = resource("vm:pve1:101", "vm");
    moved.parent = Some("node:pve3".parse().unwrap());
    assert_eq!(node_of(&moved).to_string(), "node:pve3");
    assert_eq!(
        machine_of(&"docker_host:web1".parse().unwrap()),
        Some("web1")
    );
    assert_eq!(machine_of(&"storage:pve1:local".parse().unwrap()), None);
}

fn kind() -> impl Strategy<Value = ResourceKind> {
    prop::sample::select(ResourceKind::ALL.to_vec())
}

fn machine_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["here", "web1", "pve1", "media", "db"]).prop_map(String::from)
}

prop_compose! {
    fn any_target()(kind in kind(), host in machine_name(), uid in prop::sample::select(vec!["141", "abc123", "--x", "media"]),
                    name in machine_name(), alias in prop::option::of(machine_name())) -> Resource {
        let id = if kind.is_scoped() {
            ResourceId::scoped(kind, host, uid)
        } else {
            ResourceId::global(kind, host)
        };
        let mut r = Resource::new(id, name);
        r.aliases = alias.into_iter().collect();
        r
    }
}

fn children() -> impl Strategy<Value = Children> {
    prop_oneof![
        Just(Children::Any),
        Just(Children::Nothing),
        prop::collection::btree_set(any_target().prop_map(|r| r.id), 0..4)
            .prop_map(Children::Reported),
    ]
}

prop_compose! {
    fn any_backends()(hosts in prop::collection::btree_set(machine_name(), 0..3),
                      everything in prop::bool::weighted(0.2),
                      extra in prop::collection::btree_set(machine_name(), 0..2),
                      docker in children(), lxc in children(),
                      agents in prop::collection::vec((machine_name(), any::<bool>()), 0..5)) -> RouteFacts {
        let own_hosts = if everything { extra } else { hosts.union(&extra).cloned().collect() };
        let hosts = if everything { Machines::All } else { Machines::Named(hosts) };
        RouteFacts {
            own_hosts,
            this_machine: ThisMachine { hosts, docker, lxc },
            agents: agents.into_iter().enumerate().map(|(i, (name, up))| AgentFacts {
                id: format!("a{i}"),
                name,
                presence: if up { Presence::Connected } else { Presence::Disconnected },
            }).collect(),
        }
    }
}

proptest! {
    /// A route never reaches a machine other than the one the resource
    /// lives on (or, for a guest, the guest itself through its own agent),
    /// never a disconnected or shadowed agent, and only enters the
    /// container the target is.
    #[test]
    fn routes_stay_on_the_resources_machine(
        target in any_target(),
        backends in any_backends(),
        serves in any::<bool>(),
    ) {
        let guest_api = if serves { GuestApiService::Serves } else { GuestApiService::NotServed };
        let facts = Facts { backends: &backends, guest_api };
        let machine = machine_of(&target.id);
        let guest = matches!(target.id.kind, ResourceKind::Vm | ResourceKind::Lxc);
        match route(Some(&target), CallKind::Shell, &facts) {
            Route::Shell(ShellRoute { runner, hop }) => {
                match &hop {
                    Hop::HostShell => {}
                    Hop::DockerExec { container } => {
                        prop_assert_eq!(target.id.kind, ResourceKind::DockerContainer);
                        prop_assert_eq!(container, &target.id.uid);
                    }
                    Hop::PctExec { vmid } => {
                        prop_assert_eq!(target.id.kind, ResourceKind::Lxc);
                        prop_assert_eq!(vmid, &target.id.uid);
                    }
                }
                match runner {
                    Runner::ThisMachine => {
                        prop_assert!(machine.is_some_and(|m| backends.this_machine.is(m)));
                        if target.id.kind == ResourceKind::Vm {
                            prop_assert_eq!(&backends.this_machine.hosts, &Machines::All);
                        }
                    }
                    Runner::Agent { agent_id, agent_name, on } => {
                        let agent = backends.agents.iter().find(|a| a.id == agent_id).unwrap();
                        prop_assert_eq!(&agent.name, &agent_name);
                        prop_assert_eq!(agent.presence, Presence::Connected);
                        prop_assert!(!backends.own_hosts.contains(&agent_name));
                        let own_agent = guest && target.is_called(&agent_name) && hop == Hop::HostShell;
                        prop_assert!(machine == Some(agent_name.as_str()) || own_agent);
                        let host = ResourceId::global(ResourceKind::Host, agent_name.as_str());
                        prop_assert!(on == target.id || on == host);
                    }
                }
            }
            Route::GuestApi(ApiRoute { node, via }) => {
                prop_assert!(serves);
                prop_assert_eq!(target.id.kind, ResourceKind::Vm);
                prop_assert_eq!(via, ApiVia::QemuGuestAgent);
                prop_assert_eq!(node, Some(node_of(&target)));
            }
            Route::Unreachable(_) => {}
        }
    }
}
