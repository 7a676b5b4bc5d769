//! A real `fakepve` server (a stateful fake of the PVE 8/9 API, installed
//! from PyPI into `target/fakepve-venv` by `scripts/fakepve/setup.sh`),
//! started per test on a free loopback port through
//! `scripts/fakepve/launch.py`, and killed when dropped. Faults are caused
//! through the launcher's control endpoint.
//!
//! When the venv is missing it is set up first; if that fails the test
//! fails with the reason (it never passes silently).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // test code

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use warden_infra::proxmox::{ProxmoxCluster, ProxmoxConfig};

pub const TOKEN_ID: &str = "warden@pve!ops";
pub const TOKEN_SECRET: &str = "5b0c7a1e-1111-4222-8333-944455556666";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn venv_dir() -> PathBuf {
    std::env::var_os("WARDEN_FAKEPVE_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/fakepve-venv"))
}

fn venv_works(python: &Path) -> bool {
    std::process::Command::new(python)
        .args(["-c", "import fakepve, cryptography"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The venv's python, setting the venv up (once per test process) if needed.
pub fn python() -> PathBuf {
    static SETUP: Mutex<()> = Mutex::new(());
    let _guard = SETUP.lock().unwrap_or_else(|p| p.into_inner());
    let venv = venv_dir();
    let python = venv.join("bin/python");
    if venv_works(&python) {
        return python;
    }
    let script = repo_root().join("scripts/fakepve/setup.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg(&venv)
        .output()
        .unwrap_or_else(|e| panic!("!!! cannot run {}: {e}", script.display()));
    assert!(
        out.status.success() && venv_works(&python),
        "!!! fakepve setup failed ({}); the Proxmox tests need it (PyPI reachable, python3 with venv):\n{}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    python
}

/// How the fake starts.
#[derive(Debug, Clone)]
pub struct FakeOptions {
    pub generate: usize,
    pub nodes: usize,
    /// Real seconds per PVE second (0: tasks finish before the request returns).
    pub time_scale: f64,
}

impl Default for FakeOptions {
    fn default() -> Self {
        FakeOptions {
            generate: 0,
            nodes: 1,
            time_scale: 0.0,
        }
    }
}

/// A running fake. Killed on drop.
pub struct FakePve {
    child: Child,
    pub url: String,
    pub control_url: String,
    /// SHA-256 of the served certificate, `AB:CD:…`, computed by the launcher.
    pub fingerprint: String,
    pub ca_file: PathBuf,
    _cert_dir: tempfile::TempDir,
    http: reqwest::Client,
}

impl FakePve {
    pub async fn start(options: FakeOptions) -> FakePve {
        let python = python();
        let cert_dir = tempfile::tempdir().unwrap();
        let launcher = repo_root().join("scripts/fakepve/launch.py");
        let mut child = Command::new(&python)
            .arg(&launcher)
            .arg("--token")
            .arg(format!("{TOKEN_ID}={TOKEN_SECRET}"))
            .args(["--generate", &options.generate.to_string()])
            .args(["--nodes", &options.nodes.to_string()])
            .args(["--time-scale", &options.time_scale.to_string()])
            .arg("--cert-dir")
            .arg(cert_dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("!!! cannot start {}: {e}", launcher.display()));
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("!!! fakepve did not report ready within 60 s")
            .unwrap()
            .expect("!!! fakepve exited before it was ready (see its stderr above)");
        let ready: Value = serde_json::from_str(&line).unwrap();
        FakePve {
            child,
            url: ready["url"].as_str().unwrap().to_string(),
            control_url: ready["control"].as_str().unwrap().to_string(),
            fingerprint: ready["fingerprint"].as_str().unwrap().to_string(),
            ca_file: PathBuf::from(ready["ca_file"].as_str().unwrap()),
            _cert_dir: cert_dir,
            http: control_client(),
        }
    }

    /// One control op (`{"op": …}`); panics with the fake's reason if it fails.
    pub async fn control(&self, body: Value) -> Value {
        let answer: Value = self
            .http
            .post(&self.control_url)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["ok"], true, "fakepve control {body}: {answer}");
        answer["result"].clone()
    }

    pub async fn add_vm(&self, vmid: u32, name: &str, status: &str) {
        self.control(json!({"op": "add_vm", "vmid": vmid, "name": name, "status": status}))
            .await;
    }

    pub async fn add_ct(&self, vmid: u32, name: &str, status: &str) {
        self.control(json!({"op": "add_ct", "vmid": vmid, "name": name, "status": status}))
            .await;
    }

    pub async fn set(&self, vmid: u32, attrs: Value) {
        self.control(json!({"op": "set", "vmid": vmid, "attrs": attrs}))
            .await;
    }

    /// `[method, path]` of every API request the fake has seen.
    pub async fn requests(&self) -> Vec<(String, String)> {
        let list = self.control(json!({"op": "requests"})).await;
        list.as_array()
            .unwrap()
            .iter()
            .map(|pair| {
                (
                    pair[0].as_str().unwrap().to_string(),
                    pair[1].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// A config for this fake, pinned to its certificate, secret inline.
    pub fn config(&self) -> ProxmoxConfig {
        ProxmoxConfig {
            name: "fake".into(),
            url: self.url.clone(),
            token_id: TOKEN_ID.into(),
            token_secret_env: None,
            token_secret: Some(TOKEN_SECRET.into()),
            fingerprint: Some(self.fingerprint.clone()),
            ca_file: None,
            insecure: false,
            refresh_interval_secs: None,
        }
    }

    pub fn cluster(&self) -> ProxmoxCluster {
        ProxmoxCluster::from_config(&self.config()).unwrap()
    }

    pub fn cluster_with(&self, config: &ProxmoxConfig) -> ProxmoxCluster {
        ProxmoxCluster::from_config(config).unwrap()
    }
}

/// A plain-HTTP client for the control endpoint. reqwest is built without
/// a default crypto provider, so even this one gets an explicit (ring) TLS setup.
fn control_client() -> reqwest::Client {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .unwrap()
}

impl Drop for FakePve {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}
