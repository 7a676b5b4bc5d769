//! The agent's identity in its state directory: an Ed25519 key generated on
//! this host that never leaves it (`agent.key`), and what enrollment
//! returned (`identity.json`: agent id, the server's URL, public key and how
//! its certificate is trusted). Directory 0700, files 0600.

use std::path::{Path, PathBuf};

use ed25519_dalek::{SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use warden_protocol::agent::{decode_base64_array, decode_public_key, encode_base64};

use crate::private_files::{PrivateFileError, ensure_private_dir, mode_of, write_private_file};
use crate::tls::ServerTrust;

pub const KEY_FILE: &str = "agent.key";
pub const IDENTITY_FILE: &str = "identity.json";

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error(transparent)]
    File(#[from] PrivateFileError),
    #[error("no randomness for a new key: {0}")]
    Randomness(String),
    #[error("{} is not a base64 Ed25519 key", path.display())]
    BadKey { path: PathBuf },
    #[error("{} is readable by others (mode {mode:04o}): run `chmod 600` on it", path.display())]
    KeyExposed { path: PathBuf, mode: u32 },
    #[error("this agent is not enrolled: {} does not exist (run `warden agent enroll`)", path.display())]
    NotEnrolled { path: PathBuf },
    #[error("{} is unreadable: {message}", path.display())]
    BadIdentity { path: PathBuf, message: String },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What enrollment established, as stored in `identity.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub agent_id: String,
    /// The name this agent enrolled under (its host is `host:{name}`).
    pub name: String,
    pub server_url: String,
    /// Base64 of the key that signs grants.
    pub server_public_key: String,
    /// Base64 of this agent's public key (the private half is in `agent.key`).
    pub public_key: String,
    pub trust: ServerTrust,
    /// RFC 3339.
    pub enrolled_at: String,
}

impl Identity {
    pub fn server_key(&self) -> Result<VerifyingKey, String> {
        decode_public_key(&self.server_public_key)
            .ok_or_else(|| "server_public_key is not a base64 Ed25519 public key".to_string())
    }
}

/// The agent's state directory.
#[derive(Debug, Clone)]
pub struct StateDir {
    path: PathBuf,
}

/// `/var/lib/warden-agent` for root, else `$XDG_DATA_HOME/warden-agent` or
/// `~/.local/share/warden-agent`.
pub fn default_state_dir() -> PathBuf {
    if rustix::process::getuid().is_root() {
        return PathBuf::from("/var/lib/warden-agent");
    }
    if let Some(data) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(data).join("warden-agent");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join(".local/share/warden-agent")
}

impl StateDir {
    /// Opens `path`, creating it 0700 (or tightening it) as needed.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, IdentityError> {
        let path = path.into();
        ensure_private_dir(&path)?;
        Ok(StateDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The agent's key: read from `agent.key`, or generated from the
    /// system's randomness and stored there (0600) the first time. Kept
    /// across enrollment attempts, so a failed attempt can be retried.
    pub fn load_or_create_key(&self) -> Result<SigningKey, IdentityError> {
        let path = self.path.join(KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let mode = mode_of(&path)?;
                if mode & 0o077 != 0 {
                    return Err(IdentityError::KeyExposed { path, mode });
                }
                let seed: [u8; 32] = decode_base64_array(text.trim())
                    .ok_or_else(|| IdentityError::BadKey { path: path.clone() })?;
                Ok(SigningKey::from_bytes(&seed))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let mut seed = [0u8; 32];
                getrandom::fill(&mut seed)
                    .map_err(|err| IdentityError::Randomness(err.to_string()))?;
                let key = SigningKey::from_bytes(&seed);
                write_private_file(&path, format!("{}\n", encode_base64(&seed)).as_bytes())?;
                Ok(key)
            }
            Err(source) => Err(IdentityError::Read { path, source }),
        }
    }

    /// The stored key; an error when there is none.
    pub fn load_key(&self) -> Result<SigningKey, IdentityError> {
        let path = self.path.join(KEY_FILE);
        if !path.exists() {
            return Err(IdentityError::NotEnrolled { path });
        }
        self.load_or_create_key()
    }

    pub fn identity_path(&self) -> PathBuf {
        self.path.join(IDENTITY_FILE)
    }

    /// The stored identity; `Ok(None)` before enrollment.
    pub fn find_identity(&self) -> Result<Option<Identity>, IdentityError> {
        let path = self.identity_path();
        match std::fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|err| IdentityError::BadIdentity {
                        path,
                        message: err.to_string(),
                    })
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(IdentityError::Read { path, source }),
        }
    }

    /// The stored identity; an error naming `warden agent enroll` before enrollment.
    pub fn load_identity(&self) -> Result<Identity, IdentityError> {
        self.find_identity()?
            .ok_or_else(|| IdentityError::NotEnrolled {
                path: self.identity_path(),
            })
    }

    pub fn save_identity(&self, identity: &Identity) -> Result<(), IdentityError> {
        let mut text =
            serde_json::to_string_pretty(identity).map_err(|err| IdentityError::BadIdentity {
                path: self.identity_path(),
                message: err.to_string(),
            })?;
        text.push('\n');
        write_private_file(&self.identity_path(), text.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_key_is_generated_once_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::open(dir.path().join("agent")).unwrap();
        assert_eq!(mode_of(state.path()).unwrap(), 0o700);
        let first = state.load_or_create_key().unwrap();
        let again = state.load_or_create_key().unwrap();
        assert_eq!(first.to_bytes(), again.to_bytes());
        assert_eq!(mode_of(&state.path().join(KEY_FILE)).unwrap(), 0o600);
        let other = StateDir::open(dir.path().join("other")).unwrap();
        assert_ne!(
            other.load_or_create_key().unwrap().to_bytes(),
            first.to_bytes(),
            "keys come from the system's randomness"
        );
    }

    #[test]
    fn an_exposed_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::open(dir.path()).unwrap();
        state.load_or_create_key().unwrap();
        let key = state.path().join(KEY_FILE);
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(
            state.load_or_create_key(),
            Err(IdentityError::KeyExposed { mode: 0o644, .. })
        ));
    }

    #[test]
    fn identity_round_trips_and_its_absence_says_enroll() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::open(dir.path()).unwrap();
        let err = state.load_identity().unwrap_err();
        assert!(err.to_string().contains("warden agent enroll"), "{err}");
        assert!(matches!(
            state.load_key(),
            Err(IdentityError::NotEnrolled { .. })
        ));
        let identity = Identity {
            agent_id: "agt_1".into(),
            name: "web1".into(),
            server_url: "https://w.example".into(),
            server_public_key: encode_base64(
                SigningKey::from_bytes(&[1; 32]).verifying_key().as_bytes(),
            ),
            public_key: encode_base64(&[0; 32]),
            trust: ServerTrust::Fingerprint {
                sha256: "ab".repeat(32),
            },
            enrolled_at: "2026-11-23T10:00:00Z".into(),
        };
        state.save_identity(&identity).unwrap();
        assert_eq!(state.load_identity().unwrap(), identity);
        assert_eq!(mode_of(&state.identity_path()).unwrap(), 0o600);
        assert!(identity.server_key().is_ok());
    }
}
