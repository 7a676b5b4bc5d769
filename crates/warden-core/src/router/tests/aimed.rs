//! A command aimed at a machine runs there or nowhere; a name held by
//! resources on several machines is a question, and `on HOST` picks one.

use serde_json::json;
use warden_protocol::ControlLevel;

use super::{Outcome, World, answer, resource};
use crate::agent::Decision;
use crate::executor::snapshot_first::SnapshotPolicy;
use crate::simulated::{SimulatedHosts, StaticInventory};

/// web1 and h2, each with a `node-exporter` container; jellyfin on web1
/// only; a Proxmox node with a VM.
fn fleet() -> StaticInventory {
    StaticInventory::new(vec![
        resource("host:web1", "web1", None, json!({"systemd": true})),
        resource("host:h2", "h2", None, json!({"systemd": true})),
        resource(
            "docker_container:web1:aaa111",
            "node-exporter",
            Some("host:web1"),
            json!({}),
        ),
        resource(
            "docker_container:h2:bbb222",
            "node-exporter",
            Some("host:h2"),
            json!({}),
        ),
        resource(
            "docker_container:web1:ccc333",
            "jellyfin",
            Some("host:web1"),
            json!({}),
        ),
        resource("node:pve1", "pve1", None, json!({})),
        resource("vm:pve1:101", "media-vm", Some("node:pve1"), json!({})),
    ])
}

fn turn(message: &str, level: ControlLevel) -> Outcome {
    let inventory = fleet();
    let hosts = SimulatedHosts::new(vec![answer("", "ok\n", 0)]);
    World {
        inventory: &inventory,
        hosts: &hosts,
        guest_api: &crate::ports::NoGuestApi,
        snapshots: SnapshotPolicy::default(),
    }
    .turn(message, level, Decision::Pending, None)
}

#[test]
fn a_typed_command_runs_on_the_machine_it_names() {
    let rows: &[(&str, &str, &str)] = &[
        (
            "run cat /etc/hostname on h2",
            "host:h2",
            "cat /etc/hostname",
        ),
        ("uptime @h2", "host:h2", "uptime"),
        ("uptime on h2", "host:h2", "uptime"),
        ("uptime on @h2", "host:h2", "uptime"),
        ("on h2: uptime", "host:h2", "uptime"),
        ("@h2: cat /etc/os-release", "host:h2", "cat /etc/os-release"),
        ("df -h on web1", "host:web1", "df -h"),
        ("$ free -m on h2", "host:h2", "free -m"),
        ("run `ls /etc` on H2", "host:h2", "ls /etc"),
        ("uptime on media-vm", "vm:pve1:101", "uptime"),
        ("uptime on 101", "vm:pve1:101", "uptime"),
        ("uptime on localhost", "host:web1", "uptime"),
        (
            "dig example.com @1.1.1.1",
            "host:web1",
            "dig example.com @1.1.1.1",
        ),
    ];
    for (message, target, command) in rows {
        let out = turn(message, ControlLevel::ReadOnly);
        assert_eq!(
            out.commands,
            vec![(target.to_string(), command.to_string())],
            "{message}: {}",
            out.text
        );
    }
}

#[test]
fn a_command_aimed_at_an_unknown_name_runs_nowhere() {
    for message in [
        "uptime on nosuch",
        "run cat /etc/hostname on h3",
        "uptime @h3",
        "on h3: uptime",
        // A fuzzy match is not a machine the user named.
        "uptime on web",
        "uptime on media",
    ] {
        let out = turn(message, ControlLevel::Controlled);
        assert!(out.commands.is_empty(), "{message}: {:?}", out.commands);
        assert!(out.text.contains("ran nothing"), "{message}: {}", out.text);
        assert!(
            out.text.contains("web1, h2, pve1"),
            "{message}: {}",
            out.text
        );
    }
}

#[test]
fn with_a_model_an_unknown_target_is_still_refused_by_the_router() {
    let inventory = fleet();
    let (info, plan) = crate::router::route(&inventory, "uptime on h3", true);
    assert_eq!(info.route, "run", "{info:?}");
    assert!(
        matches!(plan, Some(crate::router::Plan::Say(ref text)) if text.contains("ran nothing")),
        "{plan:?}"
    );
}

#[test]
fn a_name_on_several_machines_is_a_question_until_on_picks_one() {
    for message in ["status of node-exporter", "restart node-exporter"] {
        let out = turn(message, ControlLevel::Controlled);
        assert!(out.commands.is_empty(), "{message}: {:?}", out.commands);
        for listed in [
            "node-exporter on web1 (docker_container:web1:aaa111)",
            "node-exporter on h2 (docker_container:h2:bbb222)",
            "on HOST",
        ] {
            assert!(out.text.contains(listed), "{message}: {}", out.text);
        }
    }
    let out = turn("status of node-exporter on h2", ControlLevel::ReadOnly);
    assert!(!out.commands.is_empty(), "{}", out.text);
    assert!(
        out.commands.iter().all(|(target, _)| target == "host:h2"),
        "{:?}",
        out.commands
    );
    assert!(out.ran("bbb222"), "{:?}", out.commands);
    let inventory = fleet();
    let (_, plan) = crate::router::route(&inventory, "restart node-exporter on h2", false);
    assert!(format!("{plan:?}").contains("uid: \"bbb222\""), "{plan:?}");
}

#[test]
fn a_name_on_another_machine_is_not_taken_for_the_one_named() {
    // jellyfin is a container on web1; "on h2" means something on h2.
    let inventory = fleet();
    let (_, plan) = crate::router::route(&inventory, "status of jellyfin on h2", false);
    let plan = format!("{plan:?}");
    assert!(!plan.contains("ccc333"), "{plan}");
    assert!(plan.contains("ServiceStatus"), "{plan}");
    assert!(plan.contains("uid: \"h2\""), "{plan}");
}
