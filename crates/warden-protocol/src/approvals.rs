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
    /// Nobody decided (or ran it) before it expired; the call did not run.
    Expired,
    /// Used once: an approval never authorises a second run.
    Consumed,
}

impl ApprovalState {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalState::Pending => "pending",
            ApprovalState::Approved => "approved",
            ApprovalState::Denied => "denied",
            ApprovalState::Expired => "expired",
            ApprovalState::Consumed => "consumed",
        }
    }
}

impl std::fmt::Display for ApprovalState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Text that names no [`ApprovalState`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval state `{0}` (expected pending, approved, denied, expired or consumed)")]
pub struct UnknownApprovalState(pub String);

impl std::str::FromStr for ApprovalState {
    type Err = UnknownApprovalState;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "pending" => ApprovalState::Pending,
            "approved" => ApprovalState::Approved,
            "denied" => ApprovalState::Denied,
            "expired" => ApprovalState::Expired,
            "consumed" => ApprovalState::Consumed,
            other => return Err(UnknownApprovalState(other.to_string())),
        })
    }
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
    /// Why it was approved or denied (the human's words).
    pub reason: Option<String>,
    /// Who approved or denied it (`user:alice`, `token:ci-bot`).
    #[serde(default)]
    pub decided_by: Option<String>,
    /// When it was approved or denied, milliseconds since the Unix epoch.
    #[serde(default)]
    pub decided_at_ms: Option<u64>,
    /// The snapshot offered before a change to a Proxmox guest, and what it
    /// makes undoable (absent for calls that touch no snapshottable guest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotOffer>,
    /// For a file edit: the file as it was when the approval was asked
    /// for, so the approver sees what the change loses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_before: Option<FileBefore>,
}

/// A file as it was before an edit that waits for approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FileBefore {
    /// Its content (at most [`FileBefore::MAX_BYTES`]); `None` when the
    /// file does not exist yet or could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The content was cut at the limit.
    #[serde(default)]
    pub truncated: bool,
    /// Why it could not be read (`None` when it was read or is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

impl FileBefore {
    /// Most bytes of a file kept for the approver.
    pub const MAX_BYTES: usize = 64 * 1024;
}

/// "Snapshot first": before an approved change to a Proxmox guest, a
/// snapshot named `warden-<time>-<approval>` is taken and waited for, so
/// the change can be rolled back. The offer says whether it will be taken
/// and, in words for the approval card, what will be undoable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotOffer {
    /// The guest that would be snapshotted (`vm:pve1:101`, `lxc:pve1:141`).
    pub guest: String,
    /// Whether the snapshot is taken before the change (from the
    /// `[proxmox_snapshots]` policy and the guest's tags).
    pub take: bool,
    /// What the approver is told: what will be undoable, and how.
    pub undoable: String,
}

/// One decision, by the executor or a human, for the tamper-evident audit
/// log. `decision` and `code` are strings, not enums, so that old log entries
/// stay readable after the vocabulary grows.
///
/// The log's hash covers every serialised field: a field added later must be
/// `#[serde(default, skip_serializing_if = ...)]` so that records written
/// before it existed still verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub session_id: String,
    /// Who caused it: `assistant` (a call proposed by the model or the
    /// router), `user:alice`, `token:ci-bot`, `system`.
    pub actor: String,
    pub tool: String,
    pub target: Option<String>,
    /// `allowed`, `blocked`, `approval_required`, `approved`, `denied`,
    /// `expired`, `executed`, `failed`, `cached`, `anchor_reset`,
    /// `secret_withheld` (a security event: the output held one of
    /// Warden's own secrets and was withheld, code `SECRET_IN_OUTPUT`).
    pub decision: String,
    pub code: Option<String>,
    /// The command (or the call's arguments) the decision concerns.
    pub command: String,
    /// Why: the block message, or the human's reason.
    pub reason: Option<String>,
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
            decided_by: None,
            decided_at_ms: None,
            snapshot: None,
            file_before: None,
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
                "reason": null,
                "decided_by": null,
                "decided_at_ms": null
            })
        );
        assert_eq!(serde_json::from_value::<Approval>(v).unwrap(), a);
        // Approvals stored before decided_by existed still read.
        let mut older = serde_json::to_value(&a).unwrap();
        let object = older.as_object_mut().unwrap();
        object.remove("decided_by");
        object.remove("decided_at_ms");
        assert_eq!(serde_json::from_value::<Approval>(older).unwrap(), a);
        // An offered snapshot travels with the approval.
        let offered = Approval {
            snapshot: Some(SnapshotOffer {
                guest: "lxc:pve1:141".into(),
                take: true,
                undoable: "roll back to the snapshot".into(),
            }),
            ..a.clone()
        };
        let v = serde_json::to_value(&offered).unwrap();
        assert_eq!(v["snapshot"]["guest"], "lxc:pve1:141");
        assert_eq!(v["snapshot"]["take"], true);
        assert_eq!(serde_json::from_value::<Approval>(v).unwrap(), offered);
        for (state, text) in [
            (ApprovalState::Pending, "pending"),
            (ApprovalState::Approved, "approved"),
            (ApprovalState::Denied, "denied"),
            (ApprovalState::Expired, "expired"),
            (ApprovalState::Consumed, "consumed"),
        ] {
            assert_eq!(serde_json::to_value(state).unwrap(), json!(text));
            assert_eq!(state.as_str(), text);
            assert_eq!(text.parse::<ApprovalState>(), Ok(state));
            assert_eq!(
                serde_json::from_value::<ApprovalState>(json!(text)).unwrap(),
                state
            );
        }
        assert_eq!(
            "gone".parse::<ApprovalState>(),
            Err(UnknownApprovalState("gone".into()))
        );
    }

    #[test]
    fn audit_record_json() {
        let r = AuditRecord {
            session_id: "s1".into(),
            actor: "assistant".into(),
            tool: "read".into(),
            target: Some("host:web1".into()),
            decision: "blocked".into(),
            code: Some("READ_ONLY_VIOLATION".into()),
            command: "rm -rf /tmp/x".into(),
            reason: Some("rm -rf /tmp/x is not read-only".into()),
            duration_ms: 0,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({
                "session_id": "s1",
                "actor": "assistant",
                "tool": "read",
                "target": "host:web1",
                "decision": "blocked",
                "code": "READ_ONLY_VIOLATION",
                "command": "rm -rf /tmp/x",
                "reason": "rm -rf /tmp/x is not read-only",
                "duration_ms": 0
            })
        );
        assert_eq!(serde_json::from_value::<AuditRecord>(v).unwrap(), r);
    }
}
