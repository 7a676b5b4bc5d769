//! Commands for a Docker container through the agent of its host, against
//! the real Docker engine: the container shows up in the inventory, a read
//! runs inside it (`docker exec`, no TTY), and a cancel stops the process
//! inside the container, not just the local `docker` client. When the
//! engine is unreachable the test says so loudly and does not run.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::{TestServer, agent_config, enroll_agent, read, start_agent};
use warden_agent::inventory::{InventoryConfig, ProxmoxDiscovery};
use warden_infra::DockerDiscovery;
use warden_protocol::ResourceKind;
use warden_protocol::agent::{AgentFrame, CancelRequest, ExecErrorCode};

const IMAGE: &str = "warden-test-base:1";

fn engine_reachable() -> bool {
    let ok = Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("!!! DOCKER ENGINE UNREACHABLE: docker_exec did not run");
    }
    ok
}

/// Removed when dropped, even when an assertion fails.
struct Container(String);

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rm", "-f", &self.0]).output();
    }
}

/// How many processes inside the container run `sleep 31`.
fn sleeps_in(container: &str) -> usize {
    let out = Command::new("docker")
        .args([
            "exec",
            container,
            "/bin/sh",
            "-c",
            "for f in /proc/[0-9]*/cmdline; do cat $f; echo; done",
        ])
        .output()
        .unwrap();
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|line| line.windows(8).any(|w| w == b"sleep\x0031"))
        .count()
}

#[tokio::test]
async fn a_container_read_runs_inside_it_and_a_cancel_stops_it_there() {
    if !engine_reachable() {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../warden-infra/tests/support/build-test-image.sh");
    let built = Command::new("sh").arg(script).arg(IMAGE).output().unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let container = Container(format!("warden-test-agent-{}", std::process::id()));
    let run = Command::new("docker")
        .args(["run", "-d", "--name", &container.0, IMAGE])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let full_id = String::from_utf8(run.stdout).unwrap().trim().to_string();
    let short_id = &full_id[..12];

    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "dockhost", dir.path()).await;
    let mut config = agent_config(&state_dir);
    config.inventory = InventoryConfig {
        docker: DockerDiscovery::FromEnv,
        proxmox: ProxmoxDiscovery::Disabled,
        interval: Duration::from_secs(1),
    };
    let agent = start_agent(config);
    let mut conn = server.next_connection().await;
    let target = format!("docker_container:dockhost:{short_id}");
    let inventory = conn.inventory().await;
    let reported = inventory
        .iter()
        .find(|r| r.id.to_string() == target)
        .unwrap_or_else(|| panic!("{target} not in the inventory: {inventory:?}"));
    assert_eq!(reported.id.kind, ResourceKind::DockerContainer);
    assert_eq!(
        reported.parent.as_ref().unwrap().to_string(),
        "host:dockhost"
    );

    // A read inside the container: its hostname is its short id.
    let out = conn
        .exec(read("in-container", &target, "cat /etc/hostname"))
        .await;
    assert_eq!(
        out.result.exit_code,
        Some(0),
        "{:?} {}",
        out.result,
        out.stderr()
    );
    assert_eq!(out.stdout().trim(), short_id);
    assert_eq!(
        out.result.sandbox.landlock_abi, None,
        "the container's process is not in the agent's Landlock domain"
    );

    // A cancel reaches the process inside the container.
    conn.send(AgentFrame::Exec(read("long", &target, "sleep 31")));
    let mut started = false;
    for _ in 0..100 {
        if sleeps_in(&container.0) == 1 {
            started = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(started, "sleep 31 never started in the container");
    conn.send(AgentFrame::Cancel(CancelRequest {
        request_id: "long".into(),
    }));
    let out = conn.collect("long").await;
    assert_eq!(out.result.error.unwrap().code, ExecErrorCode::Cancelled);
    let mut left = usize::MAX;
    for _ in 0..60 {
        left = sleeps_in(&container.0);
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        left, 0,
        "the process inside the container outlived the cancel"
    );
    agent.stop().await.unwrap();
}
