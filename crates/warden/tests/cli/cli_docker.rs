//! Warden's Docker support on this machine, for real: a container started
//! here (from an image built locally, no registry) shows up in the
//! inventory, and `warden ask` reads its status and logs and lists it.
//! When the engine is unreachable the test says so loudly and does not run.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::Path;
use std::process::Command;

const IMAGE: &str = "warden-test-base:1";

fn engine_reachable() -> bool {
    let ok = Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("!!! DOCKER ENGINE UNREACHABLE: cli_docker did not run");
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

/// Removed when dropped, even when an assertion fails.
struct Container(String);

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rm", "-f", &self.0]).output();
    }
}

fn warden(home: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .env("WARDEN_DB", home.join("w.db"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("WARDEN_PROVIDER")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_local_container_is_listed_inspected_and_its_logs_read() {
    if !engine_reachable() {
        return;
    }
    build_image();
    let name = format!("warden-test-cli-{}", std::process::id());
    let container = Container(name.clone());
    let run = Command::new("docker")
        .args([
            "run",
            "-d",
            "--name",
            &container.0,
            IMAGE,
            "/bin/sh",
            "-c",
            "echo hello-from-warden; echo second line; exec /bin/sleep 300",
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let home = tempfile::tempdir().unwrap();

    let (out, err) = warden(home.path(), &["ask", &format!("status of {name}")]);
    assert!(
        out.contains(&format!("{name} (docker_container:")),
        "{out}\n{err}"
    );
    assert!(out.contains("is running since"), "{out}\n{err}");

    let (out, err) = warden(home.path(), &["ask", &format!("logs of {name} with hello")]);
    assert!(out.contains("hello-from-warden"), "{out}\n{err}");
    assert!(!out.contains("second line"), "{out}");

    let (out, err) = warden(home.path(), &["ask", "list containers"]);
    assert!(out.contains(&name), "{out}\n{err}");

    // A read inside the container goes through `docker exec`; the image
    // has no pgrep, and the answer says so instead of guessing.
    let (out, err) = warden(
        home.path(),
        &["ask", "-v", &format!("is sleep running on {name}")],
    );
    assert!(err.contains("ran on docker_container:"), "{err}");
    assert!(out.starts_with("Unknown:"), "{out}\n{err}");
    drop(container);
}
