//! Proxmox clusters an admin adds and removes through the server's API.
//! Clusters from the configuration file are listed but changed only there;
//! the ones added here are connected (their first inventory read) before
//! they are kept, in `proxmox-clusters.toml` in the data directory (0600:
//! it holds token secrets), and connected again at the next start.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use warden_core::redact::known::SharedKnownSecrets;
use warden_infra::proxmox::{ConfigError, ProxmoxConfig, ProxmoxError};

use super::clusters::{AddCluster, ClusterAdminError, ClusterOrigin, ClusterTrust, ClusterView};

use super::{JoinError, ProxmoxWorld};

/// The file, in the data directory, of clusters added through the API.
pub const CLUSTERS_FILE: &str = "proxmox-clusters.toml";

/// One cluster as the file keeps it (with its secret, unlike
/// [`ProxmoxConfig`]'s serialisation).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredCluster {
    name: String,
    url: String,
    token_id: String,
    token_secret: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fingerprint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ca_file: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    insecure: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_interval_secs: Option<u64>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredClusters {
    #[serde(default)]
    proxmox: Vec<StoredCluster>,
}

impl StoredCluster {
    /// A cluster as the file keeps it (only clusters with an inline secret
    /// come from the file).
    fn of_config(config: &ProxmoxConfig) -> Option<Self> {
        Some(StoredCluster {
            name: config.name.clone(),
            url: config.url.clone(),
            token_id: config.token_id.clone(),
            token_secret: config.token_secret.clone()?,
            fingerprint: config.fingerprint.clone(),
            ca_file: config.ca_file.clone(),
            insecure: config.insecure,
            refresh_interval_secs: config.refresh_interval_secs,
        })
    }

    fn config(&self) -> ProxmoxConfig {
        ProxmoxConfig {
            name: self.name.clone(),
            url: self.url.clone(),
            token_id: self.token_id.clone(),
            token_secret_env: None,
            token_secret: Some(self.token_secret.clone()),
            fingerprint: self.fingerprint.clone(),
            ca_file: self.ca_file.clone(),
            insecure: self.insecure,
            refresh_interval_secs: self.refresh_interval_secs,
        }
    }
}

impl From<AddCluster> for StoredCluster {
    fn from(add: AddCluster) -> Self {
        StoredCluster {
            name: add.name,
            url: add.url,
            token_id: add.token_id,
            token_secret: add.token_secret,
            fingerprint: add.fingerprint,
            ca_file: add.ca_file.map(PathBuf::from),
            insecure: add.insecure.unwrap_or(false),
            refresh_interval_secs: add.refresh_interval_secs,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClustersFileError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a valid clusters file: {source}", path.display())]
    Parse {
        path: PathBuf,
        source: toml::de::Error,
    },
}

/// The clusters added through the API, as configurations (none when the
/// file does not exist).
pub fn load_added(data_dir: &Path) -> Result<Vec<ProxmoxConfig>, ClustersFileError> {
    Ok(read_file(&data_dir.join(CLUSTERS_FILE))?
        .proxmox
        .iter()
        .map(StoredCluster::config)
        .collect())
}

fn read_file(path: &Path) -> Result<StoredClusters, ClustersFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(StoredClusters::default()),
        Err(source) => {
            return Err(ClustersFileError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    toml::from_str(&text).map_err(|source| ClustersFileError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

/// The clusters an admin manages through the server's API.
pub struct ProxmoxAdmin {
    world: Arc<ProxmoxWorld>,
    /// The clusters in the configuration file.
    from_config: Vec<ProxmoxConfig>,
    file: PathBuf,
    /// What the file holds (read once at start, as [`load_added`] gave
    /// it); changed and written under this lock, one change at a time.
    added: Mutex<Vec<StoredCluster>>,
    /// Where an added cluster's token secret is registered, so no tool
    /// output carries it.
    known_secrets: Arc<SharedKnownSecrets>,
}

impl ProxmoxAdmin {
    /// `added` is what [`load_added`] read from `data_dir`.
    pub fn new(
        world: Arc<ProxmoxWorld>,
        from_config: Vec<ProxmoxConfig>,
        added: &[ProxmoxConfig],
        data_dir: &Path,
    ) -> Self {
        ProxmoxAdmin {
            world,
            from_config,
            file: data_dir.join(CLUSTERS_FILE),
            added: Mutex::new(added.iter().filter_map(StoredCluster::of_config).collect()),
            known_secrets: Arc::default(),
        }
    }

    /// Register the token secret of every cluster added from now on here.
    pub fn watch_secrets_in(mut self, known_secrets: Arc<SharedKnownSecrets>) -> Self {
        self.known_secrets = known_secrets;
        self
    }

    fn view(&self, config: &ProxmoxConfig, origin: ClusterOrigin) -> ClusterView {
        let member = self
            .world
            .clusters()
            .into_iter()
            .find(|c| c.name() == config.name);
        let trust = match (&config.fingerprint, &config.ca_file, config.insecure) {
            (Some(_), _, _) => ClusterTrust::Fingerprint,
            (None, Some(_), _) => ClusterTrust::CaFile,
            (None, None, true) => ClusterTrust::Insecure,
            (None, None, false) => ClusterTrust::SystemRoots,
        };
        let problem = match &member {
            None => Some("not connected: its settings are invalid".to_string()),
            Some(_) => self
                .world
                .connected
                .iter()
                .find(|c| c.cluster == config.name)
                .and_then(|c| c.result.as_ref().err().cloned()),
        };
        ClusterView {
            name: config.name.clone(),
            url: config.url.clone(),
            token_id: config.token_id.clone(),
            trust,
            fingerprint: config.fingerprint.clone(),
            origin,
            resources: member.map_or(0, |m| m.cluster().inventory().resources().len()),
            problem,
        }
    }

    /// Replace the file with `clusters` (0600, atomically).
    fn save(&self, clusters: Vec<StoredCluster>) -> Result<(), ClusterAdminError> {
        let text = toml::to_string(&StoredClusters { proxmox: clusters })
            .map_err(|e| ClusterAdminError::Unavailable(format!("cannot write clusters: {e}")))?;
        warden_infra::private_files::write_private_file(&self.file, text.as_bytes())
            .map_err(|e| ClusterAdminError::Unavailable(e.to_string()))
    }

    /// Connect a cluster and keep its settings; nothing changes when its
    /// first inventory cannot be read.
    pub async fn add(&self, add: AddCluster) -> Result<ClusterView, ClusterAdminError> {
        let stored = StoredCluster::from(add);
        let config = stored.config();
        // Before it is used: from its first inventory on, a command could
        // print it.
        let label = format!("Proxmox token secret of cluster {}", config.name);
        if let Err(error) = self
            .known_secrets
            .update(|known| known.add(&label, stored.token_secret.as_bytes()))
        {
            tracing::warn!(%error, "an added cluster's token secret is not watched for in tool output");
        }
        if self.from_config.iter().any(|c| c.name == config.name) {
            return Err(ClusterAdminError::Conflict(format!(
                "a cluster named `{}` is in the configuration file",
                config.name
            )));
        }
        self.world.join(&config).await.map_err(join_error)?;
        let kept = {
            let mut added = self.added.lock().unwrap_or_else(PoisonError::into_inner);
            let mut next: Vec<StoredCluster> = added
                .iter()
                .filter(|c| c.name != stored.name)
                .cloned()
                .collect();
            next.push(stored);
            self.save(next.clone()).map(|()| *added = next)
        };
        if let Err(error) = kept {
            // Not kept: not connected either, so a restart shows the truth.
            self.world.leave(&config.name);
            return Err(error);
        }
        Ok(self.view(&config, ClusterOrigin::Api))
    }
}

impl ProxmoxAdmin {
    /// The clusters of the configuration file, then those added here.
    pub fn list(&self) -> Vec<ClusterView> {
        let added = self
            .added
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        self.from_config
            .iter()
            .map(|c| self.view(c, ClusterOrigin::Config))
            .chain(
                added
                    .iter()
                    .map(|c| self.view(&c.config(), ClusterOrigin::Api)),
            )
            .collect()
    }

    /// Disconnect a cluster added through the API and forget it.
    pub fn remove(&self, name: &str) -> Result<(), ClusterAdminError> {
        if self.from_config.iter().any(|c| c.name == name) {
            return Err(ClusterAdminError::Conflict(format!(
                "`{name}` is configured in the configuration file: remove it there"
            )));
        }
        let mut added = self.added.lock().unwrap_or_else(PoisonError::into_inner);
        if !added.iter().any(|c| c.name == name) {
            return Err(ClusterAdminError::NotFound(format!(
                "no Proxmox cluster `{name}` was added through the API"
            )));
        }
        let next: Vec<StoredCluster> = added.iter().filter(|c| c.name != name).cloned().collect();
        self.save(next.clone())?;
        *added = next;
        self.world.leave(name);
        Ok(())
    }
}

/// The request field a failed connection points at.
fn join_error(error: JoinError) -> ClusterAdminError {
    let field = match &error {
        JoinError::Duplicate(name) => {
            return ClusterAdminError::Conflict(format!(
                "a cluster named `{name}` is already connected"
            ));
        }
        JoinError::Timeout(_) => "url",
        JoinError::Proxmox(proxmox) => match proxmox {
            ProxmoxError::Config(config) => match config {
                ConfigError::BadName { .. } | ConfigError::DuplicateName { .. } => "name",
                ConfigError::BadUrl { .. } => "url",
                ConfigError::BadTokenId { .. } => "token_id",
                ConfigError::NoSecret { .. }
                | ConfigError::TwoSecrets { .. }
                | ConfigError::SecretEnvMissing { .. }
                | ConfigError::BadSecret { .. } => "token_secret",
                ConfigError::BadFingerprint { .. } | ConfigError::ConflictingTrust { .. } => {
                    "fingerprint"
                }
                ConfigError::BadCaFile { .. } => "ca_file",
                ConfigError::BadRefreshInterval { .. } => "refresh_interval_secs",
            },
            ProxmoxError::Unauthorized { .. } => "token_secret",
            ProxmoxError::Forbidden(_) => "token_id",
            ProxmoxError::CertificateMismatch { .. } | ProxmoxError::Tls { .. } => "fingerprint",
            _ => "url",
        },
    };
    ClusterAdminError::Invalid {
        field,
        message: error.to_string(),
    }
}
