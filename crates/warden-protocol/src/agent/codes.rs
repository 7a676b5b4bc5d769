//! Why an agent did not run a command, as `exec_result.error` says it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// `exec_result.error.code`. The first five are the spec's refusal and
/// stop codes; `EXEC_FAILED` is a command that was admitted but could not be
/// started (or its sandbox launcher failed), which is not a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ExecErrorCode {
    /// Not read-allowed, catastrophic, or above the agent's `--max-level`.
    PolicyBlocked,
    /// Names the agent's own state or process (its key, its grants).
    ProtectedPath,
    /// A write without a valid grant; `error.reason` says which check failed.
    GrantInvalid,
    /// The target is not a resource this agent reported.
    UnknownTarget,
    /// The command ran past `timeout_ms`; its process group was killed.
    Timeout,
    /// The server cancelled it (or the agent shut down); its process group was killed.
    Cancelled,
    /// Admitted, but could not be started.
    ExecFailed,
}

impl ExecErrorCode {
    pub const ALL: [ExecErrorCode; 7] = [
        ExecErrorCode::PolicyBlocked,
        ExecErrorCode::ProtectedPath,
        ExecErrorCode::GrantInvalid,
        ExecErrorCode::UnknownTarget,
        ExecErrorCode::Timeout,
        ExecErrorCode::Cancelled,
        ExecErrorCode::ExecFailed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ExecErrorCode::PolicyBlocked => "POLICY_BLOCKED",
            ExecErrorCode::ProtectedPath => "PROTECTED_PATH",
            ExecErrorCode::GrantInvalid => "GRANT_INVALID",
            ExecErrorCode::UnknownTarget => "UNKNOWN_TARGET",
            ExecErrorCode::Timeout => "TIMEOUT",
            ExecErrorCode::Cancelled => "CANCELLED",
            ExecErrorCode::ExecFailed => "EXEC_FAILED",
        }
    }
}

impl fmt::Display for ExecErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `exec_result.error.reason` with `GRANT_INVALID`: the first grant check
/// that failed, in the order the agent checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantInvalidReason {
    /// A write arrived without a grant.
    Missing,
    /// The signature does not verify with the server key learned at
    /// enrollment, or the grant is not well-formed (version, nonce).
    Signature,
    /// Signed for another agent.
    Agent,
    /// Signed for another request id.
    Request,
    /// Signed for another command (SHA-256 of the exact text).
    Command,
    /// Signed for another target.
    Target,
    /// Past its `expires_at`, or expiring further ahead than a grant may live.
    Expired,
    /// Its nonce was used before.
    Replayed,
}

impl GrantInvalidReason {
    pub const ALL: [GrantInvalidReason; 8] = [
        GrantInvalidReason::Missing,
        GrantInvalidReason::Signature,
        GrantInvalidReason::Agent,
        GrantInvalidReason::Request,
        GrantInvalidReason::Command,
        GrantInvalidReason::Target,
        GrantInvalidReason::Expired,
        GrantInvalidReason::Replayed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GrantInvalidReason::Missing => "missing",
            GrantInvalidReason::Signature => "signature",
            GrantInvalidReason::Agent => "agent",
            GrantInvalidReason::Request => "request",
            GrantInvalidReason::Command => "command",
            GrantInvalidReason::Target => "target",
            GrantInvalidReason::Expired => "expired",
            GrantInvalidReason::Replayed => "replayed",
        }
    }
}

impl fmt::Display for GrantInvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_as_str() {
        for code in ExecErrorCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
            let back: ExecErrorCode = serde_json::from_value(code.as_str().into()).unwrap();
            assert_eq!(back, code);
        }
        for reason in GrantInvalidReason::ALL {
            assert_eq!(serde_json::to_value(reason).unwrap(), reason.as_str());
            let back: GrantInvalidReason = serde_json::from_value(reason.as_str().into()).unwrap();
            assert_eq!(back, reason);
        }
    }
}
