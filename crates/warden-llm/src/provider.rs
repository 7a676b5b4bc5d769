//! The provider trait: streaming-first and asynchronous. Deltas go to
//! `on_delta` as they arrive; the assembled reply is the future's output.
//! A waiting model call holds no thread: the server runs a thousand
//! conversations on a couple of workers.

use std::future::Future;
use std::pin::Pin;

use crate::types::{Delta, ModelReply, ModelRequest};

/// A boxed future that can move between threads (object-safe async).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The scripted provider has no more replies for this turn.
    #[error("the script has no more replies")]
    ScriptExhausted,
    /// The user cancelled the turn while the model was answering.
    #[error("cancelled")]
    Cancelled,
    /// Configuration that cannot work (no base URL, no model, bad key format).
    #[error("provider configuration: {0}")]
    Config(String),
    /// No model could be chosen: none configured and none usable listed.
    #[error("no usable model: {0}")]
    NoModel(String),
    /// The server answered with an error status (after retries, if any).
    #[error("{provider} answered HTTP {status}: {message}")]
    Http {
        provider: String,
        status: u16,
        message: String,
    },
    /// Connection, TLS or read failures (after retries).
    #[error("cannot reach {provider}: {message}")]
    Transport { provider: String, message: String },
    /// No data arrived for longer than the idle-read timeout.
    #[error("{provider} sent nothing for {seconds} s")]
    IdleTimeout { provider: String, seconds: u64 },
    /// The provider reported an error inside a streamed reply (an `error`
    /// event or chunk), or ended it without an answer (a safety block).
    #[error("{provider} failed while answering: {message}")]
    Stream { provider: String, message: String },
    /// The response could not be understood at all.
    #[error("{provider} sent a malformed response: {message}")]
    Malformed { provider: String, message: String },
    /// The stream ended without a finish reason (no `[DONE]`, no stop
    /// event), in the middle of a tool call, or on a broken connection:
    /// after one retry, or at once when part of the answer was already
    /// streamed (see the crate docs). The partial answer must
    /// not be shown or acted on as complete.
    #[error("{provider} ended its answer early (truncated): {message}")]
    Truncated { provider: String, message: String },
    /// The server asked to wait longer than Warden waits on its own.
    #[error("{provider} is rate-limiting requests for {retry_after_secs} s")]
    RateLimited {
        provider: String,
        retry_after_secs: u64,
    },
    /// The whole call took longer than `request_timeout_secs`, whatever
    /// keep-alives arrived.
    #[error("{provider} did not finish answering within {seconds} s")]
    Deadline { provider: String, seconds: u64 },
    /// The reply grew past `max_reply_bytes`.
    #[error("{provider} sent a reply larger than {limit_bytes} bytes")]
    ReplyTooLarge {
        provider: String,
        limit_bytes: usize,
    },
    /// Anything else, already phrased for the user.
    #[error("provider error: {0}")]
    Failed(String),
}

pub trait Provider: Send {
    /// One model call. Dropping the future abandons the call (the
    /// connection is closed); providers also stop when `request.cancel`
    /// is set, with [`ProviderError::Cancelled`].
    fn complete<'a>(
        &'a mut self,
        request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>>;

    /// Provider and model names, for metrics and cost accounting.
    fn identity(&self) -> (&str, &str);

    /// Whether the text of the last reply is Warden's own deterministic
    /// wording (the no-LLM router's templates over tool results or policy
    /// facts) rather than model prose. Only such text is exempt from
    /// phantom detection; every real model keeps the default.
    fn last_text_is_deterministic(&self) -> bool {
        false
    }

    /// Whether calls need the tools' schemas in their request. Only a
    /// provider that never reads them (the router with no model behind
    /// it) says no, and a one-shot request then does not build them.
    fn reads_tool_schemas(&self) -> bool {
        true
    }
}
