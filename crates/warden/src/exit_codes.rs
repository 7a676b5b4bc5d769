//! What `warden ask` exits with: the core's one verdict on a turn (the same
//! for a turn run here and one a server ran), as a number scripts rely on.

use std::process::ExitCode;

use warden_core::turn::Verdict;

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

impl From<Verdict> for AskExit {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Answered => AskExit::Answered,
            Verdict::NotUnderstood => AskExit::NotUnderstood,
            Verdict::ToolFailed => AskExit::ToolFailed,
            Verdict::ApprovalPending => AskExit::ApprovalPending,
            Verdict::WriteRefused => AskExit::WriteRefused,
            Verdict::ModelFailed => AskExit::ModelFailed,
            Verdict::Cancelled => AskExit::Cancelled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verdict_has_its_code() {
        let table = [
            (Verdict::Answered, 0),
            (Verdict::NotUnderstood, 3),
            (Verdict::ToolFailed, 4),
            (Verdict::ApprovalPending, 5),
            (Verdict::WriteRefused, 6),
            (Verdict::ModelFailed, 7),
            (Verdict::Cancelled, 130),
        ];
        for (verdict, code) in table {
            assert_eq!(AskExit::from(verdict) as u8, code, "{verdict:?}");
        }
    }
}
