//! Types shared across Warden (server, CLI, agents, web UI), serde only, no IO:
//!
//! - [`envelope`]: the [`ToolResponse`] envelope every tool call returns
//!   (DESIGN invariant 6) and its structured [`ToolError`];
//! - [`codes`]: the [`ErrorCode`]s the model and the router recover from;
//! - [`resource`]: [`ResourceKind`], canonical [`ResourceId`]s
//!   (`lxc:pve1:141`, `node:pve1`) and inventory [`Resource`]s;
//! - [`session`]: [`ToolKind`], [`ControlLevel`] and the FSM's [`FsmState`];
//! - [`events`]: the one event vocabulary of a turn ([`StreamEvent`]s in their
//!   [`EventEnvelope`]), shared by `ask --json`, the SSE stream and the remote CLI;
//! - [`views`]: the API's approval and session shapes that clients read back;
//! - [`approvals`]: approval requests and audit records, shared by the core
//!   and the store;
//! - [`cancel`]: the [`CancelFlag`] one user turn shares with everything it starts;
//! - [`routing`]: where and how a call for a resource runs (this machine,
//!   an agent and its hop, the Proxmox API, or why nothing can), and the
//!   `docker exec`/`pct exec` line for a hop: the one routing module;
//! - [`agent`]: the agent protocol (`spec/agent.md`): frames, grants, the
//!   hello signature, enrollment bodies.
//!
//! Everything here is a wire format: every type round-trips through serde,
//! and the exact JSON is pinned by tests, because the server, the CLI, the
//! agents and the web UI may be built from different commits.
#![forbid(unsafe_code)]

pub mod agent;
pub mod approvals;
pub mod cancel;
pub mod canonical;
pub mod codes;
pub mod envelope;
pub mod events;
pub mod metrics;
pub mod resource;
pub mod routing;
pub mod session;
mod tool_error;
pub mod views;

pub use approvals::{
    Approval, ApprovalState, AuditRecord, FileBefore, SnapshotOffer, UnknownApprovalState,
};
pub use cancel::CancelFlag;
pub use canonical::canonical_json;
pub use codes::{ErrorCode, UnknownErrorCode};
pub use envelope::{ErrorDetails, ResponseMeta, ToolError, ToolResponse};
pub use events::{
    ApprovalDecision, EventEnvelope, MAX_TOOL_OUTPUT_BYTES, RouteSummary, StreamEvent, TurnEndKind,
    TurnOutcome, clip,
};
pub use resource::{Resource, ResourceId, ResourceIdError, ResourceKind, UnknownResourceKind};
pub use session::{
    ControlLevel, FsmState, ToolKind, UnknownControlLevel, UnknownFsmState, UnknownToolKind,
};
