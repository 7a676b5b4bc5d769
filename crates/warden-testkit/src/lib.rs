//! What Warden's tests stand on, one implementation each. A dev-dependency
//! only (`publish = false`); nothing in production links it.
//!
//! # Map
//!
//! - [`model`]: a fake model server on loopback that speaks the real wire
//!   formats over real HTTP and SSE — OpenAI-compatible chat completions
//!   (and `/v1/models`), Anthropic messages, Gemini
//!   `streamGenerateContent` ([`model::Wire`]). One scripting API: a queue
//!   of replies, each a wire-neutral [`model::Turn`] (text, tool calls with
//!   arguments, usage, finish reason, pacing) or a raw [`model::Reply`]
//!   (HTTP errors with `Retry-After`, keep-alives forever, stalls, streams
//!   cut off or malformed, any framing); replies chosen from the request
//!   (by the last user message) for servers that run many sessions; every
//!   request recorded ([`model::Recorded`]: method, path, headers, the
//!   model, `max_tokens`, the full JSON) and counted.
//! - [`agent_peer`]: the scripted agent — an agent-protocol peer on a raw
//!   WebSocket (`spec/agent.md`), well-behaved or hostile, against a real
//!   server; and its enrollment over HTTP.
//! - [`agent_server`]: the other side — a fake Warden server speaking the
//!   agent protocol (enrollment, challenge, grants it signs, scripted
//!   misbehaviour) for tests of real agents; [`exec_requests`] builds the
//!   `exec` frames and grant claims both sides send.
//! - [`fixtures`]: resources and inventories tests build again and again;
//!   with the `warden-core` feature, simulated hosts; with `warden-store`,
//!   a temporary store with sessions and enrolled agents; with
//!   `warden-infra`, the `fakepve` launcher (a real fake Proxmox VE API).
//! - `agent_runner` (feature `warden-agent`): the real agent library run
//!   in-process with test settings (fast back-off, no discovery).
//! - `test_server` (feature `warden-server`): the real server in-process on
//!   loopback with simulated hosts, a temporary store, a token per role and
//!   an in-process scripted model (`ScriptBook`); enrollment and agent
//!   sockets for the scripted agent.
//! - [`tls`]: certificates made on the fly (self-signed or from a fresh
//!   CA), a rustls server configuration and an axum listener that does TLS.
//! - [`http`]: reqwest clients on rustls/`ring` (reqwest is built without a
//!   default crypto provider here), plain or pinned to a certificate
//!   (`warden-infra` feature).
//! - [`sse`]: an SSE reader over a response body (the server's event
//!   streams).
//! - [`serve_process`]: `warden serve` as a separate process (the binary
//!   under test given by path), its address read from what it prints,
//!   stopped with SIGTERM; tokens made offline.
//! - [`net`], [`time`]: free ports, a URL where nothing listens;
//!   `now_ms`/`now_us`, polling until a condition holds.
//!
//! # Features
//!
//! Each optional workspace crate is a feature of the same name
//! (`warden-core`, `warden-store`, `warden-infra`, `warden-agent`,
//! `warden-server`): a crate's tests enable only what they use, so testing
//! a low crate does not build the ones above it.
//!
//! Everything here panics on failure: it runs inside tests, where a panic
//! is a failed test with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test support: a panic is a failed test

pub mod agent_peer;
#[cfg(feature = "warden-agent")]
pub mod agent_runner;
pub mod agent_server;
pub mod exec_requests;
pub mod fixtures;
pub mod http;
pub mod model;
pub mod net;
pub mod serve_process;
pub mod sse;
#[cfg(feature = "warden-server")]
pub mod test_server;
pub mod time;
pub mod tls;
