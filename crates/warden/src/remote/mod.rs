//! `--server URL`: the CLI as a client of `warden serve` (spec/api.md), so
//! an operator can ask, chat and decide approvals from any terminal. The
//! server runs the loop, the executor and the approvals; the terminal only
//! shows the session's event stream and posts decisions.

mod client;
mod events;
pub mod session;

pub use client::{RemoteArgs, RemoteClient};
