//! Warden's safety core: the decisions that make "discover → read → write
//! → verify" structural, and the one turn runner every front end uses. The
//! world's parts come in through [`ports`]; nothing here opens a file,
//! a socket or a process itself.
//!
//! A user message, in order:
//!
//! - [`turn`]: the one turn runner ([`turn::TurnRunner`]) for `ask`, `chat`,
//!   the server's sessions and Patrol: configuration ([`turn::TurnConfig`]),
//!   the loop's events as the stream's events, the stored conversation, the
//!   verdict a turn ends with;
//! - [`agent`]: the agentic loop of one message: mentions, model calls,
//!   tool calls in parallel, approvals, loop detection, budgets, phantom
//!   detection, the system prompt;
//! - [`router`]: Warden without a model (recognise → plan → routes →
//!   render), a provider like any model;
//! - [`executor`]: the one choke point every tool call goes through, the
//!   ordered pipeline of gates, then dispatch (shell commands routed by
//!   `warden_protocol::routing`, Proxmox API calls, internal tools);
//! - [`tools`]: the tool catalogue, argument types and their JSON schemas;
//! - [`fsm`] and [`context`]: session truth in memory — the FSM and the
//!   ResolvedContext (what the session discovered);
//! - [`knowledge`]: facts from successful reads, served again while fresh;
//! - [`redact`]: secrets taken out of tool output before a model, the store
//!   or a stream sees it;
//! - [`ports`]: the traits the world implements (inventory, hosts, guest
//!   API, approvals, audit, notes, conversations) and [`ports::Backends`];
//! - [`simulated`]: simulated hosts and inventories (replays, tests,
//!   `warden explain`);
//! - [`telemetry`]: Prometheus counters with bounded labels.
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
