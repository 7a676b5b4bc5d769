//! A real `warden serve` process for the fleet tests: TLS with its
//! self-signed certificate (agents in containers reach it over a Docker
//! network, not loopback, so they pin its fingerprint), an admin token made
//! offline, the fake model as its provider, and a fixed port so that a
//! restart comes back where the agents look for it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use warden_testkit::http::pinned_client;
use warden_testkit::net::free_port;

/// The `warden` binary of this build, with no configuration of the host.
pub fn warden() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .env_remove("WARDEN_PROVIDER")
        .env_remove("WARDEN_CONFIG")
        .env_remove("WARDEN_DATA_DIR")
        .env_remove("DOCKER_HOST")
        .env("XDG_CONFIG_HOME", "/nonexistent-warden-test");
    command
}

/// `warden token create` on the data directory: the secret.
pub fn offline_token(dir: &Path, role: &str) -> String {
    let out = warden()
        .args(["token", "create", "--name", role, "--role", role])
        .args(["--expires", "1d", "--data-dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

pub struct Serve {
    child: Option<Child>,
    /// `https://IP:PORT`.
    pub base: String,
    /// The served certificate's SHA-256 (`AB:CD:…`).
    pub fingerprint: String,
    pub admin: String,
    pub http: Client,
    /// The same without a timeout, for event streams.
    pub streams: Client,
    dir: PathBuf,
    listen: String,
    model_url: String,
    extra: Vec<String>,
    _lines: Option<Receiver<String>>,
}

impl Serve {
    /// Starts `warden serve` on `ip` (a fresh port) with its data in `dir`
    /// and the model at `model_url`.
    pub fn start(dir: &Path, ip: &str, model_url: &str, extra: &[&str]) -> Serve {
        let admin = offline_token(dir, "admin");
        let mut serve = Serve {
            child: None,
            base: String::new(),
            fingerprint: String::new(),
            admin,
            // Pinned to the certificate once the server printed it.
            http: pinned_client("", None),
            streams: pinned_client("", None),
            dir: dir.to_path_buf(),
            listen: format!("{ip}:{}", free_port(ip)),
            model_url: model_url.to_string(),
            extra: extra.iter().map(|s| s.to_string()).collect(),
            _lines: None,
        };
        serve.launch();
        serve
    }

    fn launch(&mut self) {
        let mut child = warden()
            .args(["serve", "--tls-self-signed", "--listen", &self.listen])
            .arg("--data-dir")
            .arg(&self.dir)
            .args(&self.extra)
            .env("WARDEN_PROVIDER", "openai")
            .env("WARDEN_BASE_URL", &self.model_url)
            .env("WARDEN_MODEL", "test-model")
            .env("WARDEN_API_KEY", "test-key")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        let (mut base, mut fingerprint) = (None, None);
        while base.is_none() || fingerprint.is_none() {
            let line = rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("warden serve printed where it listens and its fingerprint");
            if let Some(rest) = line.split("listening on ").nth(1) {
                base = rest.split_whitespace().next().map(str::to_string);
            }
            if let Some(rest) = line.split("fingerprint: ").nth(1) {
                fingerprint = Some(rest.trim().to_string());
            }
        }
        self.base = base.unwrap();
        self.fingerprint = fingerprint.unwrap();
        self.http = pinned_client(&self.fingerprint, Some(Duration::from_secs(30)));
        self.streams = pinned_client(&self.fingerprint, None);
        self._lines = Some(rx);
    }

    /// SIGTERM, wait for the exit, start again on the same port and data.
    pub fn restart(&mut self) {
        self.terminate();
        self.launch();
    }

    fn terminate(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&child),
            rustix::process::Signal::TERM,
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "warden serve ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A request as the admin: status and JSON body (Null when none).
    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self
            .http
            .request(method.parse().unwrap(), format!("{}{path}", self.base))
            .bearer_auth(&self.admin);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// A fresh enrollment token good for `uses` enrollments.
    pub async fn enrollment_token(&self, uses: u32) -> String {
        let (status, body) = self
            .call(
                "POST",
                "/api/agents/enrollment-tokens",
                Some(json!({"uses": uses})),
            )
            .await;
        assert!(status.is_success(), "enrollment token: {status} {body}");
        body["token"].as_str().unwrap().to_string()
    }

    /// `GET /api/agents`.
    pub async fn agents(&self) -> Vec<Value> {
        let (status, body) = self.call("GET", "/api/agents", None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body.as_array().cloned().unwrap_or_default()
    }

    /// The agent called `name` in `GET /api/agents`.
    pub async fn agent(&self, name: &str) -> Option<Value> {
        self.agents()
            .await
            .into_iter()
            .find(|a| a["name"].as_str() == Some(name))
    }

    /// Waits until the agent called `name` is listed with `connected`.
    pub async fn wait_connected(&self, name: &str, connected: bool, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let agent = self.agent(name).await;
            if let Some(agent) = &agent {
                if agent["connected"] == connected {
                    return agent.clone();
                }
            }
            assert!(
                Instant::now() < deadline,
                "agent {name} never became connected={connected}: {agent:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `GET /api/inventory`.
    pub async fn inventory(&self) -> Vec<Value> {
        let (status, body) = self.call("GET", "/api/inventory", None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body.as_array().cloned().unwrap_or_default()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
