//! Write grants (spec/agent.md "Write grants"): the server's signed
//! permission for one write on one agent, bound to the request, the exact
//! command, the target and a deadline, single-use through its nonce.
//!
//! The server builds [`GrantClaims`] and signs them ([`GrantClaims::sign`]);
//! the agent checks the signature ([`Grant::verify_signature`]) and then every
//! binding against its `exec` frame (that part lives in the agent's policy).

use std::collections::BTreeMap;

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::canonical::canonical_json;
use super::encoding::{decode_base64_array, encode_base64};

/// The only grant format version.
pub const GRANT_VERSION: u32 = 1;

/// The longest a grant may live: `expires_at` at most this far ahead.
pub const MAX_GRANT_LIFETIME_MS: u64 = 120_000;

/// Bytes of randomness in a grant's nonce.
pub const GRANT_NONCE_BYTES: usize = 16;

/// A signed grant as it travels in an `exec` frame.
///
/// Fields the protocol does not know are kept in `extra` and covered by the
/// signature like every other field, so a grant is verified over exactly the
/// fields it arrived with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub v: u32,
    pub agent_id: String,
    pub request_id: String,
    /// Lower-case hex SHA-256 of the command's UTF-8 bytes ([`command_sha256`]).
    pub command_sha256: String,
    /// The resource id the command runs on.
    pub target: String,
    pub approval_id: Option<String>,
    pub approved_by: Option<String>,
    /// Unix time in milliseconds after which the grant is void.
    pub expires_at: u64,
    /// Base64 of [`GRANT_NONCE_BYTES`] random bytes.
    pub nonce: String,
    /// Base64 Ed25519 signature over [`Grant::signing_bytes`].
    pub signature: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// Everything a grant says, before it is signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantClaims {
    pub agent_id: String,
    pub request_id: String,
    pub command_sha256: String,
    pub target: String,
    pub approval_id: Option<String>,
    pub approved_by: Option<String>,
    pub expires_at: u64,
    pub nonce: [u8; GRANT_NONCE_BYTES],
}

/// Why a signature (of a grant or of a hello) does not check out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureCheckError {
    #[error("the signature is not base64 of 64 bytes")]
    Malformed,
    #[error("the signature does not verify with the expected key")]
    Mismatch,
}

/// Lower-case hex SHA-256 of `command`'s UTF-8 bytes: what a grant binds.
pub fn command_sha256(command: &str) -> String {
    hex::encode(Sha256::digest(command.as_bytes()))
}

impl GrantClaims {
    /// The signed grant: Ed25519 by `server_key` over the canonical JSON of
    /// every field but `signature`.
    pub fn sign(self, server_key: &SigningKey) -> Grant {
        let mut grant = Grant {
            v: GRANT_VERSION,
            agent_id: self.agent_id,
            request_id: self.request_id,
            command_sha256: self.command_sha256,
            target: self.target,
            approval_id: self.approval_id,
            approved_by: self.approved_by,
            expires_at: self.expires_at,
            nonce: encode_base64(&self.nonce),
            signature: String::new(),
            extra: BTreeMap::new(),
        };
        let signature = server_key.sign(&grant.signing_bytes());
        grant.signature = encode_base64(&signature.to_bytes());
        grant
    }
}

impl Grant {
    /// The exact bytes the signature covers: canonical JSON (keys sorted, no
    /// whitespace) of every field but `signature`, `null`s included.
    pub fn signing_bytes(&self) -> Vec<u8> {
        let mut value = match serde_json::to_value(self) {
            Ok(value) => value,
            // Strings, integers and a map of JSON values always serialise.
            Err(_) => Value::Null,
        };
        if let Value::Object(map) = &mut value {
            map.remove("signature");
        }
        canonical_json(&value).into_bytes()
    }

    /// Whether `signature` is `server_key`'s signature over
    /// [`Grant::signing_bytes`] (strict verification: no malleable encodings).
    pub fn verify_signature(&self, server_key: &VerifyingKey) -> Result<(), SignatureCheckError> {
        verify_base64_signature(server_key, &self.signing_bytes(), &self.signature)
    }

    /// The nonce's bytes, when it is base64 of exactly [`GRANT_NONCE_BYTES`].
    pub fn nonce_bytes(&self) -> Option<[u8; GRANT_NONCE_BYTES]> {
        decode_base64_array(&self.nonce)
    }
}

/// Verifies a base64 Ed25519 `signature` of `message` by `key`.
pub(crate) fn verify_base64_signature(
    key: &VerifyingKey,
    message: &[u8],
    signature: &str,
) -> Result<(), SignatureCheckError> {
    let bytes: [u8; 64] = decode_base64_array(signature).ok_or(SignatureCheckError::Malformed)?;
    let signature = Signature::from_bytes(&bytes);
    key.verify_strict(message, &signature)
        .map_err(|_| SignatureCheckError::Mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(seed: u8) -> SigningKey {
        SigningKey::from_bytes(&[seed; 32])
    }

    fn claims() -> GrantClaims {
        GrantClaims {
            agent_id: "agt_1".into(),
            request_id: "req_1".into(),
            command_sha256: command_sha256("systemctl restart nginx"),
            target: "host:web1".into(),
            approval_id: Some("apr_1".into()),
            approved_by: None,
            expires_at: 1_700_000_060_000,
            nonce: [7; 16],
        }
    }

    #[test]
    fn command_hash_is_lower_case_hex_sha256() {
        assert_eq!(
            command_sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn signing_bytes_are_canonical_json_without_the_signature() {
        let grant = claims().sign(&key(1));
        let text = String::from_utf8(grant.signing_bytes()).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"agent_id":"agt_1","approval_id":"apr_1","approved_by":null,"command_sha256":"{}","expires_at":1700000060000,"nonce":"BwcHBwcHBwcHBwcHBwcHBw==","request_id":"req_1","target":"host:web1","v":1}}"#,
                command_sha256("systemctl restart nginx")
            )
        );
    }

    #[test]
    fn a_signed_grant_verifies_with_its_key_only() {
        let grant = claims().sign(&key(1));
        assert_eq!(grant.verify_signature(&key(1).verifying_key()), Ok(()));
        assert_eq!(
            grant.verify_signature(&key(2).verifying_key()),
            Err(SignatureCheckError::Mismatch)
        );
        assert_eq!(grant.nonce_bytes(), Some([7; 16]));
    }

    #[test]
    fn every_field_is_covered_by_the_signature() {
        let good = claims().sign(&key(1));
        let public = key(1).verifying_key();
        let mut tampered: Vec<Grant> = Vec::new();
        let edit = |f: &dyn Fn(&mut Grant)| {
            let mut g = good.clone();
            f(&mut g);
            g
        };
        tampered.push(edit(&|g| g.v = 2));
        tampered.push(edit(&|g| g.agent_id.push('x')));
        tampered.push(edit(&|g| g.request_id.push('x')));
        tampered.push(edit(&|g| g.command_sha256 = command_sha256("reboot")));
        tampered.push(edit(&|g| g.target = "host:web2".into()));
        tampered.push(edit(&|g| g.approval_id = None));
        tampered.push(edit(&|g| g.approved_by = Some("mallory".into())));
        tampered.push(edit(&|g| g.expires_at += 1));
        tampered.push(edit(&|g| g.nonce = encode_base64(&[8; 16])));
        tampered.push(edit(&|g| {
            g.extra.insert("scope".into(), json!("all"));
        }));
        for grant in tampered {
            assert_eq!(
                grant.verify_signature(&public),
                Err(SignatureCheckError::Mismatch),
                "{grant:?}"
            );
        }
        let garbage = edit(&|g| g.signature = "not base64!".into());
        assert_eq!(
            garbage.verify_signature(&public),
            Err(SignatureCheckError::Malformed)
        );
    }

    #[test]
    fn wire_form_round_trips_and_unknown_fields_stay_signed() {
        let grant = claims().sign(&key(3));
        let mut value = serde_json::to_value(&grant).unwrap();
        assert_eq!(value["v"], 1);
        assert_eq!(value["approved_by"], Value::Null);
        let back: Grant = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(back, grant);
        // A field this version does not know changes what was signed.
        value["scope"] = json!("extra");
        let extended: Grant = serde_json::from_value(value).unwrap();
        assert_eq!(extended.extra.get("scope"), Some(&json!("extra")));
        assert!(extended.verify_signature(&key(3).verifying_key()).is_err());
    }
}
