//! The model seam. A [`Provider`] turns the conversation into a reply (text,
//! tool calls, or both), streaming text as it arrives. The agentic loop in
//! `warden-core` only ever talks to this trait; the model *proposes* tool
//! calls and never runs anything itself.
//!
//! - [`types`]: messages, tool specs, replies, usage, stream deltas;
//! - [`provider`]: the [`Provider`] trait and [`ProviderError`];
//! - [`scripted`]: a provider that plays a fixed script (replay, tests);
//! - [`config`], [`connect()`] and [`connect_or_unavailable()`]: a real
//!   provider from a [`ProviderConfig`]: [`openai`] (any OpenAI-compatible
//!   server; Ollama is its own [`ProviderKind`] on the same wire format),
//!   [`anthropic`], [`gemini`]; [`models`] picks a model when none is set;
//! - [`sse`], [`assemble`]: the stream decoder and tool-call assembly the
//!   providers share (with the reply rules below); [`http`]: the transport.
//!
//! # Connecting
//!
//! [`connect()`] validates the configuration and builds the provider; it
//! never touches the network. A model that is not configured is read from
//! the provider's live list on the first call and kept ([`models`]); until
//! then `identity()` reports the model as `auto`. [`connect_or_unavailable()`]
//! turns a configuration error (no key, a bad URL) into a provider that
//! fails every call with that error, so the no-model router that wraps it
//! keeps working. Every error names the configured kind (`ollama`, not
//! `openai`, for Ollama).
//!
//! # Transport
//!
//! Async reqwest on rustls with the `ring` provider and the `webpki-roots`
//! CA set; HTTP/2 where the server offers it. A waiting call is a future,
//! not a thread: the server runs a thousand conversations on two cores.
//! (Name resolution uses tokio's blocking pool briefly.)
//!
//! **Waiting.** Every wait of a call (connect, response head, body bytes,
//! retry pauses) races the turn's [`CancelFlag`](warden_protocol::CancelFlag)
//! (→ [`ProviderError::Cancelled`]) and three clocks:
//! - the overall deadline, `request_timeout` (default 600 s), over the
//!   whole call including the model lookup, retries and waits
//!   (→ [`ProviderError::Deadline`]);
//! - the idle timeout, `idle_timeout` (default 60 s), which only data
//!   resets: SSE comments (`: keep-alive`), blank lines and ping events do
//!   not (→ [`ProviderError::IdleTimeout`]; not retried);
//! - progress: after 5 s without data, and every 10 s after that, a
//!   [`Delta::Notice`] "waiting for the model… N s".
//!
//! Dropping the future abandons the call; the response is dropped with it
//! and the connection closed (an HTTP/2 stream is reset).
//!
//! **Retries.** 429, 500, 502, 503, 504 and 529, and connections that fail
//! before any response body byte (refused, reset, connect timeout; not TLS
//! certificate errors), are retried up to `max_retries` times (default 3)
//! after an exponential backoff with full jitter (500 ms ceiling, doubling,
//! at most 30 s), or after the server's `Retry-After` (seconds or
//! HTTP-date). A `Retry-After` longer than `max_retry_after` (default
//! 30 s), or one that would end past the deadline, is reported at once as
//! [`ProviderError::RateLimited`] instead of a silent wait. Each wait is
//! announced: "rate-limited by ollama: retrying in 5 s", "anthropic
//! answered 529: retrying in 1 s (attempt 2 of 4)", "cannot reach ollama:
//! retrying in 1 s (attempt 2 of 4)". Other error statuses become
//! [`ProviderError::Http`] with the server's own message; redirects are not
//! followed (an API POST must not be replayed elsewhere) and are reported
//! with their target. An error reported inside a stream (or a reply the
//! provider withheld, e.g. a safety stop) is [`ProviderError::Stream`]; an
//! Anthropic `overloaded_error` event before any delta went to the caller
//! is retried like a 529.
//!
//! **Complete or truncated.** A reply counts only when its stream said it
//! was finished: `[DONE]` or a `finish_reason` (OpenAI-compatible; EOF right
//! after a `finish_reason` is fine), `message_stop` or a `stop_reason`
//! (Anthropic), a `finishReason` on the last candidate (Gemini). A stream
//! that ends without one, ends inside a tool call (arguments cut mid-JSON,
//! whatever the finish reason), or whose connection breaks mid-body is
//! tried once more if nothing of the answer reached the caller yet
//! (streamed text cannot be taken back); otherwise it is
//! [`ProviderError::Truncated`], never a short answer.
//!
//! **Size.** Text plus tool-call arguments of one reply are capped at
//! `max_reply_bytes` (default 256 KiB; → [`ProviderError::ReplyTooLarge`],
//! reading stops), a whole response body at 64 MiB.
//!
//! **Keys** travel in headers only (`Authorization`, `x-api-key`,
//! `x-goog-api-key`), are wrapped in [`Secret`] (prints `***`), and are
//! removed from any server text that reaches an error.
#![forbid(unsafe_code)]

pub mod anthropic;
pub mod assemble;
mod cancel;
pub mod config;
mod connect;
mod conversation;
mod event_stream;
pub mod gemini;
mod gemini_schema;
pub mod http;
pub mod models;
pub mod openai;
pub mod provider;
pub mod scripted;
mod secret;
pub mod sse;
mod streamed_reply;
pub mod types;
mod unavailable;

pub use config::{ProviderConfig, ProviderKind, WireFormat};
pub use connect::{connect, connect_or_unavailable};
pub use provider::{BoxFuture, Provider, ProviderError};
pub use scripted::ScriptedProvider;
pub use secret::Secret;
pub use types::{
    Delta, Message, ModelReply, ModelRequest, ProposedToolCall, ToolOffer, ToolSpec, Usage,
};
pub use unavailable::UnavailableProvider;
