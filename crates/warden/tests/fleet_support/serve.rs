//! A real `warden serve` process for the fleet tests: TLS with its
//! self-signed certificate (agents in containers reach it over a Docker
//! network, not loopback, so they pin its fingerprint), an admin token made
//! offline, the fake model as its provider, and a fixed port so that a
//! restart comes back where the agents look for it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use warden_testkit::http::pinned_client;
use warden_testkit::net::free_port;
use warden_testkit::serve_process::{ServeProcess, offline_token, warden};

/// The `warden` binary of this build.
fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_warden"))
}

pub struct Serve {
    process: Option<ServeProcess>,
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
}

impl Serve {
    /// Starts `warden serve` on `ip` (a fresh port) with its data in `dir`
    /// and the model at `model_url`.
    pub fn start(dir: &Path, ip: &str, model_url: &str, extra: &[&str]) -> Serve {
        let admin = offline_token(binary(), dir, "admin", "admin");
        let mut serve = Serve {
            process: None,
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
        };
        serve.launch();
        serve
    }

    fn launch(&mut self) {
        let mut command = warden(binary());
        command
            .args(["serve", "--tls-self-signed", "--listen", &self.listen])
            .arg("--data-dir")
            .arg(&self.dir)
            .args(&self.extra)
            .env("WARDEN_PROVIDER", "openai")
            .env("WARDEN_BASE_URL", &self.model_url)
            .env("WARDEN_MODEL", "test-model")
            .env("WARDEN_API_KEY", "test-key");
        let mut process = ServeProcess::start(command);
        self.fingerprint = process
            .wait_line_after("fingerprint: ", Duration::from_secs(30))
            .expect("warden serve printed its certificate's fingerprint");
        self.base = process.base.clone();
        self.http = pinned_client(&self.fingerprint, Some(Duration::from_secs(30)));
        self.streams = pinned_client(&self.fingerprint, None);
        self.process = Some(process);
    }

    /// SIGTERM, wait for the exit, start again on the same port and data.
    pub fn restart(&mut self) {
        self.terminate();
        self.launch();
    }

    fn terminate(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.terminate();
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
