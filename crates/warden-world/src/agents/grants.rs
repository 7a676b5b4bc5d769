//! The server's agent identity: its Ed25519 key (created once, kept in the
//! store, which is a 0600 file, so agents' stored server key stays valid
//! across restarts), the write grants it signs, and random ids.

use ed25519_dalek::SigningKey;
use warden_core::ports::Approval;
use warden_protocol::agent::{
    GRANT_NONCE_BYTES, Grant, GrantClaims, MAX_GRANT_LIFETIME_MS, command_sha256,
};
use warden_store::Store;

/// The name of the grant-signing key among the server's secrets.
const SIGNING_KEY_NAME: &str = "agent_grant_signing_key";

/// How long a grant lives: enough to cross the connection, well under the
/// protocol's ceiling.
pub const GRANT_LIFETIME_MS: u64 = 60_000;

const _: () = assert!(GRANT_LIFETIME_MS <= MAX_GRANT_LIFETIME_MS);

#[derive(Debug, thiserror::Error)]
pub enum AgentKeyError {
    #[error("no randomness from the operating system: {0}")]
    Random(String),
    #[error("the agent signing key: {0}")]
    Store(#[from] warden_store::StoreError),
    #[error("the stored agent signing key is not 32 bytes")]
    Corrupt,
}

/// `N` random bytes.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], AgentKeyError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| AgentKeyError::Random(e.to_string()))?;
    Ok(bytes)
}

/// `prefix` and 128 random bits in hex: request ids.
pub fn random_id(prefix: &str) -> Result<String, AgentKeyError> {
    crate::random_id(prefix).map_err(|e| AgentKeyError::Random(e.to_string()))
}

/// The server's signing key: the stored one, or a new one stored for good.
pub fn load_or_create_signing_key(store: &Store, now_ms: u64) -> Result<SigningKey, AgentKeyError> {
    let candidate = random_bytes::<32>()?;
    let stored = store.server_secret_or_insert(SIGNING_KEY_NAME, &candidate, now_ms)?;
    let seed: [u8; 32] = stored.try_into().map_err(|_| AgentKeyError::Corrupt)?;
    Ok(SigningKey::from_bytes(&seed))
}

/// What one write grant binds.
pub struct GrantFor<'a> {
    pub agent_id: &'a str,
    pub request_id: &'a str,
    pub command: &'a str,
    pub target: &'a str,
    pub approval: Option<&'a Approval>,
    pub now_ms: u64,
}

/// A grant for exactly this write, signed by `key`, with a fresh nonce.
pub fn sign_grant(key: &SigningKey, grant: GrantFor<'_>) -> Result<Grant, AgentKeyError> {
    let claims = GrantClaims {
        agent_id: grant.agent_id.to_string(),
        request_id: grant.request_id.to_string(),
        command_sha256: command_sha256(grant.command),
        target: grant.target.to_string(),
        approval_id: grant.approval.map(|a| a.id.clone()),
        approved_by: grant.approval.and_then(|a| a.decided_by.clone()),
        expires_at: grant.now_ms + GRANT_LIFETIME_MS,
        nonce: random_bytes::<GRANT_NONCE_BYTES>()?,
    };
    Ok(claims.sign(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_survives_and_grants_verify() {
        let store = Store::open_in_memory().unwrap();
        let key = load_or_create_signing_key(&store, 1).unwrap();
        let again = load_or_create_signing_key(&store, 2).unwrap();
        assert_eq!(key.to_bytes(), again.to_bytes());
        let grant = sign_grant(
            &key,
            GrantFor {
                agent_id: "agt_1",
                request_id: "req_1",
                command: "touch /tmp/x",
                target: "host:web1",
                approval: None,
                now_ms: 1_000,
            },
        )
        .unwrap();
        assert!(grant.verify_signature(&key.verifying_key()).is_ok());
        assert_eq!(grant.expires_at, 1_000 + GRANT_LIFETIME_MS);
        assert_eq!(grant.command_sha256, command_sha256("touch /tmp/x"));
        assert_ne!(random_id("req_").unwrap(), random_id("req_").unwrap());
    }
}
