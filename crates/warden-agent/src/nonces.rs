//! Grant nonces already used, kept until their grant expires, across agent
//! restarts: a grant replayed after a restart is refused like any other.
//!
//! A nonce is recorded (and the file synced) before its write starts, so a
//! crash in between costs the server one grant, never a second run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::policy::UsedNonces;
use crate::private_files::{PrivateFileError, write_private_file};

/// The file in the state directory.
pub const NONCES_FILE: &str = "used-nonces.json";

#[derive(Debug, thiserror::Error)]
pub enum NonceStoreError {
    #[error(transparent)]
    File(#[from] PrivateFileError),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{} is corrupt ({message}); it guards against replayed grants, so the agent will not \
         start without it: remove it only when no grant from the last two minutes can be replayed",
        path.display()
    )]
    Corrupt { path: PathBuf, message: String },
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct NonceFile {
    /// Hex nonce → the grant's `expires_at` (ms).
    nonces: BTreeMap<String, u64>,
}

/// The used nonces, in memory and in `used-nonces.json`.
#[derive(Debug)]
pub struct NonceStore {
    path: PathBuf,
    used: BTreeMap<String, u64>,
}

impl NonceStore {
    /// Loads the store from `state_dir` (empty when there is no file yet),
    /// forgetting nonces whose grants expired before `now_ms`.
    pub fn load(state_dir: &Path, now_ms: u64) -> Result<Self, NonceStoreError> {
        let path = state_dir.join(NONCES_FILE);
        let used = match std::fs::read(&path) {
            Ok(bytes) => {
                let file: NonceFile =
                    serde_json::from_slice(&bytes).map_err(|err| NonceStoreError::Corrupt {
                        path: path.clone(),
                        message: err.to_string(),
                    })?;
                file.nonces
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(source) => return Err(NonceStoreError::Read { path, source }),
        };
        let mut store = NonceStore { path, used };
        store.prune(now_ms);
        Ok(store)
    }

    /// Marks `nonce` used until `expires_at` and persists the store. On a
    /// persistence error the nonce stays used in memory (it must never run
    /// twice) and the caller refuses the write.
    pub fn record(
        &mut self,
        nonce: &[u8],
        expires_at: u64,
        now_ms: u64,
    ) -> Result<(), NonceStoreError> {
        self.prune(now_ms);
        self.used.insert(hex::encode(nonce), expires_at);
        let file = NonceFile {
            nonces: self.used.clone(),
        };
        let bytes = serde_json::to_vec(&file).map_err(|err| NonceStoreError::Corrupt {
            path: self.path.clone(),
            message: err.to_string(),
        })?;
        write_private_file(&self.path, &bytes)?;
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.used.len()
    }

    pub fn is_empty(&self) -> bool {
        self.used.is_empty()
    }

    fn prune(&mut self, now_ms: u64) {
        self.used.retain(|_, expires_at| *expires_at > now_ms);
    }
}

impl UsedNonces for NonceStore {
    fn contains(&self, nonce: &[u8]) -> bool {
        self.used.contains_key(&hex::encode(nonce))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private_files::mode_of;

    #[test]
    fn used_nonces_survive_a_restart_until_they_expire() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = NonceStore::load(dir.path(), 1_000).unwrap();
        assert!(!store.contains(&[1; 16]));
        store.record(&[1; 16], 5_000, 1_000).unwrap();
        store.record(&[2; 16], 2_000, 1_000).unwrap();
        assert!(store.contains(&[1; 16]));
        assert_eq!(mode_of(&dir.path().join(NONCES_FILE)).unwrap(), 0o600);

        let reloaded = NonceStore::load(dir.path(), 1_500).unwrap();
        assert!(reloaded.contains(&[1; 16]));
        assert!(reloaded.contains(&[2; 16]));
        // Past its grant's expiry a nonce is useless to a replay: forgotten.
        let later = NonceStore::load(dir.path(), 2_000).unwrap();
        assert!(later.contains(&[1; 16]));
        assert!(!later.contains(&[2; 16]));
        assert_eq!(later.len(), 1);
    }

    #[test]
    fn recording_prunes_expired_nonces_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = NonceStore::load(dir.path(), 0).unwrap();
        store.record(&[1; 16], 100, 0).unwrap();
        store.record(&[2; 16], 900, 500).unwrap();
        let text = std::fs::read_to_string(dir.path().join(NONCES_FILE)).unwrap();
        assert!(!text.contains(&hex::encode([1u8; 16])), "{text}");
        assert!(text.contains(&hex::encode([2u8; 16])), "{text}");
    }

    #[test]
    fn a_corrupt_file_stops_the_agent_rather_than_forgetting() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(NONCES_FILE), "{not json").unwrap();
        let err = NonceStore::load(dir.path(), 0).unwrap_err();
        assert!(matches!(err, NonceStoreError::Corrupt { .. }));
        assert!(err.to_string().contains("replayed grants"), "{err}");
    }
}
