//! Warden's command policy: decides, from a shell command's text alone,
//! whether it is provably read-only and bounded.
//!
//! Pure: no IO, no async, no global mutable state. The entry point is
//! [`classify`]. Unknown means write.
#![forbid(unsafe_code)]

pub mod catastrophic;
pub mod commands;
pub mod devices;
mod engine;
pub mod env_vars;
pub mod inspect;
pub mod invocation;
pub mod options;
pub mod paths;
pub mod shell;
pub mod verdict;

pub use verdict::{Autonomy, Classification, Intent, Interactive, InteractiveCategory, Risk};

pub use engine::classify;
