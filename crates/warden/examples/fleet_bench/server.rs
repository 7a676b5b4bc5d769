//! A `warden serve` process on loopback (plain HTTP) for the benchmarks:
//! an admin token made offline, the fake model as its provider, the API
//! as a client calls it, and the process's resident memory.

use std::path::Path;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::Client;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use warden_testkit::http::{client_with, no_roots_tls};
use warden_testkit::serve_process::{ServeProcess, offline_token};

pub use warden_testkit::serve_process::warden;

pub struct Serve {
    process: ServeProcess,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    pub admin: String,
    pub http: Client,
    streams: Client,
}

impl Serve {
    /// `heartbeat_secs`: how often the server pings its agents.
    pub fn start(binary: &Path, dir: &Path, model_url: &str, heartbeat_secs: u64) -> Serve {
        let admin = offline_token(binary, dir, "bench", "admin");
        let mut command = warden(binary);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir)
            .args(["--agent-heartbeat-secs", &heartbeat_secs.to_string()])
            .env("WARDEN_PROVIDER", "openai")
            .env("WARDEN_BASE_URL", model_url)
            .env("WARDEN_MODEL", "test-model")
            .env("WARDEN_API_KEY", "test-key");
        let process = ServeProcess::start(command);
        Serve {
            base: process.base.clone(),
            process,
            admin,
            http: client_with(no_roots_tls(), Some(Duration::from_secs(60))),
            streams: client_with(no_roots_tls(), None),
        }
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
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
        assert!(status.is_success(), "{method} {path}: {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    pub async fn enrollment_token(&self, uses: u32) -> String {
        let body = self
            .call(
                "POST",
                "/api/agents/enrollment-tokens",
                Some(json!({"uses": uses, "expires_in_hours": 1})),
            )
            .await;
        body["token"].as_str().unwrap().to_string()
    }

    /// Waits until `count` agents are listed connected; how long it took.
    pub async fn wait_connected(&self, count: usize, within: Duration) -> Duration {
        let start = Instant::now();
        loop {
            let agents = self.call("GET", "/api/agents", None).await;
            let connected = agents
                .as_array()
                .map(|a| a.iter().filter(|a| a["connected"] == true).count())
                .unwrap_or(0);
            if connected >= count {
                return start.elapsed();
            }
            assert!(
                start.elapsed() < within,
                "only {connected} of {count} agents connected after {within:?}"
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// A new session and its event stream.
    pub async fn session(&self) -> (String, mpsc::UnboundedReceiver<Value>) {
        let session = self
            .call(
                "POST",
                "/api/sessions",
                Some(json!({"control_level": "read_only"})),
            )
            .await;
        let id = session["id"].as_str().unwrap().to_string();
        let response = self
            .streams
            .get(format!("{}/api/sessions/{id}/events", self.base))
            .bearer_auth(&self.admin)
            .send()
            .await
            .unwrap();
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut body = response.bytes_stream();
            let mut buffer = String::new();
            while let Some(Ok(bytes)) = body.next().await {
                buffer.push_str(&String::from_utf8_lossy(&bytes));
                while let Some(end) = buffer.find("\n\n") {
                    let block: String = buffer.drain(..end + 2).collect();
                    let data: String = block
                        .lines()
                        .filter_map(|l| l.strip_prefix("data:"))
                        .map(str::trim_start)
                        .collect();
                    if let Ok(event) = serde_json::from_str::<Value>(&data) {
                        if tx.send(event).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        (id, rx)
    }
}

/// Resident memory of a process, in KiB (`VmRSS` of /proc/PID/status).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// CPU time of a process and of its children it waited for, in ms
/// (`utime + stime + cutime + cstime` of /proc/PID/stat).
pub fn cpu_ms(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name may hold spaces: fields count from after its `)`.
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    // utime is field 14 of the line, the 12th after the name.
    let ticks: u64 = fields.iter().skip(11).take(4).sum();
    // USER_HZ, 100 on every Linux this runs on.
    ticks * 10
}

/// CPU time the whole machine spent busy, in ms (all cores, /proc/stat:
/// user, nice, system, irq, softirq, steal).
pub fn machine_busy_ms() -> u64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    [0, 1, 2, 5, 6, 7]
        .iter()
        .filter_map(|&i| fields.get(i))
        .sum::<u64>()
        * 10
}

pub fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}
