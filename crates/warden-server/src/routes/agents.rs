//! Host agents over HTTP (spec/agent.md "Identity and enrollment"):
//! enrollment tokens (admin), enrollment (the token is the credential),
//! the list (viewer), revocation (admin), and the WebSocket endpoint.

use std::sync::Arc;

use axum::Json;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use warden_protocol::agent::{MAX_FRAME_BYTES, decode_public_key, encode_base64};
use warden_store::{EnrollError, Enrollment, NewEnrollmentToken};

use crate::api::rfc3339;
use crate::auth::secrets::{new_id, new_secret, sha256_hex};
use crate::auth::{Authorized, needs};
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::state::{AppState, HumanAction, now_ms};

/// Bounds of an enrollment token.
const MAX_USES: u32 = 10_000;
const MAX_HOURS: u32 = 24 * 365;
/// The longest agent name (a host name) and version/OS/arch strings.
const MAX_NAME: usize = 63;
const MAX_FIELD: usize = 64;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEnrollmentToken {
    /// How many enrollments the token allows (default 1).
    #[schema(minimum = 1, maximum = 10000)]
    pub uses: Option<u32>,
    /// Lifetime in hours (default 24).
    #[schema(minimum = 1, maximum = 8760)]
    pub expires_in_hours: Option<u32>,
}

/// A new enrollment token: the secret is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedEnrollmentToken {
    pub token: String,
    pub expires_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnrollBody {
    pub token: String,
    /// The agent's host name: its host resource is `host:{name}`.
    #[schema(
        min_length = 1,
        max_length = 63,
        pattern = "^[A-Za-z0-9][A-Za-z0-9._-]*$"
    )]
    pub name: String,
    /// Base64 of the agent's 32-byte Ed25519 public key.
    pub public_key: String,
    #[schema(max_length = 64)]
    pub version: String,
    #[schema(max_length = 64)]
    pub os: String,
    #[schema(max_length = 64)]
    pub arch: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Enrolled {
    pub agent_id: String,
    /// Base64 of the server's 32-byte Ed25519 public key (it signs grants).
    pub server_public_key: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AgentView {
    pub id: String,
    pub name: String,
    /// The agent's host resource id (`host:web1`).
    pub host: String,
    pub version: String,
    pub connected: bool,
    /// RFC 3339 UTC; null before the first connection.
    pub last_seen: Option<String>,
}

/// Create an enrollment token (its secret is in this response only).
#[utoipa::path(post, path = "/api/agents/enrollment-tokens", tag = "agents",
    request_body = CreateEnrollmentToken,
    responses((status = 200, description = "The token", body = CreatedEnrollmentToken)))]
pub async fn create_token(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Admin>,
    ApiJson(body): ApiJson<CreateEnrollmentToken>,
) -> Result<Json<CreatedEnrollmentToken>, ApiError> {
    let uses = body.uses.unwrap_or(1);
    if !(1..=MAX_USES).contains(&uses) {
        return Err(ApiError::invalid_field(
            "uses",
            format!("must be between 1 and {MAX_USES}"),
        ));
    }
    let hours = body.expires_in_hours.unwrap_or(24);
    if !(1..=MAX_HOURS).contains(&hours) {
        return Err(ApiError::invalid_field(
            "expires_in_hours",
            format!("must be between 1 and {MAX_HOURS}"),
        ));
    }
    let secret = new_secret().map_err(|e| ApiError::Unavailable(e.to_string()))?;
    let token = format!("wet_{secret}");
    let now = now_ms();
    let expires_at_ms = now + u64::from(hours) * 3_600_000;
    app.store
        .add_enrollment_token(&NewEnrollmentToken {
            token_hash: sha256_hex(&token),
            uses,
            expires_at_ms,
            created_by: Some(caller.actor()),
            created_at_ms: now,
        })
        .map_err(ApiError::store)?;
    tracing::info!(by = %caller.actor(), uses, hours, "agent enrollment token created");
    Ok(Json(CreatedEnrollmentToken {
        token,
        expires_at: rfc3339(expires_at_ms),
    }))
}

/// A name that is a host name, so `host:{name}` and `…:{name}:…` ids work.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && name.as_bytes()[0].is_ascii_alphanumeric()
}

fn valid_field(value: &str) -> bool {
    value.len() <= MAX_FIELD && !value.chars().any(char::is_control)
}

/// Enroll an agent with an enrollment token.
#[utoipa::path(post, path = "/api/agents/enroll", tag = "agents", request_body = EnrollBody,
    responses((status = 200, description = "Enrolled", body = Enrolled)))]
pub async fn enroll(
    State(app): State<Arc<AppState>>,
    ApiJson(body): ApiJson<EnrollBody>,
) -> Result<Json<Enrolled>, ApiError> {
    if !valid_name(&body.name) {
        return Err(ApiError::invalid_field(
            "name",
            "a host name: letters, digits, `.`, `_` and `-`, at most 63, starting with a letter or digit",
        ));
    }
    if decode_public_key(&body.public_key).is_none() {
        return Err(ApiError::invalid_field(
            "public_key",
            "base64 of a 32-byte Ed25519 public key",
        ));
    }
    for (field, value) in [
        ("version", &body.version),
        ("os", &body.os),
        ("arch", &body.arch),
    ] {
        if !valid_field(value) {
            return Err(ApiError::invalid_field(
                field,
                "at most 64 characters, no control characters",
            ));
        }
    }
    let new_agent_id = new_id("agt_").map_err(|e| ApiError::Unavailable(e.to_string()))?;
    let token_hash = sha256_hex(&body.token);
    let outcome = app.store.enroll_agent(&Enrollment {
        token_hash: &token_hash,
        new_id: &new_agent_id,
        name: &body.name,
        public_key: &body.public_key,
        version: &body.version,
        os: &body.os,
        arch: &body.arch,
        now_ms: now_ms(),
    });
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            tracing::warn!(name = %body.name, %error, "agent enrollment refused");
            return Err(match error {
                EnrollError::UnknownToken
                | EnrollError::TokenExpired
                | EnrollError::TokenUsedUp => ApiError::Unauthenticated(error.to_string()),
                EnrollError::NameTaken { .. } => ApiError::conflict(error.to_string(), None),
                EnrollError::KeyRevoked { .. } => ApiError::Forbidden(error.to_string()),
                EnrollError::Store(e) => ApiError::store(e),
            });
        }
    };
    let agent = outcome.agent();
    tracing::info!(agent_id = %agent.id, name = %agent.name, version = %agent.version, "agent enrolled");
    Ok(Json(Enrolled {
        agent_id: agent.id.clone(),
        server_public_key: encode_base64(app.agents.signing_key.verifying_key().as_bytes()),
    }))
}

/// Every enrolled agent (revoked ones are gone).
#[utoipa::path(get, path = "/api/agents", tag = "agents",
    responses((status = 200, description = "Agents", body = Vec<AgentView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
) -> Result<Json<Vec<AgentView>>, ApiError> {
    let agents = app.store.agents().map_err(ApiError::store)?;
    Ok(Json(
        agents
            .into_iter()
            .map(|agent| {
                let live = app.agents.hub.live_since(&agent.id);
                let last_seen = live.or(agent.last_seen_ms).map(rfc3339);
                AgentView {
                    host: format!("host:{}", agent.name),
                    connected: live.is_some(),
                    id: agent.id,
                    name: agent.name,
                    version: agent.version,
                    last_seen,
                }
            })
            .collect(),
    ))
}

/// Revoke an agent: its connection closes at once and its key is refused.
#[utoipa::path(delete, path = "/api/agents/{id}", tag = "agents",
    params(("id" = String, Path, description = "Agent id")),
    responses((status = 204, description = "Revoked")))]
pub async fn revoke(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Admin>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let agent = app.store.agent(&id).map_err(ApiError::store)?;
    let Some(agent) = agent.filter(|a| a.revoked_at_ms.is_none()) else {
        return Err(ApiError::NotFound(format!("no agent `{id}`")));
    };
    if !app
        .store
        .revoke_agent(&id, now_ms())
        .map_err(ApiError::store)?
    {
        return Err(ApiError::NotFound(format!("no agent `{id}`")));
    }
    app.agents.hub.revoke(&agent.id);
    tracing::warn!(agent_id = %agent.id, name = %agent.name, by = %caller.actor(), "agent revoked");
    let host = format!("host:{}", agent.name);
    let detail = format!("agent {} ({}) revoked", agent.name, agent.id);
    app.audit_human(HumanAction {
        session_id: "",
        actor: &caller.actor(),
        tool: "agents",
        target: Some(&host),
        decision: "revoked",
        detail: &detail,
    });
    Ok(StatusCode::NO_CONTENT)
}

/// The agent connection: a WebSocket upgrade (spec/agent.md "Connection").
#[utoipa::path(get, path = "/api/agents/connect", tag = "agents",
    responses((status = 101, description = "Switching to the agent protocol over WebSocket")))]
pub async fn connect(
    State(app): State<Arc<AppState>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|rejection| {
        ApiError::invalid(format!(
            "this endpoint is a WebSocket for agents (spec/agent.md): {rejection}"
        ))
    })?;
    let agents = Arc::clone(&app.agents);
    Ok(upgrade
        .max_message_size(MAX_FRAME_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        // Small buffers: a thousand idle agents must stay cheap.
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .on_upgrade(move |socket| crate::agents::connection::serve(socket, agents)))
}
