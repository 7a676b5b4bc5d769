//! A small SSE reader over a response body, for the server's event streams.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

/// One event: its `id`, `event` name (`message` when none) and JSON data.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: Option<u64>,
    pub event: String,
    pub data: Value,
}

type ByteStream =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<axum::body::Bytes>> + Send>>;

pub struct EventReader {
    stream: ByteStream,
    buffer: String,
    /// Comment lines seen (`: keepalive`).
    pub comments: Vec<String>,
}

impl EventReader {
    pub fn new(response: reqwest::Response) -> Self {
        EventReader {
            stream: Box::pin(response.bytes_stream()),
            buffer: String::new(),
            comments: Vec::new(),
        }
    }

    /// The next event with data, or `None` when the stream ends or nothing
    /// comes within `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer[..end].to_string();
                self.buffer.drain(..end + 2);
                if let Some(event) = self.parse(&block) {
                    return Some(event);
                }
                continue;
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk.ok()?));
        }
    }

    fn parse(&mut self, block: &str) -> Option<SseEvent> {
        let mut id = None;
        let mut event = String::from("message");
        let mut data = String::new();
        for line in block.lines() {
            if let Some(comment) = line.strip_prefix(':') {
                self.comments.push(comment.trim().to_string());
            } else if let Some(v) = field(line, "id") {
                id = v.parse().ok();
            } else if let Some(v) = field(line, "event") {
                event = v.to_string();
            } else if let Some(v) = field(line, "data") {
                data.push_str(v);
            }
        }
        if data.is_empty() {
            return None;
        }
        Some(SseEvent {
            id,
            event,
            data: serde_json::from_str(&data).unwrap(),
        })
    }

    /// Events up to and including the first of type `until`; panics when
    /// the stream ends or stays silent for `wait` first.
    pub async fn until(&mut self, until: &str, wait: Duration) -> Vec<SseEvent> {
        let mut events = Vec::new();
        while let Some(event) = self.next(wait).await {
            let done = event.event == until;
            events.push(event);
            if done {
                return events;
            }
        }
        panic!(
            "no `{until}` event within {wait:?}; got {:?}",
            events.iter().map(|e| e.event.as_str()).collect::<Vec<_>>()
        );
    }
}

/// `name: value`, as the server writes its fields.
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.strip_prefix(name)?.strip_prefix(": ")
}
