//! The API's request and response bodies (`spec/api.md` "Types"), with
//! their OpenAPI schemas. Requests reject unknown fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use warden_protocol::{
    Approval, ApprovalState, ControlLevel, Resource, ResourceKind, SnapshotOffer,
};
use warden_store::ApprovalPeople;

use crate::auth::Role;

/// RFC 3339 UTC for milliseconds since the epoch.
pub fn rfc3339(ms: u64) -> String {
    jiff::Timestamp::from_millisecond(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string()
}

/// A session's control level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    ReadOnly,
    Controlled,
    Autonomous,
}

impl From<Level> for ControlLevel {
    fn from(level: Level) -> Self {
        match level {
            Level::ReadOnly => ControlLevel::ReadOnly,
            Level::Controlled => ControlLevel::Controlled,
            Level::Autonomous => ControlLevel::Autonomous,
        }
    }
}

impl From<ControlLevel> for Level {
    fn from(level: ControlLevel) -> Self {
        match level {
            ControlLevel::ReadOnly => Level::ReadOnly,
            ControlLevel::Controlled => Level::Controlled,
            ControlLevel::Autonomous => Level::Autonomous,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok` when the server answers.
    pub status: String,
    pub version: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    pub username: String,
    pub password: String,
}

/// Who is calling (`csrf_token` is null for bearer tokens).
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    pub user: String,
    pub role: Role,
    pub csrf_token: Option<String>,
}

/// An empty JSON object (logout).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// One inventory resource.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ResourceView {
    pub id: String,
    pub kind: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub parent: Option<String>,
    pub status: Option<String>,
    pub host: Option<String>,
    /// `local`, `agent`, `proxmox`, `docker` or `kubernetes`.
    pub source: String,
}

impl ResourceView {
    pub fn of(resource: &Resource) -> Self {
        let id = &resource.id;
        let source = resource
            .attributes
            .get("source")
            .and_then(Value::as_str)
            .filter(|s| ["local", "agent", "proxmox", "docker", "kubernetes"].contains(s))
            .map(str::to_string)
            .unwrap_or_else(|| {
                match id.kind {
                    ResourceKind::Host => "local",
                    ResourceKind::Node
                    | ResourceKind::Vm
                    | ResourceKind::Lxc
                    | ResourceKind::Storage => "proxmox",
                    ResourceKind::DockerHost | ResourceKind::DockerContainer => "docker",
                    ResourceKind::K8sCluster | ResourceKind::K8sNode | ResourceKind::K8sPod => {
                        "kubernetes"
                    }
                }
                .to_string()
            });
        let host = id.host().map(str::to_string).or_else(|| match id.kind {
            ResourceKind::Host | ResourceKind::Node | ResourceKind::DockerHost => {
                Some(id.uid.clone())
            }
            _ => None,
        });
        ResourceView {
            id: id.to_string(),
            kind: id.kind.as_str().to_string(),
            name: resource.name.clone(),
            aliases: resource.aliases.clone(),
            parent: resource.parent.as_ref().map(ToString::to_string),
            status: resource.status.clone(),
            host,
            source,
        }
    }
}

/// Whether a session is doing something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    Idle,
    Running,
    WaitingApproval,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionView {
    pub id: String,
    pub title: String,
    pub control_level: Level,
    pub created_at: String,
    pub state: SessionState,
    /// `RESOLVING`, `READING`, `WRITING` or `VERIFYING`.
    pub fsm_state: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MessageView {
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
    pub at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionDetail {
    #[serde(flatten)]
    pub session: SessionView,
    pub messages: Vec<MessageView>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    /// Capped by the server's `max_control_level`.
    pub control_level: Option<Level>,
    pub title: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchSession {
    /// Capped by the server's `max_control_level`.
    pub control_level: Level,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PostMessage {
    #[schema(min_length = 1, max_length = 65536, pattern = "\\S")]
    pub text: String,
    /// Resource ids the user picked (`@` mentions), resolved before the turn.
    pub mentions: Option<Vec<String>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TurnAccepted {
    pub turn: usize,
}

/// An approval's state as the API shows it: a pending approval past its
/// expiry is `expired`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
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
    #[schema(value_type = Object)]
    pub arguments: Value,
    pub state: ApprovalStateView,
    pub created_at: String,
    pub expires_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The snapshot of a Proxmox guest offered before the change, and what
    /// that makes undoable (absent when the call touches no such guest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotOfferView>,
}

/// "Snapshot first" on an approval card: whether a snapshot of the guest
/// is taken before the change, and in words what will be undoable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
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
    pub fn of(approval: &Approval, people: &ApprovalPeople, now_ms: u64) -> Self {
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
            decided_by: approval
                .decided_by
                .clone()
                .or_else(|| people.decided_by.clone()),
            decided_at: approval.decided_at_ms.or(people.decided_at_ms).map(rfc3339),
            reason: approval.reason.clone(),
            snapshot: approval.snapshot.as_ref().map(SnapshotOfferView::from),
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveRequest {
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DenyRequest {
    #[schema(min_length = 1, max_length = 4096, pattern = "\\S")]
    pub reason: String,
}

/// What running a stored approval did.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunResult {
    /// The tool's response envelope (`{ok, data?, error?, meta?}`).
    #[schema(value_type = Object)]
    pub outcome: Value,
    /// The read that checked the write, when the write was dispatched.
    #[schema(value_type = Option<Object>)]
    pub verification: Option<Value>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AuditRecordView {
    pub seq: u64,
    pub at: String,
    pub session_id: String,
    pub actor: String,
    pub tool: String,
    pub target: Option<String>,
    pub decision: String,
    pub code: Option<String>,
    pub command: String,
    pub duration_ms: u64,
    pub hash: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AuditVerify {
    pub intact: bool,
    pub records: u64,
    pub head_hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_seq: Option<u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UsageView {
    pub provider: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateToken {
    #[schema(min_length = 1, max_length = 128, pattern = "\\S")]
    pub name: String,
    pub role: Role,
    #[schema(minimum = 1, maximum = 3650)]
    pub expires_in_days: Option<u32>,
}

/// A token just created: the secret is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedToken {
    pub id: String,
    pub token: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenView {
    pub id: String,
    pub name: String,
    pub role: String,
    pub created_at: String,
    pub created_by: Option<String>,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
    pub last_used_at: Option<String>,
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
            "created_at_ms": 1, "expires_at_ms": 2, "state": "pending", "reason": null,
            "snapshot": snapshot,
        }))
        .unwrap()
    }

    #[test]
    fn the_snapshot_offer_is_in_the_view_only_when_there_is_one() {
        let offer = SnapshotOffer {
            guest: "vm:pve1:101".into(),
            take: false,
            undoable: "not undoable by Warden: no snapshot of web (vm:pve1:101) is taken first"
                .into(),
        };
        let people = ApprovalPeople::default();
        let offered =
            serde_json::to_value(ApprovalView::of(&approval(Some(offer)), &people, 0)).unwrap();
        assert_eq!(
            offered["snapshot"],
            json!({"guest": "vm:pve1:101", "take": false,
                   "undoable": "not undoable by Warden: no snapshot of web (vm:pve1:101) is taken first"})
        );
        let plain = serde_json::to_value(ApprovalView::of(&approval(None), &people, 0)).unwrap();
        assert!(plain.get("snapshot").is_none(), "{plain}");
    }

    #[test]
    fn the_openapi_schema_describes_the_offer() {
        let document: Value = serde_json::from_str(&crate::openapi_json().unwrap()).unwrap();
        let schemas = &document["components"]["schemas"];
        let view = &schemas["ApprovalView"];
        assert!(view["properties"]["snapshot"].is_object(), "{view}");
        let required: Vec<&str> = view["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(!required.contains(&"snapshot"), "{required:?}");
        let offer = &schemas["SnapshotOfferView"];
        for field in ["guest", "take", "undoable"] {
            assert!(offer["properties"][field].is_object(), "{offer}");
        }
    }
}
