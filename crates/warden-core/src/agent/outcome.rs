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
    /// A call failed and nothing after it succeeded in its place (the same
    /// tool, action and target): the answer rests on a failure.
    pub rests_on_failure: bool,
}

/// Bookkeeping across the calls of one turn.
#[derive(Debug, Default)]
pub(super) struct TurnTally {
    pub pending_approvals: Vec<String>,
    pub refused_writes: usize,
    /// Failed calls (`tool action target`) that no later call of the same
    /// tool, action and target replaced with a success.
    pub failed_calls: std::collections::BTreeSet<String>,
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
    pub fn record(
        &mut self,
        tool: &str,
        arguments: &serde_json::Value,
        kind: ToolKind,
        response: &ToolResponse,
    ) {
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
        let key = call_key(tool, arguments);
        if response.ok {
            self.failed_calls.remove(&key);
        } else if answer_rests_on(kind, code, response.is_blocked()) {
            self.failed_calls.insert(key);
        }
    }

    /// Whether the answer rests on a call that failed.
    pub fn rests_on_failure(&self) -> bool {
        !self.failed_calls.is_empty()
    }
}

/// `read exec host:web1`: what a later call must match to stand in for a
/// failed one (a retry, or the same question asked another way).
fn call_key(tool: &str, arguments: &serde_json::Value) -> String {
    let field = |name: &str| arguments.get(name).and_then(|v| v.as_str()).unwrap_or("");
    format!("{tool} {} {}", field("action"), field("target"))
}

/// A failed call the answer rests on: every failure of a read, a write or
/// a lookup whatever its code (unreachable, not found, timed out, a node
/// offline, no guest agent, a secret withheld, a protected path), except
/// a lookup that found nothing (discovery goes on) and the gates'
/// refusals the model can recover from (they are counted as refused
/// writes or pending approvals where they stop a change).
fn answer_rests_on(kind: ToolKind, code: Option<ErrorCode>, blocked: bool) -> bool {
    match (kind, code) {
        (ToolKind::Resolve, Some(ErrorCode::NotFound)) => false,
        (_, Some(ErrorCode::ProtectedPath)) => true,
        _ => !blocked,
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

#[cfg(test)]
mod tests {
    use serde_json::json;
    use warden_protocol::{ToolError, ToolResponse};

    use super::*;

    fn failed(code: ErrorCode) -> ToolResponse {
        ToolResponse::failure(ToolError::new(code, "failed"))
    }

    #[test]
    fn every_failure_the_answer_rests_on_counts_whatever_its_code() {
        let read = json!({"action": "exec", "target": "host:web1", "command": "uptime"});
        let get = json!({"action": "get", "target": "vm:pve1:101"});
        for code in [
            ErrorCode::Unavailable,
            ErrorCode::NotFound,
            ErrorCode::Timeout,
            ErrorCode::ExecutionFailed,
            ErrorCode::SecretInOutput,
            ErrorCode::Internal,
            ErrorCode::ProtectedPath,
        ] {
            let mut tally = TurnTally::default();
            tally.record("read", &read, ToolKind::Read, &failed(code));
            assert!(tally.rests_on_failure(), "{code:?}");
        }
        // A lookup that cannot reach its source is a failure; one that
        // finds nothing is part of discovery.
        let mut tally = TurnTally::default();
        tally.record(
            "query",
            &get,
            ToolKind::Resolve,
            &failed(ErrorCode::Unavailable),
        );
        assert!(tally.rests_on_failure());
        let mut tally = TurnTally::default();
        tally.record(
            "query",
            &get,
            ToolKind::Resolve,
            &failed(ErrorCode::NotFound),
        );
        assert!(!tally.rests_on_failure());
    }

    #[test]
    fn a_later_success_in_its_place_replaces_a_failure_and_no_other_does() {
        let on = |target: &str| json!({"action": "exec", "target": target, "command": "uptime"});
        let ok = ToolResponse::success(json!({"stdout": "up"}));
        let mut tally = TurnTally::default();
        tally.record(
            "read",
            &on("host:a"),
            ToolKind::Read,
            &failed(ErrorCode::Unavailable),
        );
        tally.record("read", &on("host:b"), ToolKind::Read, &ok);
        assert!(
            tally.rests_on_failure(),
            "another host's success proves nothing"
        );
        tally.record("read", &on("host:a"), ToolKind::Read, &ok);
        assert!(!tally.rests_on_failure(), "the retry succeeded");
    }
}
