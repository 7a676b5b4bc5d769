//! The HTTP API's response shapes that clients read back (`spec/api.md`
//! "Types"): approvals and sessions. The server serialises them, the remote
//! CLI and the session stream's `approval_needed` event parse them, so one
//! type serves both ends. With the `openapi` feature they also describe
//! themselves for the server's OpenAPI document.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approvals::{Approval, ApprovalState, SnapshotOffer};
use crate::session::ControlLevel;

/// RFC 3339 UTC (`2026-11-23T10:07:11.5Z`) for milliseconds since the epoch.
pub fn rfc3339(ms: u64) -> String {
    jiff::Timestamp::from_millisecond(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string()
}

/// Milliseconds since the epoch of an RFC 3339 time, if it is one.
pub fn parse_rfc3339(text: &str) -> Option<u64> {
    let at: jiff::Timestamp = text.parse().ok()?;
    u64::try_from(at.as_millisecond()).ok()
}

/// An approval's state as clients see it: a pending approval past its
/// expiry is `expired`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStateView {
    Pending,
    Approved,
    Denied,
    Expired,
    Consumed,
}

impl ApprovalStateView {
    pub fn of(approval: &Approval, now_ms: u64) -> Self {
        match approval.state {
            ApprovalState::Pending if now_ms >= approval.expires_at_ms => {
                ApprovalStateView::Expired
            }
            ApprovalState::Pending => ApprovalStateView::Pending,
            ApprovalState::Expired => ApprovalStateView::Expired,
            ApprovalState::Approved => ApprovalStateView::Approved,
            ApprovalState::Denied => ApprovalStateView::Denied,
            ApprovalState::Consumed => ApprovalStateView::Consumed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStateView::Pending => "pending",
            ApprovalStateView::Approved => "approved",
            ApprovalStateView::Denied => "denied",
            ApprovalStateView::Expired => "expired",
            ApprovalStateView::Consumed => "consumed",
        }
    }
}

impl std::fmt::Display for ApprovalStateView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An approval request as the API and the session stream show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApprovalView {
    pub id: String,
    pub session_id: String,
    pub tool: String,
    pub target: String,
    pub command: String,
    pub risk: String,
    pub description: String,
    /// The exact arguments that will run (a file edit's path and content,
    /// from which clients show a diff).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    #[serde(default)]
    pub arguments: Value,
    pub state: ApprovalStateView,
    pub created_at: String,
    pub expires_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The snapshot of a Proxmox guest offered before the change, and what
    /// that makes undoable (absent when the call touches no such guest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotOfferView>,
    /// A file edit's file as it was when approval was asked for (what the
    /// change loses), absent for other calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_before: Option<crate::FileBefore>,
}

/// "Snapshot first" on an approval card: whether a snapshot of the guest
/// is taken before the change, and in words what will be undoable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SnapshotOfferView {
    /// The guest that would be snapshotted (`vm:pve1:101`).
    pub guest: String,
    /// Whether the snapshot is taken before the change.
    pub take: bool,
    /// What the approver is told: what will be undoable, and how.
    pub undoable: String,
}

impl From<&SnapshotOffer> for SnapshotOfferView {
    fn from(offer: &SnapshotOffer) -> Self {
        SnapshotOfferView {
            guest: offer.guest.clone(),
            take: offer.take,
            undoable: offer.undoable.clone(),
        }
    }
}

impl ApprovalView {
    /// The view of `approval` at `now_ms` (a pending one past its expiry
    /// shows as expired).
    pub fn of(approval: &Approval, now_ms: u64) -> Self {
        ApprovalView {
            id: approval.id.clone(),
            session_id: approval.session_id.clone(),
            tool: approval.tool.clone(),
            target: approval.target.clone(),
            command: approval.command.clone(),
            risk: approval.risk.clone(),
            description: approval.description.clone(),
            arguments: approval.arguments.clone(),
            state: ApprovalStateView::of(approval, now_ms),
            created_at: rfc3339(approval.created_at_ms),
            expires_at: rfc3339(approval.expires_at_ms),
            decided_by: approval.decided_by.clone(),
            decided_at: approval.decided_at_ms.map(rfc3339),
            reason: approval.reason.clone(),
            snapshot: approval.snapshot.as_ref().map(SnapshotOfferView::from),
            file_before: approval.file_before.clone(),
        }
    }

    /// When it expires, in milliseconds since the epoch.
    pub fn expires_at_ms(&self) -> Option<u64> {
        parse_rfc3339(&self.expires_at)
    }
}

/// Whether a session is doing something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    Idle,
    Running,
    WaitingApproval,
}

/// A session as the API lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SessionView {
    pub id: String,
    pub title: String,
    pub control_level: ControlLevel,
    pub created_at: String,
    pub state: SessionState,
    /// `RESOLVING`, `READING`, `WRITING` or `VERIFYING`.
    pub fsm_state: String,
}

/// `POST /api/sessions/{id}/messages` answered: the turn that started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnAccepted {
    pub turn: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn approval(snapshot: Option<SnapshotOffer>) -> Approval {
        serde_json::from_value(json!({
            "id": "a1", "session_id": "s1", "tool": "control", "target": "vm:pve1:101",
            "arguments_hash": "ab", "arguments": {"action": "guest", "operation": "shutdown"},
            "command": "qm shutdown 101", "risk": "medium", "description": "control on web",
            "created_at_ms": 1_000, "expires_at_ms": 2_000, "state": "pending", "reason": null,
            "snapshot": snapshot,
        }))
        .unwrap()
    }

    #[test]
    fn the_snapshot_offer_is_in_the_view_only_when_there_is_one() {
        let offer = SnapshotOffer {
            guest: "vm:pve1:101".into(),
            take: false,
            undoable: "not undoable by Warden".into(),
        };
        let offered = serde_json::to_value(ApprovalView::of(&approval(Some(offer)), 0)).unwrap();
        assert_eq!(
            offered["snapshot"],
            json!({"guest": "vm:pve1:101", "take": false, "undoable": "not undoable by Warden"})
        );
        let plain = serde_json::to_value(ApprovalView::of(&approval(None), 0)).unwrap();
        assert!(plain.get("snapshot").is_none(), "{plain}");
    }

    #[test]
    fn a_pending_approval_past_its_expiry_is_expired() {
        let a = approval(None);
        assert_eq!(
            ApprovalView::of(&a, 1_999).state,
            ApprovalStateView::Pending
        );
        assert_eq!(
            ApprovalView::of(&a, 2_000).state,
            ApprovalStateView::Expired
        );
    }

    #[test]
    fn views_round_trip_and_times_parse_back() {
        let view = ApprovalView::of(&approval(None), 0);
        let text = serde_json::to_string(&view).unwrap();
        let back: ApprovalView = serde_json::from_str(&text).unwrap();
        assert_eq!(back, view);
        assert_eq!(back.expires_at_ms(), Some(2_000));
        assert_eq!(
            parse_rfc3339(&rfc3339(1_764_000_000_123)),
            Some(1_764_000_000_123)
        );
        let session = SessionView {
            id: "s1".into(),
            title: "t".into(),
            control_level: ControlLevel::ReadOnly,
            created_at: rfc3339(0),
            state: SessionState::WaitingApproval,
            fsm_state: "READING".into(),
        };
        let value = serde_json::to_value(&session).unwrap();
        assert_eq!(value["control_level"], "read_only");
        assert_eq!(value["state"], "waiting_approval");
        assert_eq!(
            serde_json::from_value::<SessionView>(value).unwrap(),
            session
        );
    }
}
