//! DockerClient and routing against the REAL engine on this machine, with
//! containers of a locally built image (no pull) that the tests create and
//! always remove. Without a reachable engine each test says so loudly and
//! returns.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use support::image::TEST_IMAGE_TAG;
use support::{TestContainer, docker_engine_reachable};
use warden_infra::{DockerClient, DockerError, LocalExecutor};
use warden_protocol::routing::{
    CallKind, Facts, GuestApiService, Hop, Route, RouteFacts, Runner, ShellRoute, ThisMachine,
    route,
};
use warden_protocol::{Resource, ResourceId, ResourceKind};

/// The hop routing gives for `resource` from Warden's own host `local`.
fn hop_from(local: &str, resource: &Resource) -> Hop {
    let backends = RouteFacts::only(ThisMachine::warden_host(local));
    let facts = Facts {
        backends: &backends,
        guest_api: GuestApiService::NotServed,
    };
    match route(Some(resource), CallKind::Shell, &facts) {
        Route::Shell(ShellRoute {
            runner: Runner::ThisMachine,
            hop,
        }) => hop,
        other => panic!("{} is not run here: {other:?}", resource.id),
    }
}

#[tokio::test]
async fn lists_running_and_created_containers() {
    if !docker_engine_reachable("lists_running_and_created_containers") {
        return;
    }
    let running = TestContainer::new("list", true);
    let created = TestContainer::new("list", false);
    let client = DockerClient::from_env().unwrap();
    let version = client.version().await.unwrap();
    assert!(!version.api_version.is_empty());
    assert!(!version.version.is_empty());

    let containers = client.list_containers().await.unwrap();
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

/// Discovery's one request: the listing, with the version the engine's
/// headers give — the same as `GET /version` says.
#[tokio::test]
async fn the_listing_names_the_engine_as_version_does() {
    if !docker_engine_reachable("the_listing_names_the_engine_as_version_does") {
        return;
    }
    let running = TestContainer::new("listing-version", true);
    let client = DockerClient::from_env().unwrap();
    let (containers, from_headers) = client.list_containers_and_version().await.unwrap();
    assert!(containers.iter().any(|c| c.id == running.id));
    let from_headers = from_headers.expect("the engine's answer names it");
    let version = client.version().await.unwrap();
    assert_eq!(from_headers.version, version.version);
    assert_eq!(from_headers.api_version, version.api_version);
    assert_eq!(from_headers.os, version.os);
}

#[tokio::test]
async fn engine_errors_carry_its_message() {
    if !docker_engine_reachable("engine_errors_carry_its_message") {
        return;
    }
    let client = DockerClient::from_env().unwrap();
    let err = client
        .inspect_container("warden-test-surely-not-there")
        .await
        .unwrap_err();
    let DockerError::Api {
        status,
        message,
        path,
    } = &err
    else {
        panic!("expected an API error, got {err:?}");
    };
    assert_eq!(*status, 404);
    assert!(message.contains("No such container"), "{message}");
    assert_eq!(path, "/containers/warden-test-surely-not-there/json");
}

/// Inspecting by name, by short id and by the listing's `/name`: the same
/// container, as the engine describes it.
#[tokio::test]
async fn inspects_a_container_by_name_and_id() {
    if !docker_engine_reachable("inspects_a_container_by_name_and_id") {
        return;
    }
    let running = TestContainer::new("inspect", true);
    let client = DockerClient::from_env().unwrap();
    for reference in [
        running.name.clone(),
        format!("/{}", running.name),
        running.id[..12].to_string(),
    ] {
        let inspected = client.inspect_container(&reference).await.unwrap();
        assert_eq!(
            inspected.id.as_deref(),
            Some(running.id.as_str()),
            "{reference}"
        );
        let state = inspected.state.unwrap();
        assert_eq!(state.running, Some(true), "{reference}");
    }
}

/// One client, many requests at once (as discovery asks for the version and
/// the listing together): each gets its own connection and its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_share_one_client() {
    if !docker_engine_reachable("concurrent_requests_share_one_client") {
        return;
    }
    let client = DockerClient::from_env().unwrap();
    let requests = (0..8).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.version().await.map(|v| v.api_version) })
    });
    let mut versions = Vec::new();
    for request in requests {
        versions.push(request.await.unwrap().unwrap());
    }
    versions.dedup();
    assert_eq!(versions.len(), 1, "{versions:?}");
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

    let hop = hop_from("this-machine", &resource);
    assert_eq!(
        hop,
        Hop::DockerExec {
            container: container.id[..12].to_string()
        }
    );
    let out = exec.run_hop(&hop, "echo hi").unwrap();
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, "hi\n"), "{out:?}");

    // The engine names a container's host after its short id.
    let out = exec.run_hop(&hop, "cat /etc/hostname").unwrap();
    assert_eq!(out.stdout.trim(), &container.id[..12]);

    // Quotes, substitutions and newlines arrive intact and run in the container.
    let tricky = "echo 'single' \"double\" $(echo sub)\necho \"it's\"; exit 3";
    let out = exec.run_hop(&hop, tricky).unwrap();
    assert_eq!(out.stdout, "single double sub\nit's\n");
    assert_eq!(out.exit_code, 3);
}
