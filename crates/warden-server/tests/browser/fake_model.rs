//! A fake OpenAI-compatible model server on loopback, on its own thread
//! and runtime (the provider's HTTP client blocks inside its future, so
//! the model must never wait for a worker of the server's runtime). Each
//! script is chosen by a phrase in the last user message; its step is how
//! many times the model has answered since that message. Text streams
//! word by word, paced, so the page really sees a streaming answer.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    Call(String, Value),
}

/// A phrase of the user's message and the steps it gets.
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
            .unwrap_or_else(|| Step::Text("I have no script for that.".into()))
    }
}

pub fn text(words: &str) -> Step {
    Step::Text(words.to_string())
}

pub fn call(tool: &str, arguments: Value) -> Step {
    Step::Call(tool.to_string(), arguments)
}

pub struct FakeModel {
    pub base_url: String,
    pub scripts: Scripts,
}

/// Pause before each streamed word.
const PACE: Duration = Duration::from_millis(15);

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
    axum::Json(json!({"object": "list", "data": [{"id": "test", "object": "model"}]}))
}

/// The last user message and how many assistant messages followed it.
fn position(messages: &[Value]) -> (String, usize) {
    let last_user = messages.iter().rposition(|m| m["role"] == "user");
    match last_user {
        Some(i) => {
            let text = match &messages[i]["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let answered = messages[i..]
                .iter()
                .filter(|m| m["role"] == "assistant")
                .count();
            (text, answered)
        }
        None => (String::new(), 0),
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let body = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    format!("data: {body}\n\n")
}

async fn complete(State(scripts): State<Scripts>, body: axum::Json<Value>) -> Response {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let (message, step) = position(&messages);
    let mut pieces: Vec<(String, bool)> = vec![(chunk(json!({"role": "assistant"}), None), false)];
    match scripts.step(&message, step) {
        Step::Text(text) => {
            for word in text.split_inclusive(' ') {
                pieces.push((chunk(json!({"content": word}), None), true));
            }
            pieces.push((chunk(json!({}), Some("stop")), false));
        }
        Step::Call(tool, arguments) => {
            let call = json!({"tool_calls": [{
                "index": 0, "id": format!("call_{step}"), "type": "function",
                "function": {"name": tool, "arguments": arguments.to_string()},
            }]});
            pieces.push((chunk(call, None), false));
            pieces.push((chunk(json!({}), Some("tool_calls")), false));
        }
    }
    let usage = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}});
    pieces.push((format!("data: {usage}\n\n"), false));
    pieces.push(("data: [DONE]\n\n".to_string(), false));
    let stream = futures_util::stream::unfold(pieces.into_iter(), |mut rest| async move {
        let (piece, paced) = rest.next()?;
        if paced {
            tokio::time::sleep(PACE).await;
        }
        Some((Ok::<_, Infallible>(Bytes::from(piece)), rest))
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}
