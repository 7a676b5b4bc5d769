//! One program: the CLI and the server share one turn runner, one event
//! vocabulary and one effective configuration. Every configuration key
//! takes effect through both (`keys`), and one scripted conversation gives
//! the same events through `ask --json` and through the API (`golden`).

mod golden;
pub mod keys;
mod pve;
mod remote;
pub mod support;
