//! Password hashing: argon2id with the crate's defaults (19 MiB, 2 passes,
//! one lane: OWASP's recommendation), as PHC strings with a random salt.
//! Hashing is slow on purpose: callers in async code use `spawn_blocking`.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    #[error("a password needs at least {MIN_LENGTH} characters")]
    TooShort,
    #[error("a password may not be longer than {MAX_LENGTH} bytes")]
    TooLong,
    #[error("password hashing failed: {0}")]
    Hashing(String),
}

pub const MIN_LENGTH: usize = 8;
/// Bounds the work one login attempt can cause.
pub const MAX_LENGTH: usize = 1024;

/// The argon2id PHC string of `password`.
pub fn hash_password(password: &str) -> Result<String, PasswordError> {
    if password.chars().count() < MIN_LENGTH {
        return Err(PasswordError::TooShort);
    }
    if password.len() > MAX_LENGTH {
        return Err(PasswordError::TooLong);
    }
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|e| PasswordError::Hashing(e.to_string()))
}

/// Whether `password` matches the stored PHC string. A malformed hash
/// never matches.
pub fn verify_password(password: &str, phc: &str) -> bool {
    if password.len() > MAX_LENGTH {
        return false;
    }
    match PasswordHash::new(phc) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_only_their_password() {
        let hash = hash_password("correct horse").unwrap();
        assert!(hash.starts_with("$argon2id$v=19$"), "{hash}");
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("correct horsf", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
        assert_ne!(hash, hash_password("correct horse").unwrap(), "salted");
        assert_eq!(hash_password("short"), Err(PasswordError::TooShort));
        assert_eq!(
            hash_password(&"x".repeat(2000)),
            Err(PasswordError::TooLong)
        );
    }
}
