//! The Docker side of the fleet tests: the engine check (one loud line when
//! it is unreachable), the agent image (built locally from this build's
//! `warden` binary, once per binary), private networks and containers that
//! are removed when dropped, even when a test panics.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Every container and network the fleet tests create carries this label.
pub const LABEL: &str = "org.warden.test=fleet";

/// Whether the engine answers; says so loudly when it does not.
pub fn engine_reachable() -> bool {
    let ok = Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("!!! DOCKER ENGINE UNREACHABLE: fleet_docker did not run");
    }
    ok
}

/// `docker ARGS…`, its output whatever the status.
pub fn docker(args: &[&str]) -> Output {
    Command::new("docker").args(args).output().unwrap()
}

/// `docker ARGS…`, which must succeed; its stdout, trimmed.
pub fn docker_ok(args: &[&str]) -> String {
    let out = docker(args);
    assert!(
        out.status.success(),
        "docker {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The agent image's tag, built by `scripts/fleet/build-agent-image.sh` from
/// this test build's `warden` (nothing to do when the tag exists).
pub fn agent_image() -> String {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/fleet/build-agent-image.sh");
        let out = Command::new("sh")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_warden"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "building the agent image failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tag = String::from_utf8(out.stdout).unwrap().trim().to_string();
        assert!(tag.starts_with("warden-fleet-agent:"), "{tag}");
        tag
    })
    .clone()
}

/// Removes what earlier runs that were killed (so no Drop ran) left: the
/// labelled containers and networks whose test process is gone.
pub fn sweep_leftovers() {
    let gone = |name: &str| {
        name.strip_prefix("wfleet-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
    };
    let filter = format!("label={LABEL}");
    let containers = docker(&["ps", "-a", "--filter", &filter, "--format", "{{.Names}}"]);
    for name in String::from_utf8_lossy(&containers.stdout).split_whitespace() {
        if gone(name) {
            let _ = docker(&["rm", "-f", name]);
        }
    }
    let networks = docker(&[
        "network",
        "ls",
        "--filter",
        &filter,
        "--format",
        "{{.Name}}",
    ]);
    for name in String::from_utf8_lossy(&networks.stdout).split_whitespace() {
        if gone(name) {
            let _ = docker(&["network", "rm", name]);
        }
    }
}

/// A name no other test (or test run) uses.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "wfleet-{}-{prefix}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// An internal network (no way out but to the host), removed when dropped.
pub struct Network {
    pub name: String,
    /// The host's address on it, where the server listens.
    pub gateway: String,
}

impl Network {
    pub fn create(prefix: &str) -> Network {
        let name = unique(prefix);
        docker_ok(&["network", "create", "--internal", "--label", LABEL, &name]);
        let gateway = docker_ok(&[
            "network",
            "inspect",
            "--format",
            "{{range .IPAM.Config}}{{.Gateway}}{{end}}",
            &name,
        ]);
        assert!(!gateway.is_empty(), "network {name} has no gateway");
        Network { name, gateway }
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        // Containers still attached (a test that panicked early) first.
        let attached = docker(&[
            "network",
            "inspect",
            "--format",
            "{{range .Containers}}{{.Name}} {{end}}",
            &self.name,
        ]);
        for container in String::from_utf8_lossy(&attached.stdout).split_whitespace() {
            let _ = docker(&["network", "disconnect", "-f", &self.name, container]);
        }
        let _ = docker(&["network", "rm", &self.name]);
    }
}

/// A container running the agent image, removed when dropped; when the
/// test failed, the agent's log is printed first.
pub struct Host {
    /// The container's name.
    pub container: String,
    /// The agent's name (`host:NAME` in the inventory).
    pub name: String,
}

/// Where the agent's output goes inside the container.
const AGENT_LOG: &str = "/tmp/agent.log";
/// The exit status of `warden agent run`, once it has exited.
const AGENT_EXIT: &str = "/tmp/agent.exit";
const STATE_DIR: &str = "/var/lib/warden-agent";

impl Host {
    /// A container named after the agent, on `network`, idle.
    pub fn start(name: &str, network: &Network) -> Host {
        Host::start_with(name, network, &[])
    }

    /// As [`Host::start`], with `extra` `docker run` options.
    pub fn start_with(name: &str, network: &Network, extra: &[&str]) -> Host {
        let container = unique(name);
        let image = agent_image();
        let mut args = vec![
            "run",
            "-d",
            "--name",
            &container,
            "--hostname",
            name,
            "--label",
            LABEL,
            "--network",
            &network.name,
            "--memory",
            "256m",
        ];
        args.extend_from_slice(extra);
        args.push(&image);
        docker_ok(&args);
        Host {
            container,
            name: name.to_string(),
        }
    }

    /// `docker exec` in this container.
    pub fn exec(&self, command: &[&str]) -> Output {
        let mut args = vec!["exec", self.container.as_str()];
        args.extend_from_slice(command);
        docker(&args)
    }

    /// `warden agent enroll` inside, pinned to the server's certificate.
    pub fn enroll(&self, server_url: &str, token: &str, fingerprint: &str) {
        let out = self.exec(&[
            "warden",
            "agent",
            "enroll",
            "--server",
            server_url,
            "--token",
            token,
            "--fingerprint",
            fingerprint,
            "--state-dir",
            STATE_DIR,
            "--name",
            &self.name,
        ]);
        assert!(
            out.status.success(),
            "enrolling {} failed: {}{}",
            self.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `warden agent run` inside, in the background, with `extra` flags.
    pub fn run_agent(&self, extra: &[&str]) {
        let script = format!(
            "rm -f {AGENT_EXIT}; warden agent run --state-dir {STATE_DIR} --name {} {} >>{AGENT_LOG} 2>&1; echo $? >{AGENT_EXIT}",
            self.name,
            extra.join(" ")
        );
        docker_ok(&["exec", "-d", &self.container, "/bin/sh", "-c", &script]);
    }

    /// The exit status of `warden agent run`, once it has exited.
    pub fn agent_exit(&self) -> Option<i32> {
        let out = self.exec(&["cat", AGENT_EXIT]);
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    }

    pub fn agent_log(&self) -> String {
        let out = self.exec(&["cat", AGENT_LOG]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Whether `path` exists inside the container.
    pub fn has_file(&self, path: &str) -> bool {
        self.exec(&["ls", path]).status.success()
    }

    /// Whether a process inside runs with exactly this command line
    /// (arguments separated and ended by NUL).
    pub fn runs(&self, cmdline: &[u8]) -> bool {
        let out = self.exec(&[
            "/bin/sh",
            "-c",
            "for f in /proc/[0-9]*/cmdline; do cat $f; echo; done",
        ]);
        out.stdout
            .split(|b| *b == b'\n')
            .any(|line| line == cmdline)
    }

    pub fn disconnect(&self, network: &Network) {
        docker_ok(&["network", "disconnect", &network.name, &self.container]);
    }

    pub fn connect(&self, network: &Network) {
        docker_ok(&["network", "connect", &network.name, &self.container]);
    }

    /// `docker stop` (PID 1 is `sleep`, which ignores SIGTERM: a short grace).
    pub fn stop(&self) {
        docker_ok(&["stop", "-t", "1", &self.container]);
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "--- agent log of {} ({}):\n{}",
                self.name,
                self.container,
                self.agent_log()
            );
        }
        let _ = docker(&["rm", "-f", &self.container]);
    }
}
