//! Warden's safety core. This crate owns the decisions that make
//! "discover → read → write → verify" structural: the session FSM and the
//! ResolvedContext (what this session has discovered). Pure logic: time is
//! passed in, nothing here does IO.
#![forbid(unsafe_code)]

pub mod agent;
pub mod context;
pub mod executor;
pub mod fsm;
pub mod knowledge;
pub mod ports;
pub mod redact;
pub mod router;
pub mod simulated;
pub mod telemetry;
mod text;
pub mod tools;
pub mod turn;

pub use context::{Lookup, Registration, ResolvedContext, ResolvedEntry};
pub use fsm::{FsmBlock, SessionFsm, Transition};
