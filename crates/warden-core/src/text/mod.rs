//! Reading the user's words, shared by the agentic loop (context prefetch)
//! and the router, so that neither imports the other:
//!
//! - `names`: whether a word names a resource (exact, alias, or the fuzzy
//!   rules: a ≥4-character prefix, a hyphen part, a ≥5-character part).
//! - `typed_command`: whether a request is itself a shell command
//!   ("df -h", "$ uptime", "run `docker ps`"), and the command.
//! - `aimed`: where a typed command is aimed (`… on NAME`, `… @NAME`,
//!   `on NAME: …`).

mod aimed;
mod names;
mod typed_command;

pub use names::name_matches;
pub use typed_command::{TypedCommand, looks_like_command, typed_command, unquote};
