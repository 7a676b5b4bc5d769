//! The structured error inside the envelope (DESIGN invariant 6):
//! `{code, message, blocked, failed, retryable, details{recovery_hint,
//! auto_recoverable, …}}`. The model and the router recover from the code and
//! the flags, never from the prose in `message`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::codes::ErrorCode;

/// A structured error the model can recover from without reading prose.
///
/// `blocked` and `failed` are distinct on purpose: a gate refusal
/// (`blocked: true, failed: false`) means nothing ran, so no state changed and
/// the FSM does not move; a failure (`failed: true`) means the call ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    /// A gate refused the call: nothing ran.
    pub blocked: bool,
    /// The call ran and failed.
    pub failed: bool,
    /// The same call may succeed later (timeouts, unreachable hosts).
    pub retryable: bool,
    #[serde(default)]
    pub details: ErrorDetails,
}

/// Recovery information. Code-specific fields (`suggestions`, `rewrite`,
/// `approval_id`, `expected_target`, …) sit flat next to the two fixed ones,
/// so the wire form is one object the model reads at a glance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetails {
    /// What to do instead, for the model ("call query get first").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_hint: Option<String>,
    /// The loop can recover by itself (e.g. apply a suggested rewrite).
    #[serde(default)]
    pub auto_recoverable: bool,
    /// Code-specific fields (`suggestions`, `rewrite`, `approval_id`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One constructor per code, each with the default shape of [`ToolError::new`],
/// so callers cannot get the flags of a code wrong by hand.
macro_rules! per_code_constructors {
    ($($(#[$doc:meta])* $name:ident => $code:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(message: impl Into<String>) -> Self {
                ToolError::new(ErrorCode::$code, message)
            }
        )*
    };
}

impl ToolError {
    /// A gate's refusal: nothing ran, retrying the same call will not help.
    pub fn blocked(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            blocked: true,
            failed: false,
            retryable: false,
            details: ErrorDetails::default(),
        }
    }

    /// The call ran and failed; retryable when the failure is transient.
    pub fn failed(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            blocked: false,
            failed: true,
            retryable: code.is_transient(),
            details: ErrorDetails::default(),
        }
    }

    /// The default shape for `code`: gate codes block, the rest fail.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        if code.is_gate_block() {
            ToolError::blocked(code, message)
        } else {
            ToolError::failed(code, message)
        }
    }

    per_code_constructors! {
        /// A write at a resource no resolve tool put into the session.
        strict_resolution => StrictResolution;
        /// The session's FSM forbids this tool now.
        fsm_blocked => FsmBlocked;
        /// Aimed at a parent while the user named a child on it.
        routing_mismatch => RoutingMismatch;
        /// Waiting for a human; add `approval_id` etc. with [`ToolError::with_detail`].
        approval_required => ApprovalRequired;
        /// A human refused the call.
        approval_denied => ApprovalDenied;
        /// Nobody decided before the approval expired; nothing ran.
        approval_expired => ApprovalExpired;
        /// The control level or the catastrophic-command check refuses it.
        policy_blocked => PolicyBlocked;
        /// Names one of Warden's own protected paths or processes.
        protected_path => ProtectedPath;
        /// The read tool got a command that is not provably read-only.
        read_only_violation => ReadOnlyViolation;
        /// The command needs a terminal, pages or never exits.
        non_interactive => NonInteractive;
        /// The same call was repeated too often.
        loop_detected => LoopDetected;
        /// The arguments do not match the tool's schema.
        invalid_input => InvalidInput;
        /// The target or the thing asked for does not exist.
        not_found => NotFound;
        /// The command ran and failed (non-zero exit, API error).
        execution_failed => ExecutionFailed;
        /// The output held one of Warden's own secrets and was withheld.
        secret_in_output => SecretInOutput;
        /// No answer in time: retryable.
        timeout => Timeout;
        /// The host or backend cannot be reached: retryable.
        unavailable => Unavailable;
        /// The token or cost budget is spent.
        budget_exceeded => BudgetExceeded;
        /// The user cancelled the request.
        cancelled => Cancelled;
        /// A defect in Warden itself.
        internal => Internal;
    }

    /// Tells the model what to do instead.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.details.recovery_hint = Some(hint.into());
        self
    }

    /// Marks the error as one the loop fixes by itself (e.g. a rewrite).
    pub fn auto_recoverable(mut self) -> Self {
        self.details.auto_recoverable = true;
        self
    }

    /// Adds a code-specific field to `details`. The fixed keys
    /// `recovery_hint` and `auto_recoverable` go to their own fields, so the
    /// wire form never carries a key twice.
    pub fn with_detail(mut self, key: &str, value: Value) -> Self {
        match key {
            "recovery_hint" => self.details.recovery_hint = value.as_str().map(str::to_string),
            "auto_recoverable" => self.details.auto_recoverable = value.as_bool().unwrap_or(false),
            _ => {
                self.details.extra.insert(key.to_string(), value);
            }
        }
        self
    }

    /// Overrides the default: e.g. a failed command known to be flaky.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gate_codes_block_and_others_fail() {
        for code in ErrorCode::ALL {
            let e = ToolError::new(code, "m");
            assert_eq!(e.blocked, code.is_gate_block(), "{code}");
            assert_eq!(e.failed, !code.is_gate_block(), "{code}");
            assert_eq!(e.retryable, code.is_transient(), "{code}");
        }
    }

    #[test]
    fn per_code_constructors_match_new() {
        let built = [
            ToolError::strict_resolution("m"),
            ToolError::fsm_blocked("m"),
            ToolError::routing_mismatch("m"),
            ToolError::approval_required("m"),
            ToolError::approval_denied("m"),
            ToolError::approval_expired("m"),
            ToolError::policy_blocked("m"),
            ToolError::protected_path("m"),
            ToolError::read_only_violation("m"),
            ToolError::non_interactive("m"),
            ToolError::loop_detected("m"),
            ToolError::invalid_input("m"),
            ToolError::not_found("m"),
            ToolError::execution_failed("m"),
            ToolError::secret_in_output("m"),
            ToolError::timeout("m"),
            ToolError::unavailable("m"),
            ToolError::budget_exceeded("m"),
            ToolError::cancelled("m"),
            ToolError::internal("m"),
        ];
        assert_eq!(built.len(), ErrorCode::ALL.len());
        for (e, code) in built.into_iter().zip(ErrorCode::ALL) {
            assert_eq!(e, ToolError::new(code, "m"));
        }
    }

    #[test]
    fn timeouts_are_retryable_failures() {
        let e = ToolError::timeout("no answer after 30s");
        assert!(e.failed && e.retryable && !e.blocked);
        assert!(ToolError::unavailable("pve1 unreachable").retryable);
        assert!(!ToolError::execution_failed("exit 1").retryable);
        assert!(
            ToolError::execution_failed("x")
                .with_retryable(true)
                .retryable
        );
    }

    #[test]
    fn display_names_code_and_message() {
        let e = ToolError::fsm_blocked("verify the last write first");
        assert_eq!(e.to_string(), "FSM_BLOCKED: verify the last write first");
    }

    #[test]
    fn fixed_detail_keys_are_never_duplicated() {
        let e = ToolError::non_interactive("follows forever")
            .with_detail("rewrite", json!("journalctl -n 200"))
            .with_detail("auto_recoverable", json!(true))
            .with_detail("recovery_hint", json!("use the rewrite"));
        assert!(e.details.auto_recoverable);
        assert_eq!(e.details.recovery_hint.as_deref(), Some("use the rewrite"));
        assert_eq!(e.details.extra.len(), 1);
        assert_eq!(
            serde_json::to_value(&e.details).unwrap(),
            json!({"recovery_hint": "use the rewrite", "auto_recoverable": true, "rewrite": "journalctl -n 200"})
        );
    }

    #[test]
    fn exact_json_and_round_trip() {
        let e = ToolError::routing_mismatch("aimed at node:pve1, you meant lxc:pve1:141")
            .with_hint("target lxc:pve1:141")
            .auto_recoverable()
            .with_detail("expected_target", json!("lxc:pve1:141"));
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            json!({
                "code": "ROUTING_MISMATCH",
                "message": "aimed at node:pve1, you meant lxc:pve1:141",
                "blocked": true,
                "failed": false,
                "retryable": false,
                "details": {
                    "recovery_hint": "target lxc:pve1:141",
                    "auto_recoverable": true,
                    "expected_target": "lxc:pve1:141"
                }
            })
        );
        assert_eq!(serde_json::from_value::<ToolError>(v).unwrap(), e);
    }

    #[test]
    fn details_may_be_absent_on_the_wire() {
        let v = json!({"code": "TIMEOUT", "message": "m", "blocked": false, "failed": true, "retryable": true});
        let e: ToolError = serde_json::from_value(v).unwrap();
        assert_eq!(e, ToolError::timeout("m"));
        let empty = serde_json::to_value(ErrorDetails::default()).unwrap();
        assert_eq!(empty, json!({"auto_recoverable": false}));
    }
}
