//! How a turn ended and what it left behind, so every surface (the
//! terminal, `ask`'s exit code, the JSON stream, the server) tells the same
//! truth: answered, retracted, waiting for a human, refused, failed.

use warden_protocol::{ErrorCode, ToolKind, ToolResponse};

/// Why the loop stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    /// The model (or the router) answered.
    Answered,
    /// The answer claimed actions or live values that no tool call showed;
    /// it was replaced by a retraction.
    Retracted,
    /// A write ran but no read verified it before the turn ended.
    Unverified,
    /// The user cancelled the turn.
    Cancelled,
    /// The model kept proposing the same call.
    LoopDetected { tool: String },
    /// Several replies in a row whose every tool call failed.
    FailingCalls { codes: Vec<ErrorCode> },
    /// The conversation's token budget is spent.
    BudgetExceeded,
    /// The model failed: unreachable, truncated, rate-limited, an error
    /// inside its stream. `code` is stable (`MODEL_TRUNCATED`, …).
    ModelFailed { code: &'static str, message: String },
    /// The model-call limit for one message was reached without an answer.
    ModelCallLimit { calls: usize },
    /// Replay only: the script had no more replies.
    ScriptExhausted,
}

impl TurnEnd {
    /// The code of the `error` event this end deserves, if any.
    pub fn error_code(&self) -> Option<&'static str> {
        match self {
            TurnEnd::Answered | TurnEnd::ScriptExhausted => None,
            TurnEnd::Retracted => Some("PHANTOM_DETECTED"),
            TurnEnd::Unverified => Some("UNVERIFIED_WRITE"),
            TurnEnd::Cancelled => Some("CANCELLED"),
            TurnEnd::LoopDetected { .. } => Some("LOOP_DETECTED"),
            TurnEnd::FailingCalls { .. } => Some("TOOL_CALLS_FAILING"),
            TurnEnd::BudgetExceeded => Some("BUDGET_EXCEEDED"),
            TurnEnd::ModelFailed { code, .. } => Some(code),
            TurnEnd::ModelCallLimit { .. } => Some("MODEL_CALL_LIMIT"),
        }
    }
}

/// What one turn produced.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnResult {
    pub final_text: Option<String>,
    pub end: TurnEnd,
    /// Approval requests this turn left open.
    pub pending_approvals: Vec<String>,
    /// Writes refused this turn: denied, expired, or blocked by policy.
    pub refused_writes: usize,
    /// The last read or write of the turn failed: an answer resting on it
    /// rests on a failure.
    pub last_call_failed: bool,
}

/// Bookkeeping across the calls of one turn.
#[derive(Debug, Default)]
pub(super) struct TurnTally {
    pub pending_approvals: Vec<String>,
    pub refused_writes: usize,
    pub last_call_failed: bool,
    /// A call that LOOP_DETECTED refused, by tool.
    pub looping_tool: Option<String>,
    /// Error codes of the latest reply whose every call failed.
    pub failing_codes: Vec<ErrorCode>,
    /// Writes interrupted after they were sent, with what the check after
    /// them showed.
    pub interrupted_writes: Vec<String>,
    /// What the answer may rest on (grounding).
    pub evidence: super::grounding::Evidence,
}

impl TurnTally {
    /// Note the final outcome of one call (after rewrites and approvals).
    pub fn record(&mut self, tool: &str, kind: ToolKind, response: &ToolResponse) {
        let code = response.error_code();
        match code {
            Some(ErrorCode::ApprovalRequired) => {
                if let Some(id) = response
                    .error
                    .as_ref()
                    .and_then(|e| e.details.extra.get("approval_id"))
                    .and_then(|v| v.as_str())
                {
                    self.pending_approvals.push(id.to_string());
                }
            }
            Some(
                ErrorCode::ApprovalDenied | ErrorCode::ApprovalExpired | ErrorCode::PolicyBlocked,
            ) if kind == ToolKind::Write => self.refused_writes += 1,
            // A change attempted through the read tool, refused.
            Some(ErrorCode::ReadOnlyViolation) => self.refused_writes += 1,
            Some(ErrorCode::LoopDetected) => self.looping_tool = Some(tool.to_string()),
            _ => {}
        }
        if matches!(kind, ToolKind::Read | ToolKind::Write) {
            if response.ok {
                self.last_call_failed = false;
            } else if !response.is_blocked() {
                self.last_call_failed = true;
            }
        }
    }
}

/// The text that ends a turn stopped by a loop of identical calls.
pub(super) fn loop_message(tool: &str) -> String {
    format!(
        "Stopped: the model kept proposing the same `{tool}` call with the same arguments, so it was not run again and this request ends here. Nothing more runs; ask again in other words if you still need it."
    )
}

/// The text that ends a turn whose replies kept failing.
pub(super) fn failing_message(replies: usize, codes: &[ErrorCode]) -> String {
    let mut names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
    names.dedup();
    format!(
        "Stopped: {replies} replies in a row had only failing or refused tool calls (last: {}). Nothing more runs for this request.",
        names.join(", ")
    )
}

/// The stable code of a model failure.
pub(super) fn model_failure_code(error: &warden_llm::ProviderError) -> &'static str {
    use warden_llm::ProviderError as E;
    match error {
        E::Truncated { .. } => "MODEL_TRUNCATED",
        E::RateLimited { .. } => "MODEL_RATE_LIMITED",
        E::Deadline { .. } | E::IdleTimeout { .. } => "MODEL_TIMEOUT",
        E::ReplyTooLarge { .. } => "MODEL_REPLY_TOO_LARGE",
        E::Transport { .. } => "MODEL_UNREACHABLE",
        E::Config(_) | E::NoModel(_) => "MODEL_NOT_CONFIGURED",
        E::Http { .. } | E::Stream { .. } | E::Malformed { .. } | E::Failed(_) => "MODEL_ERROR",
        E::Cancelled => "CANCELLED",
        E::ScriptExhausted => "SCRIPT_EXHAUSTED",
    }
}
