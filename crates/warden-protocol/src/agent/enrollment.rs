//! Enrollment and agent management over HTTP (spec/agent.md "Identity and
//! enrollment"). Request bodies reject unknown fields, as api.md requires of
//! the server; response bodies ignore them, as it requires of clients.

use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};

use super::encoding::decode_base64_array;

/// `POST`: an admin creates an enrollment token.
pub const ENROLLMENT_TOKENS_PATH: &str = "/api/agents/enrollment-tokens";
/// `POST`: an agent enrolls with a token.
pub const ENROLL_PATH: &str = "/api/agents/enroll";
/// `GET` upgraded to WebSocket: the agent connection.
pub const CONNECT_PATH: &str = "/api/agents/connect";
/// `GET`: the enrolled agents; `DELETE {AGENTS_PATH}/{id}` revokes one.
pub const AGENTS_PATH: &str = "/api/agents";

/// WebSocket close code for an agent the server will not accept (unknown
/// agent, bad signature, revoked).
pub const CLOSE_UNAUTHORIZED: u16 = 4401;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnrollmentTokenRequest {
    /// How many enrollments the token allows (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uses: Option<u32>,
    /// Lifetime (default 24).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in_hours: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnrollmentToken {
    pub token: String,
    /// RFC 3339 UTC.
    pub expires_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnrollRequest {
    pub token: String,
    pub name: String,
    /// Base64 of the agent's 32-byte Ed25519 public key.
    pub public_key: String,
    pub version: String,
    pub os: String,
    pub arch: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnrollResponse {
    pub agent_id: String,
    /// Base64 of the server's 32-byte Ed25519 public key (it signs grants).
    pub server_public_key: String,
}

/// One entry of `GET /api/agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSummary {
    pub id: String,
    pub name: String,
    /// The agent's host resource id (`host:web1`).
    pub host: String,
    pub version: String,
    pub connected: bool,
    /// RFC 3339 UTC; null before the first connection.
    pub last_seen: Option<String>,
}

/// A base64 Ed25519 public key decoded and checked to be a curve point.
pub fn decode_public_key(base64: &str) -> Option<VerifyingKey> {
    let bytes: [u8; 32] = decode_base64_array(base64)?;
    VerifyingKey::from_bytes(&bytes).ok()
}

impl EnrollRequest {
    pub fn agent_key(&self) -> Option<VerifyingKey> {
        decode_public_key(&self.public_key)
    }
}

impl EnrollResponse {
    pub fn server_key(&self) -> Option<VerifyingKey> {
        decode_public_key(&self.server_public_key)
    }
}
