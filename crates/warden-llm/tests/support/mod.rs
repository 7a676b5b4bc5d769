//! A tiny HTTP/1.1 server on 127.0.0.1 that speaks to the real client:
//! it records each request and answers with scripted replies, writing the
//! body in pieces (flushed, with a short pause between them) so the client
//! really sees the splits. One request per connection (`Connection: close`).
//! A reply can also go on forever (keep-alive comments, a trickle of text)
//! until the client hangs up, which the server counts.

#![allow(dead_code)] // each test module uses a different part

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    pub raw_body: String,
    /// The body as JSON (`Null` when empty or not JSON).
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or(&self.target)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Transfer-Encoding: chunked`, one HTTP chunk per piece.
    Chunked,
    /// No length: the body ends when the server closes the connection.
    Close,
    /// `Content-Length`.
    Length,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub pieces: Vec<Vec<u8>>,
    pub framing: Framing,
    /// Pause after each piece.
    pub pause: Duration,
    /// After the pieces, hold the connection open this long without ending
    /// the body (a stalled server).
    pub stall: Option<Duration>,
    /// Hold this long before sending anything, even the status line.
    pub delay_head: Option<Duration>,
    /// After the pieces, send this piece again and again, with the pause
    /// between, until the client closes the connection (at most a minute).
    pub forever: Option<(Vec<u8>, Duration)>,
}

impl Reply {
    /// `200 text/event-stream`, chunked, body in the given pieces.
    pub fn sse<P: Into<Vec<u8>>>(pieces: impl IntoIterator<Item = P>) -> Reply {
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "text/event-stream".into())],
            pieces: pieces.into_iter().map(Into::into).collect(),
            framing: Framing::Chunked,
            pause: Duration::from_millis(2),
            stall: None,
            delay_head: None,
            forever: None,
        }
    }

    /// A JSON document with `Content-Length`.
    pub fn json(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            pieces: vec![body.as_bytes().to_vec()],
            framing: Framing::Length,
            pause: Duration::ZERO,
            stall: None,
            delay_head: None,
            forever: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn framing(mut self, framing: Framing) -> Reply {
        self.framing = framing;
        self
    }

    pub fn stall(mut self, how_long: Duration) -> Reply {
        self.stall = Some(how_long);
        self
    }

    pub fn delay_head(mut self, how_long: Duration) -> Reply {
        self.delay_head = Some(how_long);
        self
    }

    /// After the pieces, repeat `piece` every `every` until the client
    /// hangs up.
    pub fn then_forever(mut self, piece: impl Into<Vec<u8>>, every: Duration) -> Reply {
        self.forever = Some((piece.into(), every));
        self
    }
}

/// How long a `then_forever` reply goes on if the client never hangs up.
const FOREVER_LIMIT: Duration = Duration::from_secs(60);

/// `text` cut every `size` bytes, ignoring UTF-8 and line boundaries on
/// purpose.
pub fn cut_every(text: &str, size: usize) -> Vec<Vec<u8>> {
    text.as_bytes().chunks(size).map(<[u8]>::to_vec).collect()
}

/// `text` cut at the given byte offsets.
pub fn cut_at(text: &str, offsets: &[usize]) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    for &offset in offsets {
        pieces.push(bytes[start..offset].to_vec());
        start = offset;
    }
    pieces.push(bytes[start..].to_vec());
    pieces
}

/// SSE text from `data:` payloads (one event each, `\n\n` separated).
pub fn sse_data(payloads: &[&str]) -> String {
    payloads.iter().map(|p| format!("data: {p}\n\n")).collect()
}

pub struct FakeServer {
    base: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// Connections whose client hung up while a reply was still going.
    hung_up: Arc<AtomicUsize>,
}

struct Script {
    replies: VecDeque<Reply>,
    /// Served when the queue is empty.
    fallback: Option<Reply>,
}

impl FakeServer {
    /// Serves `replies` in order, one per request.
    pub fn start(replies: Vec<Reply>) -> FakeServer {
        FakeServer::start_with_fallback(replies, None)
    }

    /// Serves `replies`, then `fallback` for every further request.
    pub fn start_with_fallback(replies: Vec<Reply>, fallback: Option<Reply>) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(Script {
            replies: replies.into(),
            fallback,
        }));
        let recorded = Arc::clone(&requests);
        let hung_up = Arc::new(AtomicUsize::new(0));
        let hang_ups = Arc::clone(&hung_up);
        std::thread::spawn(move || {
            for connection in listener.incoming() {
                let Ok(connection) = connection else { return };
                let recorded = Arc::clone(&recorded);
                let script = Arc::clone(&script);
                let hang_ups = Arc::clone(&hang_ups);
                std::thread::spawn(move || serve(connection, &recorded, &script, &hang_ups));
            }
        });
        FakeServer {
            base,
            requests,
            hung_up,
        }
    }

    /// How many clients hung up in the middle of a `then_forever` reply.
    pub fn hung_up(&self) -> usize {
        self.hung_up.load(Ordering::SeqCst)
    }

    /// Waits (up to `limit`) until `count` clients hung up mid-reply.
    /// Async: the client's connection tasks must keep running to hang up.
    pub async fn wait_for_hang_ups(&self, count: usize, limit: Duration) -> bool {
        let started = std::time::Instant::now();
        while started.elapsed() < limit {
            if self.hung_up() >= count {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        self.base.clone()
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }
}

fn serve(
    connection: TcpStream,
    recorded: &Mutex<Vec<Recorded>>,
    script: &Mutex<Script>,
    hung_up: &AtomicUsize,
) {
    connection.set_nodelay(true).ok();
    let Some(request) = read_request(&connection) else {
        return;
    };
    recorded.lock().expect("lock").push(request);
    let reply = {
        let mut script = script.lock().expect("lock");
        script
            .replies
            .pop_front()
            .or_else(|| script.fallback.clone())
    }
    .unwrap_or_else(|| Reply::json(500, r#"{"error":"fake server: no scripted reply left"}"#));
    if let Err(WriteStop::HungUp) = write_reply(connection, &reply) {
        hung_up.fetch_add(1, Ordering::SeqCst);
    }
}

/// Why writing a reply stopped early.
enum WriteStop {
    HungUp,
    Failed,
}

impl From<std::io::Error> for WriteStop {
    fn from(_: std::io::Error) -> Self {
        WriteStop::Failed
    }
}

fn read_request(connection: &TcpStream) -> Option<Recorded> {
    let mut reader = BufReader::new(connection.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let target = words.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    Some(Recorded {
        method,
        target,
        headers,
        raw_body,
        body,
    })
}

fn write_piece(connection: &mut TcpStream, framing: Framing, piece: &[u8]) -> std::io::Result<()> {
    if framing == Framing::Chunked {
        connection.write_all(format!("{:x}\r\n", piece.len()).as_bytes())?;
        connection.write_all(piece)?;
        connection.write_all(b"\r\n")?;
    } else {
        connection.write_all(piece)?;
    }
    connection.flush()
}

fn write_reply(mut connection: TcpStream, reply: &Reply) -> Result<(), WriteStop> {
    if let Some(delay) = reply.delay_head {
        std::thread::sleep(delay);
    }
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match reply.framing {
        Framing::Chunked => head.push_str("Transfer-Encoding: chunked\r\n"),
        Framing::Length => {
            let length: usize = reply.pieces.iter().map(Vec::len).sum();
            head.push_str(&format!("Content-Length: {length}\r\n"));
        }
        Framing::Close => {}
    }
    head.push_str("Connection: close\r\n\r\n");
    connection.write_all(head.as_bytes())?;
    connection.flush()?;
    for piece in reply.pieces.iter().filter(|p| !p.is_empty()) {
        write_piece(&mut connection, reply.framing, piece)?;
        if !reply.pause.is_zero() {
            std::thread::sleep(reply.pause);
        }
    }
    if let Some((piece, every)) = &reply.forever {
        let started = std::time::Instant::now();
        while started.elapsed() < FOREVER_LIMIT {
            if write_piece(&mut connection, reply.framing, piece).is_err() {
                return Err(WriteStop::HungUp);
            }
            std::thread::sleep(*every);
        }
    }
    if let Some(stall) = reply.stall {
        std::thread::sleep(stall);
        return Ok(()); // drop without ending the body properly
    }
    if reply.framing == Framing::Chunked {
        connection.write_all(b"0\r\n\r\n")?;
    }
    connection.flush()?;
    connection.shutdown(Shutdown::Write)?;
    Ok(())
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

// ---- helpers for driving providers -------------------------------------

use std::time::Instant;

use warden_llm::{
    Delta, Message, ModelReply, ModelRequest, Provider, ProviderConfig, ProviderError,
    ProviderKind, Secret, ToolOffer, ToolSpec,
};
use warden_protocol::CancelFlag;

pub const TEST_KEY: &str = "sk-test-0123456789abcdef";

/// A config for a fake server: short timeouts, a model set (no listing).
pub fn config(kind: ProviderKind, base_url: String) -> ProviderConfig {
    let mut config = ProviderConfig::new(kind);
    config.base_url = Some(base_url);
    config.api_key = Some(Secret::new(TEST_KEY));
    config.model = Some("test-model".into());
    config.connect_timeout = Duration::from_secs(2);
    config.idle_timeout = Duration::from_secs(2);
    config.max_retries = 2;
    config
}

pub struct Outcome {
    pub result: Result<ModelReply, ProviderError>,
    /// Text deltas in arrival order.
    pub texts: Vec<String>,
    pub thinking: Vec<String>,
    /// Transport notices ("waiting for the model… 5 s").
    pub notices: Vec<String>,
    pub elapsed: Duration,
}

impl Outcome {
    pub fn reply(&self) -> &ModelReply {
        match &self.result {
            Ok(reply) => reply,
            Err(error) => panic!("expected a reply, got {error:?}"),
        }
    }

    pub fn error(&self) -> &ProviderError {
        match &self.result {
            Ok(reply) => panic!("expected an error, got {reply:?}"),
            Err(error) => error,
        }
    }
}

pub async fn complete(
    provider: &mut dyn Provider,
    messages: &[Message],
    tools: &[ToolSpec],
    offer: ToolOffer,
    cancel: Option<&CancelFlag>,
) -> Outcome {
    let mut texts = Vec::new();
    let mut thinking = Vec::new();
    let mut notices = Vec::new();
    let request = ModelRequest {
        messages,
        tools,
        offer,
        cancel,
    };
    let started = Instant::now();
    let result = provider
        .complete(&request, &mut |delta| match delta {
            Delta::Text(text) => texts.push(text.to_string()),
            Delta::Thinking(text) => thinking.push(text.to_string()),
            Delta::Notice(text) => notices.push(text.to_string()),
        })
        .await;
    Outcome {
        result,
        texts,
        thinking,
        notices,
        elapsed: started.elapsed(),
    }
}

/// One OpenAI-compatible stream chunk (`finish` is JSON: `null`, `"stop"`).
pub fn openai_chunk(delta: &str, finish: &str) -> String {
    format!(
        r#"{{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{delta},"finish_reason":{finish}}}]}}"#
    )
}

/// A chunk with text content.
pub fn openai_text(content: &str) -> String {
    openai_chunk(&format!(r#"{{"content":"{content}"}}"#), "null")
}

/// A complete stream answering "hello".
pub fn openai_hello() -> Reply {
    Reply::sse([sse_data(&[
        &openai_text("hello"),
        &openai_chunk("{}", r#""stop""#),
        "[DONE]",
    ])])
}

/// Two tools with schemas as the core generates them (incl. keywords
/// Gemini does not accept).
pub fn sample_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "query".into(),
            description: "Find resources.".into(),
            parameters: serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "QueryArgs",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "action": {"type": "string", "enum": ["search", "get", "list", "health"]},
                    "target": {"type": ["string", "null"], "default": null}
                },
                "required": ["action"]
            }),
        },
        ToolSpec {
            name: "metrics".into(),
            description: "Current metrics.".into(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"target": {"type": "string"}},
                "required": ["target"]
            }),
        },
    ]
}

pub fn user(text: &str) -> Vec<Message> {
    vec![Message::system("You are Warden."), Message::user(text)]
}
