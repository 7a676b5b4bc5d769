//! `--server URL`: the CLI as a client of `warden serve` (spec/api.md), so
//! an operator can ask, chat and decide approvals from any terminal. The
//! server runs the turn (the same turn runner as `warden ask`); the terminal
//! shows the session's stream — the same typed events, the same display,
//! the same REPL — and posts decisions.

mod client;
pub mod session;

pub use client::{RemoteArgs, RemoteClient};
