//! Helpers shared by the tests that need a real Docker engine: whether one
//! is reachable, the locally built test image, and containers that remove
//! themselves. Each test binary uses a different subset.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // test code

pub mod image;

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use warden_infra::DockerClient;
use warden_infra::DockerError;
use warden_infra::blocking::run_blocking;

/// Whether the real engine answers, both over the API and through the
/// `docker` CLI the tests use to create containers. When it does not, says so
/// loudly (a skipped test must never look like a passed one) and returns false.
pub fn docker_engine_reachable(test: &str) -> bool {
    // Sync, so both sync tests and `#[tokio::test]`s can ask.
    let api = DockerClient::from_env().and_then(|client| {
        run_blocking(client.ping()).map_err(|source| DockerError::Runtime { source })?
    });
    let cli = Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output();
    let problem = match (&api, &cli) {
        (Err(err), _) => Some(err.to_string()),
        (Ok(()), Err(err)) => Some(format!("docker CLI: {err}")),
        (Ok(()), Ok(out)) if !out.status.success() => Some(format!(
            "docker CLI: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        (Ok(()), Ok(_)) => None,
    };
    match problem {
        None => true,
        Some(problem) => {
            eprintln!("!!! DOCKER ENGINE UNREACHABLE: {test} did not run ({problem})");
            false
        }
    }
}

/// A container this test created; removed (forcibly) when dropped, so a
/// failing assertion never leaves it behind.
pub struct TestContainer {
    pub name: String,
    pub id: String,
}

impl TestContainer {
    /// `docker run -d` (or `docker create` when `start` is false) of the test
    /// image running `sleep 300`, named `warden-test-…` and labelled with
    /// `org.warden.test.case=<case>`.
    pub fn new(case: &str, start: bool) -> TestContainer {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let image = image::test_image();
        let name = format!(
            "warden-test-{case}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        );
        let label = format!("org.warden.test.case={case}");
        let verb = if start { "run" } else { "create" };
        let mut args = vec![verb];
        if start {
            args.push("-d");
        }
        args.extend([
            "--name",
            &name,
            "--label",
            &label,
            &image,
            "/bin/sleep",
            "300",
        ]);
        let out = Command::new("docker").args(&args).output().unwrap();
        // Guard first, so even a half-created container is removed.
        let mut container = TestContainer {
            name,
            id: String::new(),
        };
        assert!(
            out.status.success(),
            "docker {verb} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        container.id = String::from_utf8(out.stdout).unwrap().trim().to_string();
        assert_eq!(container.id.len(), 64, "unexpected id {:?}", container.id);
        container
    }
}

impl Drop for TestContainer {
    fn drop(&mut self) {
        // `-f` stops it first; errors (already gone) do not matter here.
        Command::new("docker")
            .args(["rm", "-f", &self.name])
            .output()
            .ok();
    }
}
