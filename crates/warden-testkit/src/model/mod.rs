//! A fake model server on loopback speaking a real wire format over real
//! HTTP and SSE, for the providers, the CLI, the server and the browser
//! tests alike.
//!
//! ```ignore
//! let model = FakeModel::start(Wire::OpenAi);
//! model.queue(Turn::call("read", json!({"action": "exec", "target": "web1", "command": "uptime"})));
//! model.queue(Turn::words("The load is fine.").usage(900, 5));
//! model.queue(Reply::error(429, "slow down").retry_after(120));
//! // … a provider configured with `model.base_url()` runs …
//! let asked = &model.requests()[0];
//! assert_eq!(asked.last_user_text(), "why is the load high?");
//! ```
//!
//! `warden-llm`'s `tests/cases/turns.rs` drives the real providers through
//! each wire format's rendering.
//!
//! Replies are picked per request (see [`script`] for the order): fixed
//! routes ([`FakeModel::route`], [`FakeModel::serve_models`]), a chooser
//! ([`FakeModel::choose`]), scripts by the last user message
//! ([`FakeModel::script`]), the queue ([`FakeModel::queue`]), the fallback.
//! A [`Turn`] is rendered in the server's [`Wire`] format (with the model
//! name the request asked for); a [`Reply`] is sent as it is.

mod anthropic;
mod gemini;
mod http;
mod openai;
mod recorded;
mod reply;
pub mod script;
mod turn;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

pub use openai::{models_list, openai_chunk, openai_hello, openai_text};
pub use recorded::Recorded;
pub use reply::{Body, Framing, Piece, Reply, cut_at, cut_every, sse_data, sse_event};
pub use script::{Chooser, Scripted};
pub use turn::{Call, Finish, Turn, Usage};

use http::{WriteStop, read_request, write_reply};
use script::Script;

/// The wire format a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI-compatible `POST /v1/chat/completions` (Ollama, vLLM, …).
    OpenAi,
    /// Anthropic `POST /v1/messages`.
    Anthropic,
    /// Gemini `POST /v1beta/models/M:streamGenerateContent`.
    Gemini,
}

/// The model name used in rendered replies when a request names none.
const DEFAULT_MODEL: &str = "test-model";

struct Shared {
    wire: Wire,
    requests: Mutex<Vec<Recorded>>,
    script: Mutex<Script>,
    /// Connections whose client hung up while a reply was still going.
    hung_up: AtomicUsize,
}

impl Shared {
    fn script(&self) -> MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A running fake model server; it stops with the test process.
pub struct FakeModel {
    wire: Wire,
    url: String,
    shared: Arc<Shared>,
}

impl FakeModel {
    /// A server for `wire` on a free loopback port, nothing scripted yet.
    pub fn start(wire: Wire) -> FakeModel {
        FakeModel::listen(wire, TcpListener::bind("127.0.0.1:0").expect("bind"))
    }

    /// The same on a given address (a harness with a fixed port).
    pub fn start_on(wire: Wire, addr: SocketAddr) -> FakeModel {
        FakeModel::listen(wire, TcpListener::bind(addr).expect("bind"))
    }

    /// A server that serves `replies` in order, one per request.
    pub fn replying<R: Into<Scripted>>(
        wire: Wire,
        replies: impl IntoIterator<Item = R>,
    ) -> FakeModel {
        let model = FakeModel::start(wire);
        for reply in replies {
            model.queue(reply);
        }
        model
    }

    fn listen(wire: Wire, listener: TcpListener) -> FakeModel {
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let shared = Arc::new(Shared {
            wire,
            requests: Mutex::new(Vec::new()),
            script: Mutex::new(Script::new()),
            hung_up: AtomicUsize::new(0),
        });
        let serving = Arc::clone(&shared);
        std::thread::spawn(move || {
            for connection in listener.incoming() {
                let Ok(connection) = connection else { return };
                let shared = Arc::clone(&serving);
                std::thread::spawn(move || serve(connection, &shared));
            }
        });
        FakeModel { wire, url, shared }
    }

    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The base URL a provider is configured with: `…/v1` for the
    /// OpenAI-compatible wire, the root for the others.
    pub fn base_url(&self) -> String {
        match self.wire {
            Wire::OpenAi => format!("{}/v1", self.url),
            Wire::Anthropic | Wire::Gemini => self.url.clone(),
        }
    }

    /// The next reply of the queue.
    pub fn queue(&self, reply: impl Into<Scripted>) {
        self.shared.script().queue(reply.into());
    }

    /// What every request gets once the queue is empty.
    pub fn set_fallback(&self, reply: impl Into<Scripted>) {
        self.shared.script().set_fallback(reply.into());
    }

    /// `reply` for every `method` request to `path` (no query), before
    /// anything else.
    pub fn route(&self, method: &str, path: &str, reply: impl Into<Scripted>) {
        self.shared.script().route(method, path, reply.into());
    }

    /// The model list (`GET /v1/models` and the like) with these ids.
    pub fn serve_models(&self, ids: &[&str]) {
        let (path, reply) = match self.wire {
            Wire::OpenAi => ("/v1/models", models_list(ids)),
            Wire::Anthropic => {
                let data: Vec<_> = ids
                    .iter()
                    .map(|id| serde_json::json!({"type": "model", "id": id}))
                    .collect();
                let body = serde_json::json!({"data": data, "has_more": false});
                ("/v1/models", Reply::json(200, &body.to_string()))
            }
            Wire::Gemini => {
                let models: Vec<_> = ids
                    .iter()
                    .map(|id| {
                        serde_json::json!({"name": format!("models/{id}"),
                        "supportedGenerationMethods": ["generateContent", "streamGenerateContent"]})
                    })
                    .collect();
                let body = serde_json::json!({"models": models});
                ("/v1beta/models", Reply::json(200, &body.to_string()))
            }
        };
        self.route("GET", path, reply);
    }

    /// Chooses replies from the request; where it returns `None`, the
    /// scripts, the queue and the fallback decide.
    pub fn choose(&self, chooser: impl Fn(&Recorded) -> Option<Scripted> + Send + 'static) {
        self.shared.script().choose(Box::new(chooser));
    }

    /// For every user message containing `phrase`: `steps[n]` once the
    /// model has answered `n` times since that message (the latest script
    /// whose phrase matches wins). Once there is a script, a message none
    /// matches gets the unscripted turn, not the queue.
    pub fn script(&self, phrase: &str, steps: Vec<Turn>) {
        self.shared.script().add_phrase(phrase, steps);
    }

    /// What a message no script matches gets (by default "I have no
    /// script for that.").
    pub fn set_unscripted(&self, turn: Turn) {
        self.shared.script().set_unscripted(turn);
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn request_count(&self) -> usize {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// How many clients hung up in the middle of a `then_forever` reply.
    pub fn hung_up(&self) -> usize {
        self.shared.hung_up.load(Ordering::SeqCst)
    }

    /// Waits (up to `limit`) until `count` clients hung up mid-reply.
    /// Async: the client's connection tasks must keep running to hang up.
    pub async fn wait_for_hang_ups(&self, count: usize, limit: Duration) -> bool {
        crate::time::eventually(limit, || async { self.hung_up() >= count }).await
    }
}

fn serve(connection: TcpStream, shared: &Shared) {
    connection.set_nodelay(true).ok();
    let Some(request) = read_request(&connection, shared.wire) else {
        return;
    };
    let number = {
        let mut requests = shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        requests.push(request.clone());
        requests.len()
    };
    let reply = match shared.script().pick(&request) {
        Scripted::Raw(reply) => reply,
        Scripted::Turn(turn) => render(shared.wire, &turn, &request, number),
    };
    if let Err(WriteStop::HungUp) = write_reply(connection, &reply) {
        shared.hung_up.fetch_add(1, Ordering::SeqCst);
    }
}

/// `turn` as the streaming reply of `wire`, naming the model the request
/// asked for.
fn render(wire: Wire, turn: &Turn, request: &Recorded, number: usize) -> Reply {
    let model = request.model().unwrap_or_else(|| DEFAULT_MODEL.into());
    let pieces = match wire {
        Wire::OpenAi => openai::render(turn, &model, number),
        Wire::Anthropic => anthropic::render(turn, &model, number),
        Wire::Gemini => gemini::render(turn, &model),
    };
    Reply::sse(pieces)
}
