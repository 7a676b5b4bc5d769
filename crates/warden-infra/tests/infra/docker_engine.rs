//! DockerClient and routing against the REAL engine on this machine, with
//! containers of a locally built image (no pull) that the tests create and
//! always remove. Without a reachable engine each test says so loudly and
//! returns.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use support::image::TEST_IMAGE_TAG;
use support::{TestContainer, docker_engine_reachable};
use warden_infra::{DockerClient, DockerError, LocalExecutor, Route, command_for};
use warden_protocol::{Resource, ResourceId, ResourceKind};

#[test]
fn lists_running_and_created_containers() {
    if !docker_engine_reachable("lists_running_and_created_containers") {
        return;
    }
    let running = TestContainer::new("list", true);
    let created = TestContainer::new("list", false);
    let client = DockerClient::from_env().unwrap();
    assert!(!client.version().unwrap().api_version.is_empty());

    let containers = client.list_containers().unwrap();
    let find = |id: &str| containers.iter().find(|c| c.id == id).unwrap();
    let listed = find(&running.id);
    assert_eq!(listed.name(), Some(running.name.as_str()));
    assert_eq!(listed.state, "running");
    assert!(listed.status.starts_with("Up"), "{}", listed.status);
    assert_eq!(listed.image, TEST_IMAGE_TAG);
    assert_eq!(
        listed
            .labels
            .get("org.warden.test.case")
            .map(String::as_str),
        Some("list")
    );
    assert_eq!(listed.short_id(), &running.id[..12]);
    let listed = find(&created.id);
    assert_eq!(listed.state, "created");
}

#[test]
fn engine_errors_carry_its_message() {
    if !docker_engine_reachable("engine_errors_carry_its_message") {
        return;
    }
    let client = DockerClient::from_env().unwrap();
    let err = client
        .get("/containers/warden-test-surely-not-there/json")
        .unwrap_err();
    let DockerError::Api {
        status, message, ..
    } = &err
    else {
        panic!("expected an API error, got {err:?}");
    };
    assert_eq!(*status, 404);
    assert!(message.contains("No such container"), "{message}");
}

#[test]
fn commands_reach_a_local_container_through_docker_exec() {
    if !docker_engine_reachable("commands_reach_a_local_container_through_docker_exec") {
        return;
    }
    let container = TestContainer::new("exec", true);
    let local = ResourceId::global(ResourceKind::Host, "this-machine");
    let mut resource = Resource::new(
        ResourceId::scoped(
            ResourceKind::DockerContainer,
            "this-machine",
            &container.id[..12],
        ),
        container.name.clone(),
    );
    resource.parent = Some(local.clone());
    let exec = LocalExecutor::new();

    let routed = command_for(&resource, &local, "echo hi").unwrap();
    assert_eq!(
        routed.route,
        Route::DockerExec {
            container: container.id[..12].to_string()
        }
    );
    let out = exec.run(&routed.command).unwrap();
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, "hi\n"), "{out:?}");

    // The engine names a container's host after its short id.
    let out = exec
        .run(
            &command_for(&resource, &local, "cat /etc/hostname")
                .unwrap()
                .command,
        )
        .unwrap();
    assert_eq!(out.stdout.trim(), &container.id[..12]);

    // Quotes, substitutions and newlines arrive intact and run in the container.
    let tricky = "echo 'single' \"double\" $(echo sub)\necho \"it's\"; exit 3";
    let out = exec
        .run(&command_for(&resource, &local, tricky).unwrap().command)
        .unwrap();
    assert_eq!(out.stdout, "single double sub\nit's\n");
    assert_eq!(out.exit_code, 3);
}
