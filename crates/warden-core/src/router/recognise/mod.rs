//! Recognising a request: text → [`Intent`](intent::Intent).

mod command_parser;
mod fast;
mod fast_facts;
mod fast_guests;
mod heuristics;
pub mod intent;
mod modifiers;
pub(super) mod since;
pub(super) mod suggest;
mod window;
