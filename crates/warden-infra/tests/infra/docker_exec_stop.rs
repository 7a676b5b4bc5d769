//! A command routed into a container (`docker exec`) that is cancelled or
//! times out stops inside the container too, not only the local `docker`
//! client: against the REAL engine, with containers of the locally built
//! test image. Without a reachable engine each test says so loudly and
//! returns.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use std::process::Command;
use std::time::Duration;

use support::{TestContainer, docker_engine_reachable};
use warden_infra::{ExecError, ExecOptions, LocalExecutor};
use warden_protocol::routing::{
    CallKind, Facts, GuestApiService, Hop, Route, RouteFacts, Runner, ShellRoute, ThisMachine,
    route,
};
use warden_protocol::{CancelFlag, Resource, ResourceId, ResourceKind};

/// The hop into `container` from this machine, as routing gives it.
fn hop(container: &TestContainer) -> Hop {
    let local = ResourceId::global(ResourceKind::Host, "this-machine");
    let mut resource = Resource::new(
        ResourceId::scoped(
            ResourceKind::DockerContainer,
            "this-machine",
            &container.id[..12],
        ),
        container.name.clone(),
    );
    resource.parent = Some(local);
    let backends = RouteFacts::only(ThisMachine::warden_host("this-machine"));
    let facts = Facts {
        backends: &backends,
        guest_api: GuestApiService::NotServed,
    };
    match route(Some(&resource), CallKind::Shell, &facts) {
        Route::Shell(ShellRoute {
            runner: Runner::ThisMachine,
            hop,
        }) => hop,
        other => panic!("not run here: {other:?}"),
    }
}

/// The command lines of every process in the container, as the engine
/// sees them (`docker top`), not through Warden's own tag scan.
fn processes_in(container: &TestContainer) -> Vec<String> {
    let out = Command::new("docker")
        .args(["top", &container.id, "-o", "pid,args"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .collect()
}

/// Waits (bounded) until the container runs `count` processes besides its
/// main `sleep 300`.
async fn wait_for_exec_processes(container: &TestContainer, count: usize) {
    for _ in 0..500 {
        if processes_in(container).len() > count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the exec never started: {:?}", processes_in(container));
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_cancelled_docker_exec_stops_inside_the_container() {
    if !docker_engine_reachable("a_cancelled_docker_exec_stops_inside_the_container") {
        return;
    }
    let container = TestContainer::new("exec-cancel", true);
    assert_eq!(processes_in(&container), ["/bin/sleep 300"]);
    let hop = hop(&container);
    let exec = LocalExecutor::new();
    let cancel = CancelFlag::new();
    let err = runtime().block_on(async {
        let run = exec.execute_hop(
            &hop,
            "sleep 300 & sleep 301; wait",
            exec.options(),
            Some(&cancel),
        );
        let cancel_once_running = async {
            // The wrapper, sh, sleep 300, sleep 301.
            wait_for_exec_processes(&container, 4).await;
            cancel.cancel();
        };
        tokio::join!(run, cancel_once_running).0.unwrap_err()
    });
    assert!(matches!(err, ExecError::Cancelled { .. }), "{err:?}");
    // Only the container's own main process is left: the exec's shell and
    // both sleeps (its process group) are gone.
    assert_eq!(processes_in(&container), ["/bin/sleep 300"]);
}

#[test]
fn a_timed_out_docker_exec_stops_inside_the_container_even_ignoring_term() {
    if !docker_engine_reachable(
        "a_timed_out_docker_exec_stops_inside_the_container_even_ignoring_term",
    ) {
        return;
    }
    let container = TestContainer::new("exec-timeout", true);
    let exec = LocalExecutor::with_options(
        ExecOptions::default()
            .with_timeout(Duration::from_millis(1500))
            .with_kill_grace(Duration::from_millis(500)),
    );
    // Ignoring SIGTERM inside the container: SIGKILL after the grace.
    let command = "trap '' TERM; sleep 302 & sleep 303; wait";
    // A `docker exec` typed as a plain command carries no tag: on timeout
    // the local client is stopped, the container side stays (this is why
    // LocalHosts runs routing's hop, not a command line).
    let typed = format!("docker exec {} /bin/sh -c \"{command}\"", container.id);
    let err = exec.run_with(&typed, exec.options(), None);
    assert!(matches!(err, Err(ExecError::TimedOut { .. })), "{err:?}");
    assert!(processes_in(&container).len() > 1);
    Command::new("docker")
        .args(["restart", "-t", "0", &container.id])
        .output()
        .unwrap();

    let err = runtime()
        .block_on(exec.execute_hop(&hop(&container), command, exec.options(), None))
        .unwrap_err();
    assert!(matches!(err, ExecError::TimedOut { .. }), "{err:?}");
    assert_eq!(processes_in(&container), ["/bin/sleep 300"]);
}

#[test]
fn a_finished_docker_exec_still_answers() {
    if !docker_engine_reachable("a_finished_docker_exec_still_answers") {
        return;
    }
    let container = TestContainer::new("exec-done", true);
    let exec = LocalExecutor::new();
    let command = "echo \"$0\"; echo err >&2; exit 4";
    let out = runtime()
        .block_on(exec.execute_hop(&hop(&container), command, exec.options(), None))
        .unwrap();
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str(), out.exit_code),
        ("/bin/sh\n", "err\n", 4)
    );
}
