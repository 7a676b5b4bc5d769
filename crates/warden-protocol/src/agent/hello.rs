//! The connection's proof of identity (spec/agent.md "Connection"): the
//! server sends 32 random bytes, the agent signs
//! `"warden-agent-v1\n" + nonce bytes` with its enrolled key.

use ed25519_dalek::{Signer, SigningKey, VerifyingKey};

use super::encoding::{decode_base64_array, encode_base64};
use super::grant::{SignatureCheckError, verify_base64_signature};

/// Prefixed to the nonce before signing, so an agent's signature over a
/// challenge can never be mistaken for a signature over anything else.
pub const HELLO_CONTEXT: &[u8] = b"warden-agent-v1\n";

/// Bytes of randomness in a challenge.
pub const CHALLENGE_NONCE_BYTES: usize = 32;

/// The exact message an agent signs for `nonce`.
pub fn hello_signing_message(nonce: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(HELLO_CONTEXT.len() + nonce.len());
    message.extend_from_slice(HELLO_CONTEXT);
    message.extend_from_slice(nonce);
    message
}

/// The base64 signature an agent puts in its `hello` for `nonce`.
pub fn sign_hello(agent_key: &SigningKey, nonce: &[u8]) -> String {
    encode_base64(&agent_key.sign(&hello_signing_message(nonce)).to_bytes())
}

/// Whether `signature` (base64, from a `hello`) is `agent_key`'s signature
/// for `nonce`: what the server checks before its `welcome`.
pub fn verify_hello(
    agent_key: &VerifyingKey,
    nonce: &[u8],
    signature: &str,
) -> Result<(), SignatureCheckError> {
    verify_base64_signature(agent_key, &hello_signing_message(nonce), signature)
}

/// A challenge's nonce decoded, when it is base64 of exactly
/// [`CHALLENGE_NONCE_BYTES`] bytes.
pub fn decode_challenge_nonce(nonce: &str) -> Option<[u8; CHALLENGE_NONCE_BYTES]> {
    decode_base64_array(nonce)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signed_message_is_the_context_then_the_nonce() {
        assert_eq!(hello_signing_message(&[1, 2]), b"warden-agent-v1\n\x01\x02");
    }

    #[test]
    fn a_hello_verifies_for_its_nonce_and_key_only() {
        let agent = SigningKey::from_bytes(&[9; 32]);
        let other = SigningKey::from_bytes(&[8; 32]);
        let nonce = [5u8; CHALLENGE_NONCE_BYTES];
        let signature = sign_hello(&agent, &nonce);
        assert_eq!(
            verify_hello(&agent.verifying_key(), &nonce, &signature),
            Ok(())
        );
        assert_eq!(
            verify_hello(&other.verifying_key(), &nonce, &signature),
            Err(SignatureCheckError::Mismatch)
        );
        assert_eq!(
            verify_hello(&agent.verifying_key(), &[6u8; 32], &signature),
            Err(SignatureCheckError::Mismatch)
        );
        // A bare signature over the nonce (no context) is refused.
        let bare = encode_base64(&agent.sign(&nonce).to_bytes());
        assert_eq!(
            verify_hello(&agent.verifying_key(), &nonce, &bare),
            Err(SignatureCheckError::Mismatch)
        );
        assert_eq!(
            verify_hello(&agent.verifying_key(), &nonce, "AAAA"),
            Err(SignatureCheckError::Malformed)
        );
    }

    #[test]
    fn challenge_nonces_must_be_32_bytes() {
        assert!(decode_challenge_nonce(&encode_base64(&[0; 32])).is_some());
        assert!(decode_challenge_nonce(&encode_base64(&[0; 31])).is_none());
        assert!(decode_challenge_nonce("%%%").is_none());
    }
}
