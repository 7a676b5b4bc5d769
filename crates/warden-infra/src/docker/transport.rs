//! How bollard reaches the engine: one HTTP/1.1 connection per request on the
//! engine's unix socket, through hyper's client connection.
//!
//! Warden brings this transport (bollard's `connect_with_custom_transport`)
//! instead of bollard's `pipe` feature for what that feature cannot do: a
//! cap on the bytes an engine may send (bollard reads a whole body into
//! memory), connection failures Warden can tell apart ("Docker is not
//! available here" versus a request that failed), and the headers of an
//! answer (where the engine names its version). It also keeps bollard free
//! of `hyperlocal` and hyper-util's pooled client.

use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bollard::BollardRequest;
use bollard::errors::Error as BollardError;
use hyper::body::Incoming;
use hyper::header::{HOST, HeaderValue};
use hyper::{Response, Uri};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::UnixStream;

/// The authority bollard puts in its URIs; the engine ignores `Host`.
pub(super) const ENGINE_ADDRESS: &str = "http://docker";

/// Connecting to the socket failed: nothing was sent. Carried inside the
/// `io::Error` bollard passes back, so the client can say "Docker is not
/// available here".
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct ConnectFailed(pub io::Error);

/// The engine sent more than the limit on one connection.
#[derive(Debug, thiserror::Error)]
#[error("the engine's answer is larger than {limit} bytes")]
pub(super) struct TooLarge {
    pub limit: u64,
}

/// How the engine names itself in the headers of every answer:
/// `Server: Docker/27.0.1 (linux)` and `Api-Version: 1.46`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct EngineHeaders {
    pub server: Option<String>,
    pub api_version: Option<String>,
}

/// The transport's settings.
#[derive(Debug, Clone)]
pub(super) struct UnixTransport {
    socket: Arc<PathBuf>,
    /// The most bytes read on one connection (head and body).
    max_response: u64,
    /// No connection outlives this, even one whose answer nobody reads.
    pub(super) connection_limit: Duration,
    /// The engine's headers in the last answer through this transport
    /// (each request gets a transport of its own: see
    /// [`UnixTransport::for_one_request`]).
    answered: Arc<Mutex<Option<EngineHeaders>>>,
}

impl UnixTransport {
    pub(super) fn new(socket: PathBuf, max_response: u64, connection_limit: Duration) -> Self {
        UnixTransport {
            socket: Arc::new(socket),
            max_response,
            connection_limit,
            answered: Arc::default(),
        }
    }

    /// The same settings, with a slot of its own for the answer's headers.
    pub(super) fn for_one_request(&self) -> Self {
        UnixTransport {
            answered: Arc::default(),
            ..self.clone()
        }
    }

    /// The engine's headers in the last answer, if one came.
    pub(super) fn engine_headers(&self) -> Option<EngineHeaders> {
        self.answered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Sends `request` on a new connection; the answer's body streams from
    /// a task that ends with the connection (or at `connection_limit`).
    pub(super) async fn send(
        self,
        request: BollardRequest,
    ) -> Result<Response<Incoming>, BollardError> {
        let stream = UnixStream::connect(self.socket.as_path())
            .await
            .map_err(|err| io::Error::new(err.kind(), ConnectFailed(err)))?;
        let io = TokioIo::new(CappedStream {
            inner: stream,
            read: 0,
            limit: self.max_response,
        });
        let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await?;
        let limit = self.connection_limit;
        tokio::spawn(async move {
            // Its errors reach the caller through the response or its body.
            let _ = tokio::time::timeout(limit, connection).await;
        });
        let response = sender.send_request(origin_form(request)?).await?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string)
        };
        *self.answered.lock().unwrap_or_else(PoisonError::into_inner) = Some(EngineHeaders {
            server: header("server"),
            api_version: header("api-version"),
        });
        Ok(response)
    }
}

/// `http://docker/_ping` → `/_ping` with `Host: docker`: what an HTTP/1.1
/// server expects from a client that is not a proxy.
fn origin_form(mut request: BollardRequest) -> Result<BollardRequest, BollardError> {
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |path| path.as_str())
        .to_string();
    *request.uri_mut() = path.parse::<Uri>()?;
    request
        .headers_mut()
        .insert(HOST, HeaderValue::from_static("docker"));
    Ok(request)
}

/// A socket whose reads fail once more than `limit` bytes came through.
struct CappedStream {
    inner: UnixStream,
    read: u64,
    limit: u64,
}

impl AsyncRead for CappedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            self.read += (buf.filled().len() - before) as u64;
            if self.read > self.limit {
                let limit = self.limit;
                return Poll::Ready(Err(io::Error::other(TooLarge { limit })));
            }
        }
        poll
    }
}

impl AsyncWrite for CappedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A bollard client on `transport`.
pub(super) fn connect(transport: &UnixTransport) -> Result<bollard::Docker, BollardError> {
    let transport = transport.clone();
    // bollard's own limit is whole seconds; the client bounds each request
    // itself, so this one only has to be no shorter.
    let seconds = transport.connection_limit.as_secs().saturating_add(1);
    bollard::Docker::connect_with_custom_transport(
        move |request: BollardRequest| transport.clone().send(request),
        Some(ENGINE_ADDRESS),
        seconds,
        bollard::API_DEFAULT_VERSION,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_go_out_in_origin_form() {
        let request = hyper::Request::get("http://docker/containers/json?all=true")
            .body(bollard::body_full(hyper::body::Bytes::new()))
            .unwrap();
        let request = origin_form(request).unwrap();
        assert_eq!(request.uri().to_string(), "/containers/json?all=true");
        assert_eq!(request.headers()[HOST], "docker");
    }
}
