//! What the executor's pipeline hands from one stage to the next: the
//! admitted call, the gates' verdict, a call ready to run, and what running
//! it produced.

use std::time::Instant;

use serde_json::Value;
use warden_protocol::{CancelFlag, Resource, ToolError, ToolKind};

use super::commands::Plan;
use super::{ExecRecord, Outcome};
use crate::ports::Approval;
use crate::tools::ToolCall;

/// The validated call, ready to dispatch.
pub(super) struct Admitted {
    pub(super) call: ToolCall,
    pub(super) target: Option<Resource>,
    pub(super) plan: Plan,
}

pub(super) enum Gate {
    Admitted(Admitted),
    NeedsApproval(Approval),
}

/// The result of the gates: an outcome already (refused, waiting for
/// approval, answered from knowledge), or a call ready to run.
#[allow(clippy::large_enum_variant)] // built once per call and moved once
pub enum Prepared {
    Done(Outcome),
    Ready(Ready),
}

/// A call that passed every gate and was audited as allowed.
pub struct Ready {
    pub(super) admitted: Admitted,
    pub(super) kind: ToolKind,
    pub(super) tool: String,
    pub(super) arguments: Value,
    pub(super) target_id: Option<String>,
    pub(super) cache_key: Option<String>,
    pub(super) started: Instant,
    pub(super) approval: Option<Approval>,
    pub(super) cancel: CancelFlag,
}

impl Ready {
    /// Reads that run a command touch no session state until `finish`:
    /// they may run side by side.
    pub fn may_run_in_parallel(&self) -> bool {
        self.kind == ToolKind::Read && !matches!(self.admitted.plan, Plan::Internal)
    }

    /// The resource the call acts on (empty when none): calls side by side
    /// are limited per target.
    pub fn target_key(&self) -> &str {
        self.target_id.as_deref().unwrap_or_default()
    }
}

/// What running a ready call produced.
pub struct Performed {
    /// `None` for calls answered from Warden's own state (done in `finish`).
    pub(super) result: Option<Result<Value, ToolError>>,
    pub(super) execs: Vec<ExecRecord>,
    /// A command may have started on a host (it came back, timed out, was
    /// interrupted): for a write, the world may have changed.
    pub(super) reached_host: bool,
}
