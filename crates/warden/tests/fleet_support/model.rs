//! A fake OpenAI-compatible model on loopback, on its own thread and
//! runtime. Each script is chosen by a phrase of the last user message; its
//! step is how many times the model has answered since that message. A
//! step is a text answer or a reply with one or more tool calls.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

#[derive(Clone, Debug)]
pub enum Step {
    Text(String),
    /// Tool calls in one reply: (tool, arguments).
    Calls(Vec<(String, Value)>),
}

pub fn text(words: &str) -> Step {
    Step::Text(words.to_string())
}

pub fn call(tool: &str, arguments: Value) -> Step {
    Step::Calls(vec![(tool.to_string(), arguments)])
}

/// `read exec COMMAND` on `target`.
pub fn read(target: &str, command: &str) -> Step {
    call(
        "read",
        json!({"action": "exec", "target": target, "command": command}),
    )
}

/// `control command COMMAND` on `target` (a write).
pub fn write(target: &str, command: &str) -> Step {
    call(
        "control",
        json!({"action": "command", "target": target, "command": command}),
    )
}

type Script = (String, Vec<Step>);

#[derive(Clone, Default)]
pub struct Scripts(Arc<Mutex<Vec<Script>>>);

impl Scripts {
    /// A script for every user message containing `phrase`.
    pub fn add(&self, phrase: &str, steps: Vec<Step>) {
        self.0.lock().unwrap().push((phrase.to_string(), steps));
    }

    fn step(&self, message: &str, step: usize) -> Step {
        let scripts = self.0.lock().unwrap();
        scripts
            .iter()
            .rev()
            .find(|(phrase, _)| message.contains(phrase.as_str()))
            .and_then(|(_, steps)| steps.get(step).cloned())
            .unwrap_or_else(|| Step::Text("Done.".into()))
    }
}

pub struct FakeModel {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    pub scripts: Scripts,
}

impl FakeModel {
    pub fn start() -> FakeModel {
        let scripts = Scripts::default();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let state = scripts.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let app = Router::new()
                    .route("/v1/chat/completions", post(complete))
                    .route("/v1/models", get(models))
                    .with_state(state);
                axum::serve(listener, app).await.unwrap();
            });
        });
        FakeModel {
            base_url: format!("http://{addr}/v1"),
            scripts,
        }
    }
}

async fn models() -> impl IntoResponse {
    axum::Json(json!({"object": "list", "data": [{"id": "test-model", "object": "model"}]}))
}

/// The last user message and how many assistant messages followed it.
fn position(messages: &[Value]) -> (String, usize) {
    let Some(last_user) = messages.iter().rposition(|m| m["role"] == "user") else {
        return (String::new(), 0);
    };
    let text = match &messages[last_user]["content"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let answered = messages[last_user..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    (text, answered)
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let body = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    format!("data: {body}\n\n")
}

async fn complete(State(scripts): State<Scripts>, body: axum::Json<Value>) -> Response {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let (message, step) = position(&messages);
    let mut pieces = vec![chunk(json!({"role": "assistant"}), None)];
    match scripts.step(&message, step) {
        Step::Text(text) => {
            pieces.push(chunk(json!({"content": text}), None));
            pieces.push(chunk(json!({}), Some("stop")));
        }
        Step::Calls(calls) => {
            let calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(index, (tool, arguments))| {
                    json!({
                        "index": index, "id": format!("call_{step}_{index}"), "type": "function",
                        "function": {"name": tool, "arguments": arguments.to_string()},
                    })
                })
                .collect();
            pieces.push(chunk(json!({"tool_calls": calls}), None));
            pieces.push(chunk(json!({}), Some("tool_calls")));
        }
    }
    let usage = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}});
    pieces.push(format!("data: {usage}\n\n"));
    pieces.push("data: [DONE]\n\n".to_string());
    let stream = futures_util::stream::iter(
        pieces
            .into_iter()
            .map(|piece| Ok::<_, Infallible>(Bytes::from(piece))),
    );
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}
