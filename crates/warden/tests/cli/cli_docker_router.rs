//! Containers are containers, through `warden ask` against the real engine
//! (containers from an image built locally, no registry): logs come back in
//! time order with stdout and stderr interleaved, "since" is applied, a
//! quoted filter is the filter, and a container's memory and CPU come from
//! the engine with its own limits. When the engine is unreachable each test
//! says so loudly and does not run.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const IMAGE: &str = "warden-test-base:1";

fn engine_reachable(test: &str) -> bool {
    let ok = Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("!!! DOCKER ENGINE UNREACHABLE: {test} did not run");
    }
    ok
}

/// Built from this machine's own binaries by the infra tests' script.
fn build_image() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../warden-infra/tests/support/build-test-image.sh");
    let out = Command::new("sh").arg(script).arg(IMAGE).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A running container of the test image; removed when dropped, even when
/// an assertion fails.
struct Container(String);

impl Container {
    fn run(case: &str, options: &[&str], script: &str) -> Container {
        build_image();
        let name = format!("warden-test-router-{case}-{}", std::process::id());
        let container = Container(name.clone());
        let mut args = vec!["run", "-d", "--name", &name];
        args.extend(options);
        args.extend([IMAGE, "/bin/sh", "-c", script]);
        let out = Command::new("docker").args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        container
    }

    /// Waits until the container's log (both streams) contains `text`.
    fn wait_for_log(&self, text: &str) {
        let started = Instant::now();
        loop {
            let out = Command::new("docker")
                .args(["logs", &self.0])
                .output()
                .unwrap();
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            if all.contains(text) {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{text} never logged"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rm", "-f", &self.0]).output();
    }
}

fn warden_ask(home: &Path, request: &str) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["ask", "-v", request])
        .env("WARDEN_DB", home.join("w.db"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("WARDEN_PROVIDER")
        .env_remove("WARDEN_MODEL")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Where each of `needles` first occurs in `text`, in order.
fn positions(text: &str, needles: &[&str]) -> Vec<usize> {
    needles
        .iter()
        .map(|n| {
            text.find(n)
                .unwrap_or_else(|| panic!("`{n}` missing from:\n{text}"))
        })
        .collect()
}

#[test]
fn container_logs_interleave_stdout_and_stderr_in_time_order() {
    if !engine_reachable("container_logs_interleave_stdout_and_stderr_in_time_order") {
        return;
    }
    let c = Container::run(
        "order",
        &[],
        "echo out-1; sleep 0.2; echo err-2 >&2; sleep 0.2; echo out-3; sleep 0.2; echo err-4 >&2; echo ready; exec /bin/sleep 300",
    );
    c.wait_for_log("ready");
    let home = tempfile::tempdir().unwrap();
    let (out, err) = warden_ask(home.path(), &format!("logs of {}", c.0));
    assert!(err.contains("docker logs --timestamps"), "{err}");
    let at = positions(&out, &["out-1", "err-2", "out-3", "err-4"]);
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "not in time order:\n{out}"
    );
    assert!(out.contains("stdout and stderr in time order"), "{out}");
}

#[test]
fn container_logs_since_and_a_quoted_filter() {
    if !engine_reachable("container_logs_since_and_a_quoted_filter") {
        return;
    }
    let c = Container::run(
        "since",
        &[],
        "echo old Timeout line; echo old other line; sleep 6; echo new Timeout line; echo new other line; echo ready; exec /bin/sleep 300",
    );
    c.wait_for_log("ready");
    let home = tempfile::tempdir().unwrap();
    // Only the last 4 seconds: the lines logged 6 seconds earlier are out.
    let (out, err) = warden_ask(home.path(), &format!("logs of {} since 4s", c.0));
    assert!(err.contains("--since '4s'"), "{err}");
    assert!(
        out.contains("new Timeout line") && out.contains("new other line"),
        "{out}\n{err}"
    );
    assert!(!out.contains("old Timeout line"), "{out}");
    // A quoted filter (case-insensitive), with the window after it.
    let (out, err) = warden_ask(
        home.path(),
        &format!("{} logs with \"timeout\" since 1h", c.0),
    );
    assert!(err.contains("--since '1h'"), "{err}");
    let at = positions(&out, &["old Timeout line", "new Timeout line"]);
    assert!(at[0] < at[1], "{out}");
    assert!(!out.contains("other line"), "{out}");
    assert!(out.contains("matching \"timeout\""), "{out}");
}

#[test]
fn container_memory_and_cpu_come_from_the_engine_with_its_limits() {
    if !engine_reachable("container_memory_and_cpu_come_from_the_engine_with_its_limits") {
        return;
    }
    let c = Container::run(
        "stats",
        &["--memory", "64m", "--cpus", "0.5"],
        "echo ready; exec /bin/sleep 300",
    );
    c.wait_for_log("ready");
    let home = tempfile::tempdir().unwrap();
    let (out, err) = warden_ask(home.path(), &format!("memory of {}", c.0));
    assert!(err.contains("docker stats --no-stream"), "{err}");
    assert!(!err.contains("/proc/meminfo"), "{err}");
    assert!(out.contains("of its 64.0 MiB limit"), "{out}\n{err}");
    assert!(out.contains("limited to 0.5 cores"), "{out}");
    assert!(!out.contains("Memory on"), "{out}");
    let (out, _) = warden_ask(home.path(), &format!("cpu usage of {}", c.0));
    assert!(
        out.contains("cpu: ") && out.contains("limited to 0.5 cores"),
        "{out}"
    );
}
