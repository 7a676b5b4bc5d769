//! One HTTP exchange on a worker thread. ureq reads are blocking, so the
//! worker does the request and the body reads and sends what it gets
//! through a channel; the calling thread waits on the channel in short
//! slices, which is where idle timeouts and cancellation are checked. When
//! the caller stops listening (cancelled, timed out, done) it drops the
//! receiver and the worker ends on its next send.

use std::io::Read;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use warden_protocol::CancelFlag;

/// How often the waiting thread looks at the cancel flag.
const WAIT_SLICE: Duration = Duration::from_millis(50);
/// Read size; a model stream delivers far less per read.
const READ_BUFFER: usize = 16 * 1024;
/// Chunks in flight between worker and caller (backpressure, not storage).
const CHANNEL_DEPTH: usize = 64;
/// The most one response body may hold (a runaway server cannot exhaust
/// memory).
const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// What the worker reports, in order: `Head`, then `Chunk`s, then `End` or
/// `Failed`; or `Failed` alone when no response arrived.
#[derive(Debug)]
pub enum WireEvent {
    Head {
        status: u16,
        retry_after: Option<String>,
    },
    Chunk(Vec<u8>),
    End,
    Failed {
        message: String,
        /// ureq gave up on a read or connect deadline.
        timed_out: bool,
        /// Worth another try (connection trouble), as opposed to a
        /// permanent problem (TLS, bad URL, unknown host).
        retryable: bool,
    },
}

pub enum Method {
    Get,
    Post(Vec<u8>),
}

/// Everything a worker needs; owned, so it can move to the thread.
pub struct Exchange {
    pub agent: ureq::Agent,
    pub method: Method,
    pub url: String,
    /// Header values may hold the API key: they are moved into the worker
    /// and never formatted.
    pub headers: Vec<(&'static str, String)>,
}

/// Starts the exchange; its events arrive on the returned receiver.
pub fn spawn(exchange: Exchange) -> std::io::Result<Receiver<WireEvent>> {
    let (sender, receiver) = sync_channel(CHANNEL_DEPTH);
    std::thread::Builder::new()
        .name("warden-llm-http".to_string())
        .spawn(move || run(exchange, &sender))?;
    Ok(receiver)
}

fn run(exchange: Exchange, sender: &SyncSender<WireEvent>) {
    let Exchange {
        agent,
        method,
        url,
        headers,
    } = exchange;
    let result = match method {
        Method::Get => {
            let mut request = agent.get(&url);
            for (name, value) in &headers {
                request = request.header(*name, value.as_str());
            }
            request.call()
        }
        Method::Post(body) => {
            let mut request = agent.post(&url);
            for (name, value) in &headers {
                request = request.header(*name, value.as_str());
            }
            request.send(&body[..])
        }
    };
    let response = match result {
        Ok(response) => response,
        Err(error) => {
            let _ = sender.send(failure(&error));
            return;
        }
    };
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let head = WireEvent::Head {
        status: response.status().as_u16(),
        retry_after,
    };
    if sender.send(head).is_err() {
        return;
    }
    let mut reader = response
        .into_body()
        .into_with_config()
        .limit(MAX_BODY_BYTES)
        .reader();
    let mut buffer = vec![0u8; READ_BUFFER];
    loop {
        let event = match reader.read(&mut buffer) {
            Ok(0) => WireEvent::End,
            Ok(n) => WireEvent::Chunk(buffer[..n].to_vec()),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => WireEvent::Failed {
                timed_out: error.kind() == std::io::ErrorKind::TimedOut,
                message: error.to_string(),
                retryable: true,
            },
        };
        let last = !matches!(event, WireEvent::Chunk(_));
        if sender.send(event).is_err() || last {
            return;
        }
    }
}

fn failure(error: &ureq::Error) -> WireEvent {
    WireEvent::Failed {
        timed_out: matches!(error, ureq::Error::Timeout(_)),
        message: error.to_string(),
        retryable: matches!(
            error,
            ureq::Error::Io(_)
                | ureq::Error::ConnectionFailed
                | ureq::Error::Timeout(_)
                | ureq::Error::Protocol(_)
                | ureq::Error::BodyStalled
        ),
    }
}

/// Why waiting for the next event stopped without one.
#[derive(Debug, PartialEq, Eq)]
pub enum WaitStop {
    Cancelled,
    /// Nothing arrived for the idle timeout.
    Idle,
    /// The worker ended without a final event (it panicked).
    WorkerGone,
}

/// The next event, or why there is none: cancellation is noticed within a
/// slice, silence longer than `idle` is a timeout.
pub fn next_event(
    receiver: &Receiver<WireEvent>,
    cancel: Option<&CancelFlag>,
    idle: Duration,
) -> Result<WireEvent, WaitStop> {
    let started = Instant::now();
    loop {
        if cancel.is_some_and(CancelFlag::is_cancelled) {
            return Err(WaitStop::Cancelled);
        }
        let waited = started.elapsed();
        if waited >= idle {
            return Err(WaitStop::Idle);
        }
        match receiver.recv_timeout(WAIT_SLICE.min(idle - waited)) {
            Ok(event) => return Ok(event),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err(WaitStop::WorkerGone),
        }
    }
}
