//! One reading of how a turn went, so every surface tells the same truth:
//! the `outcome` of the `done` event, the `error` event that precedes it,
//! and the verdict `warden ask` turns into its exit code — locally and
//! through a server alike.

use warden_protocol::{RouteSummary, TurnEndKind, TurnOutcome};

use crate::agent::{TurnEnd, TurnResult};

/// What a turn amounts to for whoever asked, most important first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    Answered,
    /// Nothing matched and no model is configured.
    NotUnderstood,
    /// A tool call failed and the answer rests on that failure.
    ToolFailed,
    /// An approval is still pending.
    ApprovalPending,
    /// A write was denied or refused by policy.
    WriteRefused,
    /// The model failed: unreachable, truncated, over budget, stuck, retracted.
    ModelFailed,
    Cancelled,
}

/// The protocol's reading of a turn's result.
pub fn outcome_of(result: &TurnResult) -> TurnOutcome {
    TurnOutcome {
        end: end_kind(&result.end),
        pending_approvals: result.pending_approvals.clone(),
        refused_writes: u32::try_from(result.refused_writes).unwrap_or(u32::MAX),
        failed_calls: result.rests_on_failure,
    }
}

fn end_kind(end: &TurnEnd) -> TurnEndKind {
    match end {
        TurnEnd::Answered => TurnEndKind::Answered,
        TurnEnd::Retracted => TurnEndKind::Retracted,
        TurnEnd::Unverified => TurnEndKind::Unverified,
        TurnEnd::Cancelled => TurnEndKind::Cancelled,
        TurnEnd::LoopDetected { .. } => TurnEndKind::LoopDetected,
        TurnEnd::FailingCalls { .. } => TurnEndKind::FailingCalls,
        TurnEnd::BudgetExceeded => TurnEndKind::BudgetExceeded,
        TurnEnd::ModelFailed { .. } => TurnEndKind::ModelFailed,
        TurnEnd::ModelCallLimit { .. } => TurnEndKind::ModelCallLimit,
        TurnEnd::ScriptExhausted => TurnEndKind::ScriptExhausted,
    }
}

/// The verdict on a turn from its `done` event's outcome and route.
pub fn verdict(outcome: &TurnOutcome, route: Option<&RouteSummary>) -> Verdict {
    match outcome.end {
        TurnEndKind::Cancelled => return Verdict::Cancelled,
        TurnEndKind::ModelFailed
        | TurnEndKind::BudgetExceeded
        | TurnEndKind::LoopDetected
        | TurnEndKind::ModelCallLimit
        | TurnEndKind::Retracted => return Verdict::ModelFailed,
        TurnEndKind::Answered
        | TurnEndKind::Unverified
        | TurnEndKind::FailingCalls
        | TurnEndKind::ScriptExhausted => {}
    }
    if !outcome.pending_approvals.is_empty() {
        Verdict::ApprovalPending
    } else if outcome.refused_writes > 0 {
        Verdict::WriteRefused
    } else if outcome.failed_calls
        || matches!(
            outcome.end,
            TurnEndKind::FailingCalls | TurnEndKind::Unverified
        )
    {
        Verdict::ToolFailed
    } else if route.is_some_and(|r| r.stage == "unmatched") {
        Verdict::NotUnderstood
    } else {
        Verdict::Answered
    }
}

/// The `error` event a turn deserves before its `done` (code, message),
/// beyond the ones the loop streamed as they happened (a retraction).
pub fn closing_error(
    result: &TurnResult,
    route: Option<&RouteSummary>,
) -> Option<(String, String)> {
    let end_code = match &result.end {
        TurnEnd::Retracted => None,
        other => other.error_code(),
    };
    if let Some(code) = end_code {
        let text = match &result.end {
            TurnEnd::ModelFailed { message, .. } => message.clone(),
            _ => result
                .final_text
                .clone()
                .unwrap_or_else(|| "the turn ended without an answer".to_string()),
        };
        return Some((code.to_string(), text));
    }
    let (code, message) = match verdict(&outcome_of(result), route) {
        Verdict::ApprovalPending => (
            "APPROVAL_PENDING",
            format!(
                "waiting for approval: {}",
                result.pending_approvals.join(", ")
            ),
        ),
        Verdict::WriteRefused => (
            "WRITE_REFUSED",
            "a write was denied or refused by policy".to_string(),
        ),
        Verdict::ToolFailed => (
            "TOOL_FAILED",
            "a tool call failed and the answer rests on that failure".to_string(),
        ),
        Verdict::NotUnderstood => (
            "NOT_UNDERSTOOD",
            "the request was not understood and no model is configured".to_string(),
        ),
        Verdict::Answered | Verdict::ModelFailed | Verdict::Cancelled => return None,
    };
    Some((code.to_string(), message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(end: TurnEnd) -> TurnResult {
        TurnResult {
            final_text: Some("text".into()),
            end,
            pending_approvals: Vec::new(),
            refused_writes: 0,
            rests_on_failure: false,
        }
    }

    fn route(stage: &str) -> RouteSummary {
        RouteSummary {
            stage: stage.into(),
            route: "x".into(),
            target: None,
            routing_us: 0,
        }
    }

    fn judge(result: &TurnResult, stage: &str) -> Verdict {
        verdict(&outcome_of(result), Some(&route(stage)))
    }

    #[test]
    fn the_most_important_outcome_decides() {
        let answered = result(TurnEnd::Answered);
        assert_eq!(judge(&answered, "fast_path"), Verdict::Answered);
        assert_eq!(judge(&answered, "unmatched"), Verdict::NotUnderstood);
        let mut failed = result(TurnEnd::Answered);
        failed.rests_on_failure = true;
        assert_eq!(judge(&failed, "llm"), Verdict::ToolFailed);
        let mut refused = failed.clone();
        refused.refused_writes = 1;
        assert_eq!(judge(&refused, "llm"), Verdict::WriteRefused);
        let mut pending = refused.clone();
        pending.pending_approvals.push("a1".into());
        assert_eq!(judge(&pending, "llm"), Verdict::ApprovalPending);
        let model = result(TurnEnd::ModelFailed {
            code: "MODEL_TRUNCATED",
            message: "cut".into(),
        });
        let table = [
            (model.clone(), Verdict::ModelFailed),
            (result(TurnEnd::Retracted), Verdict::ModelFailed),
            (result(TurnEnd::BudgetExceeded), Verdict::ModelFailed),
            (
                result(TurnEnd::LoopDetected {
                    tool: "read".into(),
                }),
                Verdict::ModelFailed,
            ),
            (
                result(TurnEnd::ModelCallLimit { calls: 3 }),
                Verdict::ModelFailed,
            ),
            (result(TurnEnd::Cancelled), Verdict::Cancelled),
            (result(TurnEnd::Unverified), Verdict::ToolFailed),
            (
                result(TurnEnd::FailingCalls { codes: Vec::new() }),
                Verdict::ToolFailed,
            ),
        ];
        for (result, expected) in table {
            assert_eq!(judge(&result, "llm"), expected, "{:?}", result.end);
        }
        assert_eq!(
            closing_error(&model, None).map(|(c, _)| c),
            Some("MODEL_TRUNCATED".to_string())
        );
        assert_eq!(closing_error(&answered, Some(&route("fast_path"))), None);
        assert_eq!(
            closing_error(&pending, None).map(|(c, _)| c),
            Some("APPROVAL_PENDING".to_string())
        );
        assert_eq!(
            closing_error(&answered, Some(&route("unmatched"))).map(|(c, _)| c),
            Some("NOT_UNDERSTOOD".to_string())
        );
    }

    #[test]
    fn the_outcome_round_trips_through_the_wire() {
        let mut pending = result(TurnEnd::Answered);
        pending.pending_approvals.push("a1".into());
        let outcome = outcome_of(&pending);
        let text = serde_json::to_string(&outcome).unwrap();
        let back: TurnOutcome = serde_json::from_str(&text).unwrap();
        assert_eq!(verdict(&back, None), Verdict::ApprovalPending);
    }
}
