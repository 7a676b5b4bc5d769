//! The API's request and response bodies (`spec/api.md` "Types"), with
//! their OpenAPI schemas. Requests reject unknown fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use warden_protocol::views::ApprovalView;
pub use warden_protocol::views::{
    ApprovalStateView, SessionState, SessionView, TurnAccepted, rfc3339,
};
use warden_protocol::{Approval, ControlLevel, Resource, ResourceKind};
use warden_store::ApprovalPeople;

use crate::auth::Role;

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
    /// How commands on the server's machine are kept from Warden's own
    /// secrets: `namespaces` (a mount namespace per command), `policy_only`
    /// (the kernel or the environment refused one: only the policy's
    /// refusal of protected paths stands), `off` (a library build that
    /// does not launch commands confined).
    pub confinement: String,
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
    /// This login used a one-time password (the first admin's): until
    /// `POST /api/auth/password` sets a new one, every other endpoint
    /// answers 403 `PASSWORD_CHANGE_REQUIRED`.
    pub password_change_required: bool,
}

/// A browser login changes its own password.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangePassword {
    pub current_password: String,
    #[schema(min_length = 8, max_length = 1024)]
    pub new_password: String,
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

/// An approval as the API shows it: the approval's own decider, else
/// the one recorded beside it (rows from before deciders were kept).
pub fn approval_view(approval: &Approval, people: &ApprovalPeople, now_ms: u64) -> ApprovalView {
    let mut view = ApprovalView::of(approval, now_ms);
    if view.decided_by.is_none() {
        view.decided_by = people.decided_by.clone();
    }
    if view.decided_at.is_none() {
        view.decided_at = people.decided_at_ms.map(rfc3339);
    }
    view
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
    /// The person the token acts for (`user:alice`); null for a token made
    /// before tokens had owners, which stands for itself.
    pub owner: Option<String>,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
    pub last_used_at: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use warden_protocol::SnapshotOffer;

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
    fn the_view_takes_the_decider_recorded_beside_an_old_row() {
        let people = ApprovalPeople {
            decided_by: Some("user:alice".into()),
            decided_at_ms: Some(5),
            ..ApprovalPeople::default()
        };
        let view = approval_view(&approval(None), &people, 0);
        assert_eq!(view.decided_by.as_deref(), Some("user:alice"));
        assert_eq!(view.decided_at, Some(rfc3339(5)));
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
