//! The model seam. A [`Provider`] turns the conversation into a reply (text,
//! tool calls, or both), streaming text as it arrives. The agentic loop in
//! `warden-core` only ever talks to this trait; the model *proposes* tool
//! calls and never runs anything itself.
//!
//! - [`types`]: messages, tool specs, replies, usage, stream deltas;
//! - [`provider`]: the [`Provider`] trait and [`ProviderError`];
//! - [`scripted`]: a provider that plays a fixed script (replay, tests);
//! - [`config`] and [`connect()`]: a real provider from a [`ProviderConfig`]:
//!   [`openai`] (any OpenAI-compatible server, Ollama included),
//!   [`anthropic`], [`gemini`]; [`models`] picks a model when none is set;
//! - [`sse`], [`assemble`]: the stream decoder and tool-call assembly the
//!   providers share; [`http`]: the transport.
//!
//! # Transport
//!
//! HTTP goes through `ureq` 3, a blocking client: the core loop is
//! synchronous and calls [`Provider::complete`] on a plain thread, so an
//! async runtime would only add weight; ureq builds small (rustls, no
//! tokio/hyper) and its response body is a plain `Read`, which is all a
//! stream needs.
//!
//! **Idle timeout and cancellation.** A blocking read cannot be
//! interrupted, so each exchange runs on a worker thread that sends the
//! response head and body bytes through a channel. The calling thread waits
//! on the channel in 50 ms slices: between slices it checks the request's
//! [`CancelFlag`](warden_protocol::CancelFlag) (→ [`ProviderError::Cancelled`]) and
//! whether nothing arrived for `idle_timeout` (→ [`ProviderError::IdleTimeout`];
//! this covers the wait for the response head too). Giving up drops the
//! receiver; the worker ends at its next send, and a ureq read deadline of
//! idle timeout + 30 s ends it if the server stays silent.
//!
//! **Retries.** 429, 500, 502, 503, 504 and 529, and transport failures that
//! happen before any response body byte was read, are retried up to
//! `max_retries` times (default 3) after an exponential backoff with full
//! jitter (500 ms ceiling, doubling, at most 30 s), or after the server's
//! `Retry-After` (seconds or HTTP-date, capped at 60 s). The wait is
//! cancellable. Once body bytes were consumed nothing is retried, except an
//! Anthropic `overloaded_error` event that arrives before any delta went to
//! the caller. Other error statuses become [`ProviderError::Http`] with the
//! server's own message; an error reported inside a stream (or a reply the
//! provider withheld, e.g. a safety stop) is [`ProviderError::Stream`].
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
pub mod streamed_reply;
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
