//! Error codes of the tool-response envelope. The model and the router
//! recover from errors by code, never by parsing prose.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why a tool call did not succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// A write aimed at a resource nobody discovered.
    StrictResolution,
    /// The session state forbids this tool now (write before discovery,
    /// write before verifying the last one).
    FsmBlocked,
    /// A file or command aimed at a parent while the user named a child on it.
    RoutingMismatch,
    /// The call needs a human's approval first.
    ApprovalRequired,
    /// A human refused the call.
    ApprovalDenied,
    /// Nobody decided on the approval request before it expired; nothing ran.
    ApprovalExpired,
    /// The control level or the catastrophic-command check refuses it.
    PolicyBlocked,
    /// The command names one of Warden's own protected paths (its data,
    /// keys, configuration holding a secret) or processes; nothing ran.
    ProtectedPath,
    /// The read tool was given a command that is not provably read-only.
    ReadOnlyViolation,
    /// The command needs a terminal, pages, or never exits.
    NonInteractive,
    /// The same call was made too many times.
    LoopDetected,
    /// The arguments do not match the tool's schema.
    InvalidInput,
    /// The target or the thing asked for does not exist.
    NotFound,
    /// The command ran and failed.
    ExecutionFailed,
    /// The command ran, but its output contained one of Warden's own
    /// secrets (in any common encoding): the whole output was withheld.
    SecretInOutput,
    /// The command or the backend did not answer in time.
    Timeout,
    /// The host or backend cannot be reached.
    Unavailable,
    /// The token or cost budget is spent.
    BudgetExceeded,
    /// The user cancelled the request; the call did not run or was stopped.
    Cancelled,
    /// A defect in Warden itself.
    Internal,
}

impl ErrorCode {
    /// Every code, in declaration order: for parsing, docs and exhaustive tests.
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::StrictResolution,
        ErrorCode::FsmBlocked,
        ErrorCode::RoutingMismatch,
        ErrorCode::ApprovalRequired,
        ErrorCode::ApprovalDenied,
        ErrorCode::ApprovalExpired,
        ErrorCode::PolicyBlocked,
        ErrorCode::ProtectedPath,
        ErrorCode::ReadOnlyViolation,
        ErrorCode::NonInteractive,
        ErrorCode::LoopDetected,
        ErrorCode::InvalidInput,
        ErrorCode::NotFound,
        ErrorCode::ExecutionFailed,
        ErrorCode::SecretInOutput,
        ErrorCode::Timeout,
        ErrorCode::Unavailable,
        ErrorCode::BudgetExceeded,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
    ];

    /// The wire name (SCREAMING_SNAKE_CASE), identical to the serde form.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::StrictResolution => "STRICT_RESOLUTION",
            ErrorCode::FsmBlocked => "FSM_BLOCKED",
            ErrorCode::RoutingMismatch => "ROUTING_MISMATCH",
            ErrorCode::ApprovalRequired => "APPROVAL_REQUIRED",
            ErrorCode::ApprovalDenied => "APPROVAL_DENIED",
            ErrorCode::ApprovalExpired => "APPROVAL_EXPIRED",
            ErrorCode::PolicyBlocked => "POLICY_BLOCKED",
            ErrorCode::ProtectedPath => "PROTECTED_PATH",
            ErrorCode::ReadOnlyViolation => "READ_ONLY_VIOLATION",
            ErrorCode::NonInteractive => "NON_INTERACTIVE",
            ErrorCode::LoopDetected => "LOOP_DETECTED",
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::ExecutionFailed => "EXECUTION_FAILED",
            ErrorCode::SecretInOutput => "SECRET_IN_OUTPUT",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::BudgetExceeded => "BUDGET_EXCEEDED",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Internal => "INTERNAL",
        }
    }

    /// A refusal by one of the executor's gates (or the loop's brakes):
    /// nothing ran, so the envelope says `blocked: true, failed: false`, and
    /// repeating the same call unchanged cannot succeed.
    pub fn is_gate_block(self) -> bool {
        match self {
            ErrorCode::StrictResolution
            | ErrorCode::FsmBlocked
            | ErrorCode::RoutingMismatch
            | ErrorCode::ApprovalRequired
            | ErrorCode::ApprovalDenied
            | ErrorCode::ApprovalExpired
            | ErrorCode::PolicyBlocked
            | ErrorCode::ProtectedPath
            | ErrorCode::ReadOnlyViolation
            | ErrorCode::NonInteractive
            | ErrorCode::LoopDetected
            | ErrorCode::InvalidInput
            | ErrorCode::BudgetExceeded => true,
            ErrorCode::NotFound
            | ErrorCode::ExecutionFailed
            | ErrorCode::SecretInOutput
            | ErrorCode::Timeout
            | ErrorCode::Unavailable
            | ErrorCode::Cancelled
            | ErrorCode::Internal => false,
        }
    }
}

impl ErrorCode {
    /// A transient failure (timeout, unreachable host or transport): the same
    /// call may succeed later, so the envelope marks it `retryable`.
    pub fn is_transient(self) -> bool {
        match self {
            ErrorCode::Timeout | ErrorCode::Unavailable => true,
            ErrorCode::StrictResolution
            | ErrorCode::FsmBlocked
            | ErrorCode::RoutingMismatch
            | ErrorCode::ApprovalRequired
            | ErrorCode::ApprovalDenied
            | ErrorCode::ApprovalExpired
            | ErrorCode::PolicyBlocked
            | ErrorCode::ProtectedPath
            | ErrorCode::ReadOnlyViolation
            | ErrorCode::NonInteractive
            | ErrorCode::LoopDetected
            | ErrorCode::InvalidInput
            | ErrorCode::NotFound
            | ErrorCode::ExecutionFailed
            | ErrorCode::SecretInOutput
            | ErrorCode::BudgetExceeded
            | ErrorCode::Cancelled
            | ErrorCode::Internal => false,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error code string that names no code. Carries the offending text so
/// the message says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("unknown error code `{0}`")]
pub struct UnknownErrorCode(pub String);

impl FromStr for ErrorCode {
    type Err = UnknownErrorCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownErrorCode(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip() {
        for code in ErrorCode::ALL {
            assert_eq!(code.as_str().parse::<ErrorCode>(), Ok(code));
            assert_eq!(code.to_string(), code.as_str());
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
        }
    }

    #[test]
    fn unknown_codes_are_named_in_the_error() {
        let err = "NOPE".parse::<ErrorCode>().unwrap_err();
        assert_eq!(err, UnknownErrorCode("NOPE".into()));
        assert_eq!(err.to_string(), "unknown error code `NOPE`");
        // Case matters: the wire form is exact.
        assert!("timeout".parse::<ErrorCode>().is_err());
        assert!(serde_json::from_str::<ErrorCode>("\"NOPE\"").is_err());
        assert_eq!(serde_json::to_value(&err).unwrap(), "NOPE");
    }

    #[test]
    fn gate_blocks_and_transient_failures() {
        let gates = [
            ErrorCode::StrictResolution,
            ErrorCode::FsmBlocked,
            ErrorCode::RoutingMismatch,
            ErrorCode::ApprovalRequired,
            ErrorCode::ApprovalDenied,
            ErrorCode::ApprovalExpired,
            ErrorCode::PolicyBlocked,
            ErrorCode::ProtectedPath,
            ErrorCode::ReadOnlyViolation,
            ErrorCode::NonInteractive,
            ErrorCode::LoopDetected,
            ErrorCode::InvalidInput,
            ErrorCode::BudgetExceeded,
        ];
        for code in ErrorCode::ALL {
            assert_eq!(code.is_gate_block(), gates.contains(&code), "{code}");
            // Nothing that a gate refused is worth retrying unchanged.
            assert!(!(code.is_gate_block() && code.is_transient()), "{code}");
        }
        assert!(ErrorCode::Timeout.is_transient());
        assert!(ErrorCode::Unavailable.is_transient());
        assert!(!ErrorCode::ExecutionFailed.is_transient());
    }
}
