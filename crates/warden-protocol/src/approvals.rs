//! Approval requests and audit records: shared by the core (which creates
//! them), the store (which keeps them) and the CLI, server and web UI.

use serde::{Deserialize, Serialize};

/// The state of an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    /// Waiting for a human; the call has not run.
    Pending,
    /// A human approved; the stored call may run once.
    Approved,
    Denied,
    /// Used once: an approval never authorises a second run.
    Consumed,
}

/// A write waiting for (or given) a human's decision, bound to the exact call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    pub id: String,
    pub session_id: String,
    pub tool: String,
    /// Canonical id of the target.
    pub target: String,
    /// Hash of the exact arguments: a changed call needs a new approval.
    pub arguments_hash: String,
    /// The stored call, re-run after approval (never the model's resend).
    pub arguments: serde_json::Value,
    pub command: String,
    pub risk: String,
    pub description: String,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    pub expires_at_ms: u64,
    pub state: ApprovalState,
    pub reason: Option<String>,
}

/// One executor decision, for the tamper-evident audit log. `decision` and
/// `code` are strings, not enums, so that old log entries stay readable after
/// the vocabulary grows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub session_id: String,
    pub tool: String,
    pub target: Option<String>,
    /// `allowed`, `blocked`, `approval_required`, `approved`, `denied`, `executed`, `failed`.
    pub decision: String,
    pub code: Option<String>,
    pub summary: String,
    pub duration_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn approval_json() {
        let a = Approval {
            id: "a1".into(),
            session_id: "s1".into(),
            tool: "control".into(),
            target: "lxc:pve1:141".into(),
            arguments_hash: "ab12".into(),
            arguments: json!({"action": "service", "service": "homepage", "operation": "restart"}),
            command: "systemctl restart homepage".into(),
            risk: "medium".into(),
            description: "restart homepage".into(),
            created_at_ms: 1,
            expires_at_ms: 2,
            state: ApprovalState::Pending,
            reason: None,
        };
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(
            v,
            json!({
                "id": "a1",
                "session_id": "s1",
                "tool": "control",
                "target": "lxc:pve1:141",
                "arguments_hash": "ab12",
                "arguments": {"action": "service", "service": "homepage", "operation": "restart"},
                "command": "systemctl restart homepage",
                "risk": "medium",
                "description": "restart homepage",
                "created_at_ms": 1,
                "expires_at_ms": 2,
                "state": "pending",
                "reason": null
            })
        );
        assert_eq!(serde_json::from_value::<Approval>(v).unwrap(), a);
        for (state, text) in [
            (ApprovalState::Pending, "pending"),
            (ApprovalState::Approved, "approved"),
            (ApprovalState::Denied, "denied"),
            (ApprovalState::Consumed, "consumed"),
        ] {
            assert_eq!(serde_json::to_value(state).unwrap(), json!(text));
            assert_eq!(
                serde_json::from_value::<ApprovalState>(json!(text)).unwrap(),
                state
            );
        }
    }

    #[test]
    fn audit_record_json() {
        let r = AuditRecord {
            session_id: "s1".into(),
            tool: "read".into(),
            target: Some("host:web1".into()),
            decision: "blocked".into(),
            code: Some("READ_ONLY_VIOLATION".into()),
            summary: "rm -rf /tmp/x is not read-only".into(),
            duration_ms: 0,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({
                "session_id": "s1",
                "tool": "read",
                "target": "host:web1",
                "decision": "blocked",
                "code": "READ_ONLY_VIOLATION",
                "summary": "rm -rf /tmp/x is not read-only",
                "duration_ms": 0
            })
        );
        assert_eq!(serde_json::from_value::<AuditRecord>(v).unwrap(), r);
    }
}
