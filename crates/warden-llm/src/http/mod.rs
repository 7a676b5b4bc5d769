//! The transport: JSON over HTTP with streamed response bodies, retries,
//! idle timeouts and cancellation. See the crate docs for the rules.

mod error_body;
mod retry;
mod worker;

use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::Value;
use warden_protocol::CancelFlag;

use crate::provider::ProviderError;
use crate::secret::Secret;
pub use error_body::{error_message, message_from_json, truncate};
pub use retry::{delay_before_retry, is_retryable_status, sleep_unless_cancelled};
use worker::{Exchange, Method, WaitStop, WireEvent};

/// The most of an error body read for its message.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// A ureq-level read deadline well past our own idle timeout: it only
/// exists so a worker stuck on a dead connection eventually ends.
const WORKER_READ_MARGIN: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy)]
pub struct TransportSettings {
    pub connect_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_retries: u32,
}

/// An HTTP client for one provider. Cheap to clone (the agent is shared).
#[derive(Clone)]
pub struct HttpClient {
    agent: ureq::Agent,
    /// For error messages: "openai", "anthropic", "gemini".
    provider: &'static str,
    settings: TransportSettings,
    /// Removed from any text that reaches an error, in case a server echoes it.
    secret: Option<Secret>,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("provider", &self.provider)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    pub fn new(
        provider: &'static str,
        settings: TransportSettings,
        secret: Option<Secret>,
    ) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(settings.connect_timeout))
            .timeout_per_read(Some(settings.idle_timeout + WORKER_READ_MARGIN))
            // An API endpoint that redirects is misconfigured; say so
            // instead of replaying a POST elsewhere.
            .max_redirects(0)
            .max_redirects_will_error(false)
            .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        HttpClient {
            agent,
            provider,
            settings,
            secret,
        }
    }

    pub fn provider(&self) -> &'static str {
        self.provider
    }

    pub fn settings(&self) -> TransportSettings {
        self.settings
    }

    /// POST `body` as JSON and return the response body as a stream, once
    /// a 2xx status arrived (after retries).
    pub fn post_stream(
        &self,
        url: &str,
        headers: &[(&'static str, String)],
        body: &Value,
        cancel: Option<&CancelFlag>,
    ) -> Result<ByteStream, ProviderError> {
        let bytes = serde_json::to_vec(body).map_err(|e| ProviderError::Config(e.to_string()))?;
        let mut all_headers = vec![
            ("content-type", "application/json".to_string()),
            ("accept", "text/event-stream".to_string()),
        ];
        all_headers.extend_from_slice(headers);
        self.open(|| Method::Post(bytes.clone()), url, &all_headers, cancel)
    }

    /// GET a JSON document (model lists).
    pub fn get_json(
        &self,
        url: &str,
        headers: &[(&'static str, String)],
        cancel: Option<&CancelFlag>,
    ) -> Result<Value, ProviderError> {
        let mut all_headers = vec![("accept", "application/json".to_string())];
        all_headers.extend_from_slice(headers);
        let mut stream = self.open(|| Method::Get, url, &all_headers, cancel)?;
        let mut body = Vec::new();
        while let Some(chunk) = stream.next_chunk(cancel)? {
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| self.malformed(format!("{url}: {e}")))
    }

    /// Sends until a 2xx head and its first body bytes arrive, retrying
    /// retryable statuses and transport failures that happened before any
    /// body byte was read (nothing was consumed, so a retry is invisible).
    fn open(
        &self,
        method: impl Fn() -> Method,
        url: &str,
        headers: &[(&'static str, String)],
        cancel: Option<&CancelFlag>,
    ) -> Result<ByteStream, ProviderError> {
        let mut attempt = 0;
        loop {
            if cancel.is_some_and(CancelFlag::is_cancelled) {
                return Err(ProviderError::Cancelled);
            }
            let retries_left = attempt < self.settings.max_retries;
            let receiver = worker::spawn(Exchange {
                agent: self.agent.clone(),
                method: method(),
                url: url.to_string(),
                headers: headers.to_vec(),
            })
            .map_err(|e| self.transport(format!("cannot start a request thread: {e}")))?;
            let mut stream = ByteStream {
                receiver,
                pending: None,
                finished: false,
                client: self.clone(),
            };
            let retry_after = match stream.wait_with(cancel)? {
                WireEvent::Head { status, .. } if (200..300).contains(&status) => {
                    match stream.wait_with(cancel)? {
                        WireEvent::Chunk(bytes) => {
                            stream.pending = Some(bytes);
                            return Ok(stream);
                        }
                        WireEvent::End => {
                            stream.finished = true;
                            return Ok(stream);
                        }
                        // Failed before the first body byte: safe to retry.
                        WireEvent::Failed {
                            retryable: true, ..
                        } if retries_left => None,
                        other => return Err(stream.unexpected(other)),
                    }
                }
                WireEvent::Head {
                    status,
                    retry_after,
                } => {
                    let body = stream.read_error_body(cancel)?;
                    if !(retries_left && is_retryable_status(status)) {
                        return Err(ProviderError::Http {
                            provider: self.provider.to_string(),
                            status,
                            message: self.redact(&error_message(&body)),
                        });
                    }
                    retry_after
                }
                // No response at all: connection refused or reset, connect
                // timeout (DNS and TLS failures are not retryable).
                WireEvent::Failed {
                    retryable: true, ..
                } if retries_left => None,
                WireEvent::Failed { message, .. } => return Err(self.transport(message)),
                other => return Err(stream.unexpected(other)),
            };
            drop(stream);
            let delay = delay_before_retry(attempt, retry_after.as_deref());
            if !sleep_unless_cancelled(delay, cancel) {
                return Err(ProviderError::Cancelled);
            }
            attempt += 1;
        }
    }

    pub fn redact(&self, text: &str) -> String {
        match &self.secret {
            Some(secret) if !secret.is_empty() => text.replace(secret.expose(), "***"),
            _ => text.to_string(),
        }
    }

    pub fn malformed(&self, message: impl AsRef<str>) -> ProviderError {
        ProviderError::Malformed {
            provider: self.provider.to_string(),
            message: self.redact(&truncate(message.as_ref(), 300)),
        }
    }

    fn transport(&self, message: impl AsRef<str>) -> ProviderError {
        ProviderError::Transport {
            provider: self.provider.to_string(),
            message: self.redact(message.as_ref()),
        }
    }

    fn idle(&self) -> ProviderError {
        ProviderError::IdleTimeout {
            provider: self.provider.to_string(),
            seconds: self.settings.idle_timeout.as_secs_f64().ceil() as u64,
        }
    }
}

/// A response body as it arrives. Dropping it abandons the exchange.
pub struct ByteStream {
    receiver: Receiver<WireEvent>,
    /// Bytes read while deciding whether to retry, not yet handed out.
    pending: Option<Vec<u8>>,
    finished: bool,
    client: HttpClient,
}

impl ByteStream {
    /// The client this stream belongs to (provider name, redaction).
    pub fn client(&self) -> &HttpClient {
        &self.client
    }

    /// The next bytes, `None` at the end of the body.
    pub fn next_chunk(
        &mut self,
        cancel: Option<&CancelFlag>,
    ) -> Result<Option<Vec<u8>>, ProviderError> {
        if cancel.is_some_and(CancelFlag::is_cancelled) {
            return Err(ProviderError::Cancelled);
        }
        if let Some(bytes) = self.pending.take() {
            return Ok(Some(bytes));
        }
        if self.finished {
            return Ok(None);
        }
        match self.wait_with(cancel)? {
            WireEvent::Chunk(bytes) => Ok(Some(bytes)),
            WireEvent::End => {
                self.finished = true;
                Ok(None)
            }
            other => Err(self.unexpected(other)),
        }
    }

    fn wait_with(&mut self, cancel: Option<&CancelFlag>) -> Result<WireEvent, ProviderError> {
        worker::next_event(&self.receiver, cancel, self.client.settings.idle_timeout).map_err(
            |stop| match stop {
                WaitStop::Cancelled => ProviderError::Cancelled,
                WaitStop::Idle => self.client.idle(),
                WaitStop::WorkerGone => self.client.transport("the request thread ended early"),
            },
        )
    }

    /// An error body, bounded; a body that fails mid-way still yields what
    /// arrived.
    fn read_error_body(&mut self, cancel: Option<&CancelFlag>) -> Result<Vec<u8>, ProviderError> {
        let mut body = Vec::new();
        while body.len() < MAX_ERROR_BODY {
            match self.wait_with(cancel) {
                Ok(WireEvent::Chunk(bytes)) => body.extend_from_slice(&bytes),
                Ok(_) => break,
                Err(ProviderError::Cancelled) => return Err(ProviderError::Cancelled),
                Err(_) => break,
            }
        }
        body.truncate(MAX_ERROR_BODY);
        Ok(body)
    }

    fn unexpected(&self, event: WireEvent) -> ProviderError {
        match event {
            WireEvent::Failed {
                timed_out: true, ..
            } => self.client.idle(),
            WireEvent::Failed { message, .. } => self.client.transport(message),
            WireEvent::Head { status, .. } => self
                .client
                .malformed(format!("a second response head ({status})")),
            WireEvent::Chunk(_) | WireEvent::End => {
                self.client.malformed("a response body before its head")
            }
        }
    }
}
