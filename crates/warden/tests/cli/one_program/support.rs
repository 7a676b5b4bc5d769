//! Both front ends as a user runs them: `warden ask --config F --json` and
//! `warden serve --config F` driven through its API (a session, a message,
//! the event stream until `done`), each with a fake model of its own, and
//! what each run shows: the turn's events, the model's requests, the exit.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use warden_testkit::model::{FakeModel, Recorded, Reply, Wire, sse_data};
use warden_testkit::serve_process::ServeProcess;

/// The `warden` binary of this build, with nothing of the host's
/// configuration and its data in `home`.
pub fn warden(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    for (name, _) in std::env::vars() {
        if name.starts_with("WARDEN_") {
            command.env_remove(name);
        }
    }
    command
        .env_remove("DOCKER_HOST")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .stdin(Stdio::null());
    command
}

/// One OpenAI-compatible stream chunk.
fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    .to_string()
}

/// A usage-only chunk, as OpenAI sends it last.
fn usage_chunk(input: u64, output: u64) -> String {
    json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [], "usage": {"prompt_tokens": input, "completion_tokens": output}})
    .to_string()
}

/// The model answers `text`.
pub fn says(text: &str) -> Reply {
    Reply::sse([sse_data(&[
        &chunk(json!({"content": text}), None),
        &chunk(json!({}), Some("stop")),
        "[DONE]",
    ])])
}

/// The model answers `text`, reporting `input` and `output` tokens.
pub fn says_with_usage(text: &str, input: u64, output: u64) -> Reply {
    Reply::sse([sse_data(&[
        &chunk(json!({"content": text}), None),
        &chunk(json!({}), Some("stop")),
        &usage_chunk(input, output),
        "[DONE]",
    ])])
}

/// The model proposes one call of `tool` with `arguments`.
pub fn calls(tool: &str, arguments: Value) -> Reply {
    calls_with_usage(tool, arguments, 0, 0)
}

/// The same, reporting tokens.
pub fn calls_with_usage(tool: &str, arguments: Value, input: u64, output: u64) -> Reply {
    let call = json!({"tool_calls": [{"index": 0, "id": "call-1", "type": "function",
        "function": {"name": tool, "arguments": arguments.to_string()}}]});
    let mut events = vec![chunk(call, None), chunk(json!({}), Some("tool_calls"))];
    if input + output > 0 {
        events.push(usage_chunk(input, output));
    }
    events.push("[DONE]".to_string());
    let refs: Vec<&str> = events.iter().map(String::as_str).collect();
    Reply::sse([sse_data(&refs)])
}

/// A content delta as one SSE event (for trickling streams).
pub fn content_event(text: &str) -> String {
    sse_data(&[&chunk(json!({"content": text}), None)])
}

/// What happens when the model is first asked (a test changing the world
/// while the turn runs).
pub type Hook = std::sync::Arc<dyn Fn(&crate::one_program::keys::Context) + Send + Sync>;

/// What the model plays in one run: replies in order, then `fallback`.
#[derive(Clone)]
pub struct Script {
    pub replies: Vec<Reply>,
    pub fallback: Option<Reply>,
    pub on_first_request: Option<Hook>,
}

impl Script {
    pub fn of(replies: Vec<Reply>) -> Script {
        Script {
            replies,
            fallback: None,
            on_first_request: None,
        }
    }

    pub fn forever(reply: Reply) -> Script {
        Script {
            replies: Vec::new(),
            fallback: Some(reply),
            on_first_request: None,
        }
    }

    fn start(&self, context: &Arc<crate::one_program::keys::Context>) -> Arc<FakeModel> {
        let model = Arc::new(FakeModel::start(Wire::OpenAi));
        for reply in &self.replies {
            model.queue(reply.clone());
        }
        if let Some(fallback) = &self.fallback {
            model.set_fallback(fallback.clone());
        }
        if let Some(hook) = self.on_first_request.clone() {
            let (model, context) = (Arc::clone(&model), Arc::clone(context));
            std::thread::spawn(move || {
                let deadline = Instant::now() + Duration::from_secs(60);
                while model.requests().is_empty() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(20));
                }
                hook(&context);
            });
        }
        model
    }
}

/// The fake model of `script`, for a test that runs `warden` itself.
pub fn start_model(
    script: &Script,
    context: &Arc<crate::one_program::keys::Context>,
) -> Arc<FakeModel> {
    script.start(context)
}

/// A loopback address that accepts no more connections (its listen queue
/// is full and nobody accepts): connecting there hangs until the client
/// gives up. Kept for the life of the test process.
fn unanswered_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut held = Vec::new();
    for _ in 0..2000 {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(300)) {
            Ok(stream) => held.push(stream),
            Err(_) => break,
        }
    }
    std::mem::forget((listener, held));
    format!("http://{addr}")
}

/// What one front end showed of one turn.
#[derive(Debug)]
pub struct Observed {
    /// `ask` or `serve`.
    pub front_end: &'static str,
    /// The turn's events, `turn_start` to `done` (the envelope's fields
    /// included).
    pub events: Vec<Value>,
    pub requests: Vec<Recorded>,
    /// `ask`'s exit code (none for a server).
    #[allow(dead_code)] // not every check looks at it
    pub exit: Option<i32>,
    pub stderr: String,
    pub elapsed: Duration,
    /// Where the run kept its data (the home of `ask`, the data directory
    /// of `serve`).
    pub dir: PathBuf,
    /// The session the turn ran in.
    pub session: String,
}

impl Observed {
    pub fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == kind).collect()
    }

    pub fn error_codes(&self) -> Vec<String> {
        self.of_type("error")
            .iter()
            .filter_map(|e| e["code"].as_str().map(str::to_string))
            .collect()
    }

    pub fn done(&self) -> &Value {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == "done")
            .unwrap_or(&Value::Null)
    }
}

/// A config file in `dir` with `text`, where `{model}` is the fake model's
/// URL and `{dir}` the directory.
fn write_config(dir: &Path, text: &str, model_url: &str) -> PathBuf {
    let path = dir.join("config.toml");
    let mut text = text
        .replace("{model}", model_url)
        .replace("{dir}", &dir.display().to_string());
    if text.contains("{unanswered}") {
        text = text.replace("{unanswered}", &unanswered_url());
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// `warden ask --config F --json TEXT` with `env` added.
pub fn ask(
    config: &str,
    script: &Script,
    text: &str,
    env: &[(&str, &str)],
    context: &Arc<crate::one_program::keys::Context>,
) -> Observed {
    let dir = tempfile::tempdir().unwrap().keep();
    let model = script.start(context);
    let path = write_config(&dir, config, &model.url());
    let started = Instant::now();
    let out = warden(&dir)
        .args(["ask", "--json", "--config"])
        .arg(&path)
        .arg(text)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let session = events
        .first()
        .and_then(|e| e["session_id"].as_str())
        .unwrap_or_default()
        .to_string();
    Observed {
        front_end: "ask",
        events,
        requests: model.requests(),
        exit: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
        dir,
        session,
    }
}

/// A token with `role`, made offline on the data directory, in the
/// database `config` names (as `warden serve --config` uses it).
pub fn offline_token(dir: &Path, config: &Path, role: &str, env: &[(&str, &str)]) -> String {
    let out = warden(dir)
        .args([
            "token",
            "create",
            "--name",
            role,
            "--role",
            role,
            "--data-dir",
        ])
        .arg(dir)
        .arg("--config")
        .arg(config)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A `warden serve` on a loopback port with an admin token.
pub struct Serve {
    process: ServeProcess,
    pub base: String,
    pub token: String,
    pub dir: PathBuf,
}

impl Serve {
    /// A server with `config` (its `{model}` the fake model of `script`),
    /// its data in a fresh directory.
    pub fn with_model(
        config: &str,
        script: &Script,
        context: &Arc<crate::one_program::keys::Context>,
    ) -> (Serve, Arc<FakeModel>) {
        let dir = tempfile::tempdir().unwrap().keep();
        let model = script.start(context);
        let path = write_config(&dir, config, &model.url());
        (Serve::start(&dir, &path, &[]), model)
    }

    /// A token with `role` on this server.
    pub fn token_for(&self, role: &str) -> String {
        offline_token(&self.dir, &self.dir.join("config.toml"), role, &[])
    }

    pub fn start(dir: &Path, config: &Path, env: &[(&str, &str)]) -> Serve {
        let token = offline_token(dir, config, "admin", env);
        let mut command = warden(dir);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir)
            .arg("--config")
            .arg(config)
            .envs(env.iter().copied());
        let process = ServeProcess::start(command);
        Serve {
            base: process.base.clone(),
            process,
            token,
            dir: dir.to_path_buf(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        http::call(&self.base, &self.token, method, path, body)
    }
}

/// The same turn through `warden serve --config F`: a session made with
/// no level (the configured one applies), the message posted, the event
/// stream read until the turn's `done`. An approval the turn asks for is
/// denied through the API so the turn ends, as a non-interactive `ask`
/// leaves it pending and ends.
pub fn serve(
    config: &str,
    script: &Script,
    text: &str,
    env: &[(&str, &str)],
    context: &Arc<crate::one_program::keys::Context>,
) -> Observed {
    let dir = tempfile::tempdir().unwrap().keep();
    let model = script.start(context);
    let path = write_config(&dir, config, &model.url());
    let serve = Serve::start(&dir, &path, env);
    let started = Instant::now();
    let (status, session) = serve.call("POST", "/api/sessions", Some(json!({})));
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_string();
    let mut stream = http::EventStream::open(&serve.base, &serve.token, &id);
    let (status, accepted) = serve.call(
        "POST",
        &format!("/api/sessions/{id}/messages"),
        Some(json!({"text": text})),
    );
    assert_eq!(status, 202, "{accepted}");
    let turn = accepted["turn"].as_u64().unwrap();
    let mut events = Vec::new();
    let mut in_turn = false;
    loop {
        let Some(event) = stream.next(Duration::from_secs(90)) else {
            panic!(
                "the stream ended before the turn did (serve {}): {events:#?}",
                serve.pid()
            );
        };
        if event["type"] == "turn_start" {
            in_turn = event["turn"] == turn;
        }
        if !in_turn {
            continue;
        }
        events.push(event.clone());
        if event["type"] == "approval_needed" {
            let approval = event["approval"]["id"].as_str().unwrap();
            serve.call(
                "POST",
                &format!("/api/approvals/{approval}/deny"),
                Some(json!({"reason": "the test ends the turn"})),
            );
        }
        if event["type"] == "done" && event["turn"] == turn {
            break;
        }
    }
    Observed {
        front_end: "serve",
        events,
        requests: model.requests(),
        exit: None,
        // Inherited: what the server said is in the test's output.
        stderr: String::new(),
        elapsed: started.elapsed(),
        dir,
        session: id,
    }
}

/// HTTP to the loopback server through the testkit's client and SSE
/// reader, each on a runtime of its own (the parallel rows are threads).
pub mod http {
    use std::sync::mpsc::{Receiver, channel};
    use std::time::Duration;

    use serde_json::Value;
    use warden_testkit::sse::EventReader;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// One request with a bearer token: the status and the JSON body.
    pub fn call(
        base: &str,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        runtime().block_on(async {
            let mut request = warden_testkit::http::client()
                .request(method.parse().unwrap(), format!("{base}{path}"))
                .bearer_auth(token);
            if let Some(body) = body {
                request = request.json(&body);
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let text = response.text().await.unwrap_or_default();
            (status, serde_json::from_str(&text).unwrap_or(Value::Null))
        })
    }

    /// A session's SSE stream, read on a thread of its own.
    pub struct EventStream {
        events: Receiver<Value>,
    }

    impl EventStream {
        pub fn open(base: &str, token: &str, session: &str) -> EventStream {
            let url = format!("{base}/api/sessions/{session}/events");
            let token = token.to_string();
            let (tx, events) = channel();
            let (opened_tx, opened) = channel();
            std::thread::spawn(move || {
                runtime().block_on(async move {
                    let response = warden_testkit::http::client_with(
                        warden_testkit::http::no_roots_tls(),
                        None,
                    )
                    .get(url)
                    .bearer_auth(token)
                    .send()
                    .await
                    .unwrap();
                    let _ = opened_tx.send(response.status().as_u16());
                    let mut reader = EventReader::new(response);
                    while let Some(event) = reader.next(Duration::from_secs(600)).await {
                        if tx.send(event.data).is_err() {
                            return;
                        }
                    }
                });
            });
            assert_eq!(opened.recv().unwrap(), 200, "the event stream opens");
            EventStream { events }
        }

        pub fn next(&mut self, within: Duration) -> Option<Value> {
            self.events.recv_timeout(within).ok()
        }
    }
}
