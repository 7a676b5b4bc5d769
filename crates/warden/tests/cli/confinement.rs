//! Warden's own secrets through the real `warden serve` on this machine
//! (issue 17 §1): an operator asks the router to run reads and writes of
//! the data directory and of Warden's process in every common spelling;
//! each is refused with `PROTECTED_PATH` naming the rule, or — for what the
//! policy cannot see (a recursive grep over a parent directory) — runs
//! where the secrets are hidden. Nothing the session, the stream or the
//! audit keeps holds the one-time admin password or a password hash.

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use warden_testkit::http;
use warden_testkit::serve_process::{self, ServeProcess};

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_warden"))
}

async fn call(
    client: &Client,
    serve: &ServeProcess,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = client
        .request(method.parse().unwrap(), serve.url(path))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

struct Server {
    serve: ServeProcess,
    http: Client,
    operator: String,
    admin: String,
}

impl Server {
    /// Runs `command` through the router as the operator (an admin approves
    /// a write) and returns the audit codes of the session's tool calls (an
    /// admission, then the outcome) and everything the session kept.
    async fn run(&self, command: &str) -> (Vec<String>, String) {
        self.say(&format!("run {command}")).await
    }

    /// Sends `text` in a new session as the operator; as [`Server::run`].
    async fn say(&self, text: &str) -> (Vec<String>, String) {
        let (status, session) = call(
            &self.http,
            &self.serve,
            &self.operator,
            "POST",
            "/api/sessions",
            Some(json!({})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{session}");
        let id = session["id"].as_str().unwrap().to_string();
        let (status, body) = call(
            &self.http,
            &self.serve,
            &self.operator,
            "POST",
            &format!("/api/sessions/{id}/messages"),
            Some(json!({ "text": text })),
        )
        .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        let deadline = Instant::now() + Duration::from_secs(30);
        let detail = loop {
            let (_, detail) = call(
                &self.http,
                &self.serve,
                &self.operator,
                "GET",
                &format!("/api/sessions/{id}"),
                None,
            )
            .await;
            match detail["state"].as_str() {
                Some("idle") if detail["messages"].as_array().is_some_and(|m| m.len() >= 2) => {
                    break detail;
                }
                Some("waiting_approval") => self.approve_pending(&id).await,
                _ => {}
            }
            assert!(Instant::now() < deadline, "`{text}` never ended: {detail}");
            tokio::time::sleep(Duration::from_millis(30)).await;
        };
        let (_, audit) = call(
            &self.http,
            &self.serve,
            &self.admin,
            "GET",
            "/api/audit?limit=1000",
            None,
        )
        .await;
        let records: Vec<&Value> = audit
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["session_id"] == id.as_str() && r["command"].is_string())
            .collect();
        let codes = records
            .iter()
            .map(|r| r["code"].as_str().unwrap_or("ok").to_string())
            .collect();
        let events = self.events(&id).await;
        let kept = format!("{detail}\n{}\n{events}", json!(records));
        (codes, kept)
    }

    async fn approve_pending(&self, session: &str) {
        let (_, pending) = call(
            &self.http,
            &self.serve,
            &self.admin,
            "GET",
            "/api/approvals?state=pending",
            None,
        )
        .await;
        for approval in pending.as_array().into_iter().flatten() {
            if approval["session_id"] == session {
                let id = approval["id"].as_str().unwrap();
                call(
                    &self.http,
                    &self.serve,
                    &self.admin,
                    "POST",
                    &format!("/api/approvals/{id}/approve"),
                    Some(json!({})),
                )
                .await;
            }
        }
    }

    /// The session's event stream as replayed after the turn.
    async fn events(&self, session: &str) -> String {
        let response = self
            .http
            .get(self.serve.url(&format!("/api/sessions/{session}/events")))
            .bearer_auth(&self.operator)
            .header("Last-Event-ID", "0")
            .send()
            .await
            .unwrap();
        let mut body = response;
        let mut text = String::new();
        // The replayed events arrive at once; the stream then stays open.
        while let Ok(Ok(Some(chunk))) =
            tokio::time::timeout(Duration::from_millis(500), body.chunk()).await
        {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        text
    }
}

#[tokio::test]
async fn protected_paths_in_every_spelling_are_refused_or_hidden() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let mut command = serve_process::warden(binary());
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data);
    let serve = ServeProcess::start(command);
    let password = std::fs::read_to_string(data.join("admin-password"))
        .unwrap()
        .trim()
        .to_string();
    assert!(password.len() >= 12, "{password}");
    let http = http::client_with(http::no_roots_tls(), Some(Duration::from_secs(30)));
    let (_, health) = call(&http, &serve, "", "GET", "/api/health", None).await;
    let mode = health["confinement"].as_str().unwrap().to_string();
    assert!(
        mode == "namespaces" || mode == "policy_only",
        "the binary launches its commands confined: {health}"
    );
    let server = Server {
        operator: serve_process::offline_token(binary(), &data, "op", "operator"),
        admin: serve_process::offline_token(binary(), &data, "boss", "admin"),
        serve,
        http,
    };
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&data, &link).unwrap();
    let d = data.display().to_string();
    let l = link.display().to_string();
    let pid = server.serve.pid();
    let refused = [
        format!("cat {d}/admin-password"),
        format!("base64 {d}/admin-password"),
        format!("xxd -p {d}/admin-password"),
        format!("rev {d}/admin-password"),
        format!("cut -c1-200 {d}/admin-password"),
        format!("tail -c 100 {d}/admin-password"),
        format!("sqlite3 -readonly {d}/warden.db 'select username, password_hash from users'"),
        format!("strings {d}/warden.db"),
        format!("strings {d}/warden.db-wal"),
        format!("grep -r . {d}"),
        format!("cd {d} && cat admin-password"),
        format!("cat {l}/admin-password"),
        format!("cat {d}/admin-pass*"),
        format!("cat {d}/../data/./admin-password"),
        format!("cat /proc/{pid}/environ"),
        format!("strings /proc/{pid}/cmdline"),
        "cat /proc/*/environ".to_string(),
    ];
    let mut failures = Vec::new();
    for command in &refused {
        let (codes, kept) = server.run(command).await;
        if codes.last().map(String::as_str) != Some("PROTECTED_PATH") {
            failures.push(format!(
                "`{command}`: expected PROTECTED_PATH, got {codes:?}"
            ));
        }
        if !kept.contains("rule protected-") {
            failures.push(format!("`{command}`: the refusal does not name its rule"));
        }
        if kept.contains(&password) || kept.contains("$argon2") {
            failures.push(format!("`{command}`: a secret reached the session"));
        }
    }
    // What the policy cannot see: a recursive read of a parent directory.
    let parent = root.path().display();
    let (codes, kept) = server.run(&format!("grep -rs {password} {parent}")).await;
    match mode.as_str() {
        // Runs, where the data directory is empty: nothing found (exit 1).
        "namespaces" => assert_eq!(codes.last().unwrap(), "EXECUTION_FAILED", "{kept}"),
        _ => assert_eq!(codes.last().unwrap(), "PROTECTED_PATH", "{kept}"),
    }
    assert!(
        !kept.contains(&format!("admin-password:{password}")),
        "the recursive grep found the password: {kept}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Writes the policy lets through only with approval (a copy to standard
/// output, an archive to standard output) and a configuration file that
/// holds the model's API key: refused after the approval, when they would
/// run, and the key never reaches the session.
#[tokio::test]
async fn approved_writes_and_a_secret_bearing_config_file_are_refused() {
    use warden_testkit::model::{FakeModel, Turn, Wire};
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let model = FakeModel::start(Wire::OpenAi);
    let key = "sk-confinement-test-key-0123456789abcdef";
    let config = root.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[provider]\nkind = \"openai\"\nbase_url = \"{}/v1\"\napi_key = \"{key}\"\nmodel = \"test-model\"\nmax_retries = 0\n",
            model.url()
        ),
    )
    .unwrap();
    let host = format!(
        "host:{}",
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap()
            .trim()
    );
    let d = data.display().to_string();
    let c = config.display().to_string();
    let steps = |tool: &str, action: &str, command: String| {
        vec![
            Turn::call("query", json!({"action": "get", "target": host})),
            Turn::call(
                tool,
                json!({"action": action, "target": host, "command": command}),
            ),
            Turn::text("done"),
        ]
    };
    model.script(
        "zq copy",
        steps(
            "control",
            "command",
            format!("cp {d}/admin-password /dev/stdout"),
        ),
    );
    model.script(
        "zq archive",
        steps("control", "command", format!("tar -cf - -C {d} .")),
    );
    model.script("zq config", steps("read", "exec", format!("cat {c}")));
    model.script(
        "zq encoded",
        steps("read", "exec", format!("base64 -w0 {c}")),
    );
    let mut command = serve_process::warden(binary());
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .arg("--config")
        .arg(&config);
    let serve = ServeProcess::start(command);
    let server = Server {
        operator: serve_process::offline_token(binary(), &data, "op", "operator"),
        admin: serve_process::offline_token(binary(), &data, "boss", "admin"),
        serve,
        http: http::client_with(http::no_roots_tls(), Some(Duration::from_secs(30))),
    };
    let mut failures = Vec::new();
    for message in ["zq copy", "zq archive", "zq config", "zq encoded"] {
        let (codes, kept) = server.say(message).await;
        if codes.last().map(String::as_str) != Some("PROTECTED_PATH") {
            failures.push(format!("{message}: expected PROTECTED_PATH, got {codes:?}"));
        }
        if kept.contains(key) {
            failures.push(format!("{message}: the API key reached the session"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
