//! One program: the CLI and the server share one turn runner, one event
//! vocabulary and one effective configuration. Every configuration key
//! takes effect through both (`keys`), and one scripted conversation gives
//! the same events through `ask --json` and through the API (`golden`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

#[path = "../../../warden-llm/tests/support/mod.rs"]
mod fake;
#[path = "../../../warden-infra/tests/fakepve/mod.rs"]
mod fakepve;

mod golden;
mod keys;
mod pve;
mod remote;
mod support;
