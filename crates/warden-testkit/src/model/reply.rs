//! A raw HTTP reply of the fake model server: status, headers, the body in
//! pieces (each flushed, with pauses, so the client really sees the
//! splits), its framing, and the misbehaviours (a slow head, a stall, a
//! piece repeated until the client hangs up).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How the end of the body is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Transfer-Encoding: chunked`, one HTTP chunk per piece.
    Chunked,
    /// No length: the body ends when the server closes the connection.
    Close,
    /// `Content-Length`.
    Length,
}

/// The bytes of one piece.
#[derive(Clone)]
pub enum Body {
    Bytes(Vec<u8>),
    /// Made at the moment the piece is written (a timestamp, say).
    Made(Arc<dyn Fn() -> Vec<u8> + Send + Sync>),
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Body::Bytes(bytes) => write!(f, "{:?}", String::from_utf8_lossy(bytes)),
            Body::Made(_) => f.write_str("<made when sent>"),
        }
    }
}

/// One piece of a body and how long to wait before sending it.
#[derive(Debug, Clone)]
pub struct Piece {
    pub wait: Duration,
    pub body: Body,
}

impl Piece {
    /// A piece whose bytes are made when it is sent, after `wait`.
    pub fn made(wait: Duration, make: impl Fn() -> Vec<u8> + Send + Sync + 'static) -> Piece {
        Piece {
            wait,
            body: Body::Made(Arc::new(make)),
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        match &self.body {
            Body::Bytes(bytes) => bytes.clone(),
            Body::Made(make) => make(),
        }
    }
}

impl From<Vec<u8>> for Piece {
    fn from(bytes: Vec<u8>) -> Piece {
        Piece {
            wait: Duration::ZERO,
            body: Body::Bytes(bytes),
        }
    }
}

impl From<String> for Piece {
    fn from(text: String) -> Piece {
        Piece::from(text.into_bytes())
    }
}

impl From<&String> for Piece {
    fn from(text: &String) -> Piece {
        Piece::from(text.as_bytes().to_vec())
    }
}

impl From<&str> for Piece {
    fn from(text: &str) -> Piece {
        Piece::from(text.as_bytes().to_vec())
    }
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub pieces: Vec<Piece>,
    pub framing: Framing,
    /// Pause after each piece.
    pub pause: Duration,
    /// After the pieces, hold the connection open this long without ending
    /// the body (a stalled server), then drop it.
    pub stall: Option<Duration>,
    /// Hold this long before sending anything, even the status line.
    pub delay_head: Option<Duration>,
    /// After the pieces, send this piece again and again, with the pause
    /// between, until the client closes the connection (at most a minute).
    pub forever: Option<(Vec<u8>, Duration)>,
}

impl Reply {
    /// `200 text/event-stream`, chunked, body in the given pieces, 2 ms
    /// apart.
    pub fn sse<P: Into<Piece>>(pieces: impl IntoIterator<Item = P>) -> Reply {
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
            pieces: vec![body.into()],
            framing: Framing::Length,
            pause: Duration::ZERO,
            stall: None,
            delay_head: None,
            forever: None,
        }
    }

    /// An HTTP error as the providers' APIs send them:
    /// `{"error": {"message": …}}` with `status`.
    pub fn error(status: u16, message: &str) -> Reply {
        let body = serde_json::json!({"error": {"message": message}});
        Reply::json(status, &body.to_string())
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// `Retry-After: SECS`.
    pub fn retry_after(self, secs: u64) -> Reply {
        self.header("Retry-After", &secs.to_string())
    }

    pub fn framing(mut self, framing: Framing) -> Reply {
        self.framing = framing;
        self
    }

    pub fn pause(mut self, between_pieces: Duration) -> Reply {
        self.pause = between_pieces;
        self
    }

    /// After the pieces, hold the connection this long, then drop it
    /// without ending the body (`Duration::ZERO`: drop it at once — a
    /// stream cut off mid-body).
    pub fn stall(mut self, how_long: Duration) -> Reply {
        self.stall = Some(how_long);
        self
    }

    pub fn delay_head(mut self, how_long: Duration) -> Reply {
        self.delay_head = Some(how_long);
        self
    }

    /// After the pieces, repeat `piece` every `every` until the client
    /// hangs up (keep-alive comments, a trickle).
    pub fn then_forever(mut self, piece: impl Into<Vec<u8>>, every: Duration) -> Reply {
        self.forever = Some((piece.into(), every));
        self
    }
}

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

/// One named SSE event (`event: NAME` then `data: DATA`).
pub fn sse_event(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}
