//! What `warden ask` exits with, and the `error` events of `--json`: one
//! reading of how a turn ended, so the exit code, the terminal and the JSON
//! stream never disagree.

use std::process::ExitCode;

use warden_core::agent::{TurnEnd, TurnResult};
use warden_core::router::Stage;

/// `warden ask`'s exit codes (a contract: scripts and held-out checks use them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskExit {
    /// Answered.
    Answered = 0,
    /// Usage or configuration error.
    Usage = 2,
    /// Not understood (no model configured).
    NotUnderstood = 3,
    /// A tool call or command failed and the answer rests on that failure.
    ToolFailed = 4,
    /// An approval is still pending.
    ApprovalPending = 5,
    /// A write was denied or refused by policy.
    WriteRefused = 6,
    /// The model failed: unreachable, truncated, over budget, stuck.
    ModelFailed = 7,
    /// Cancelled.
    Cancelled = 130,
}

/// The help text listing the codes (`warden ask --help`).
pub const ASK_EXIT_CODES: &str = "Exit codes: 0 answered; 2 usage or configuration error; 3 not understood (no model); 4 a tool call or command failed and the answer rests on it; 5 an approval is still pending; 6 a write was denied or refused by policy; 7 the model failed (unreachable, truncated, over budget); 130 cancelled.";

impl AskExit {
    pub fn code(self) -> ExitCode {
        ExitCode::from(self as u8)
    }
}

/// How one turn ends up, in order of what matters most to the caller.
pub fn classify(result: &TurnResult, stage: Option<Stage>) -> AskExit {
    match &result.end {
        TurnEnd::Cancelled => return AskExit::Cancelled,
        TurnEnd::ModelFailed { .. }
        | TurnEnd::BudgetExceeded
        | TurnEnd::LoopDetected { .. }
        | TurnEnd::ModelCallLimit { .. }
        | TurnEnd::Retracted => return AskExit::ModelFailed,
        TurnEnd::Answered
        | TurnEnd::Unverified
        | TurnEnd::FailingCalls { .. }
        | TurnEnd::ScriptExhausted => {}
    }
    if !result.pending_approvals.is_empty() {
        AskExit::ApprovalPending
    } else if result.refused_writes > 0 {
        AskExit::WriteRefused
    } else if result.last_call_failed
        || matches!(
            result.end,
            TurnEnd::FailingCalls { .. } | TurnEnd::Unverified
        )
    {
        AskExit::ToolFailed
    } else if stage == Some(Stage::Unmatched) {
        AskExit::NotUnderstood
    } else {
        AskExit::Answered
    }
}

/// The `error` event a turn deserves before its `done`, beyond the ones
/// the loop already streamed (a retraction is streamed as it happens).
pub fn closing_error(result: &TurnResult, exit: AskExit) -> Option<(String, String)> {
    let end_code = match &result.end {
        TurnEnd::Retracted => None,
        other => other.error_code(),
    };
    let message = |text: &str| text.to_string();
    if let Some(code) = end_code {
        let text = match &result.end {
            TurnEnd::ModelFailed { message, .. } => message.clone(),
            _ => result
                .final_text
                .clone()
                .unwrap_or_else(|| message("the turn ended without an answer")),
        };
        return Some((code.to_string(), text));
    }
    match exit {
        AskExit::ApprovalPending => Some((
            "APPROVAL_PENDING".into(),
            format!(
                "waiting for approval: {}",
                result.pending_approvals.join(", ")
            ),
        )),
        AskExit::WriteRefused => Some((
            "WRITE_REFUSED".into(),
            message("a write was denied or refused by policy"),
        )),
        AskExit::ToolFailed => Some((
            "TOOL_FAILED".into(),
            message("a tool call failed and the answer rests on that failure"),
        )),
        AskExit::NotUnderstood => Some((
            "NOT_UNDERSTOOD".into(),
            message("the request was not understood and no model is configured"),
        )),
        AskExit::Answered | AskExit::Usage | AskExit::ModelFailed | AskExit::Cancelled => None,
    }
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
            last_call_failed: false,
        }
    }

    #[test]
    fn the_most_important_outcome_decides() {
        let answered = result(TurnEnd::Answered);
        assert_eq!(
            classify(&answered, Some(Stage::FastPath)),
            AskExit::Answered
        );
        assert_eq!(
            classify(&answered, Some(Stage::Unmatched)),
            AskExit::NotUnderstood
        );
        let mut failed = result(TurnEnd::Answered);
        failed.last_call_failed = true;
        assert_eq!(classify(&failed, None), AskExit::ToolFailed);
        let mut refused = failed.clone();
        refused.refused_writes = 1;
        assert_eq!(classify(&refused, None), AskExit::WriteRefused);
        let mut pending = refused.clone();
        pending.pending_approvals.push("a1".into());
        assert_eq!(classify(&pending, None), AskExit::ApprovalPending);
        let model = result(TurnEnd::ModelFailed {
            code: "MODEL_TRUNCATED",
            message: "cut".into(),
        });
        assert_eq!(classify(&model, None), AskExit::ModelFailed);
        assert_eq!(
            classify(&result(TurnEnd::Retracted), None),
            AskExit::ModelFailed
        );
        assert_eq!(
            classify(&result(TurnEnd::BudgetExceeded), None),
            AskExit::ModelFailed
        );
        assert_eq!(
            classify(&result(TurnEnd::Cancelled), None),
            AskExit::Cancelled
        );
        assert_eq!(
            closing_error(&model, AskExit::ModelFailed).map(|(c, _)| c),
            Some("MODEL_TRUNCATED".to_string())
        );
        assert_eq!(closing_error(&answered, AskExit::Answered), None);
        assert_eq!(
            closing_error(&pending, AskExit::ApprovalPending).map(|(c, _)| c),
            Some("APPROVAL_PENDING".to_string())
        );
    }
}
