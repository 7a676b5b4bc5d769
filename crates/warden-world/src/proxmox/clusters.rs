//! What an admin sees and sends when managing Proxmox VE clusters through
//! the server's API ([`super::admin::ProxmoxAdmin`] does the managing).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where a cluster's settings live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ClusterOrigin {
    /// `[[proxmox]]` in the configuration file: changed there, not here.
    Config,
    /// Added through the API; kept in the data directory.
    Api,
}

/// How the server trusts a cluster's certificate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClusterTrust {
    /// Pinned SHA-256 fingerprint.
    Fingerprint,
    /// A CA file.
    CaFile,
    /// The system's roots.
    SystemRoots,
    /// Any certificate (a lab only).
    Insecure,
}

/// A connected cluster, never with its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClusterView {
    pub name: String,
    pub url: String,
    pub token_id: String,
    pub trust: ClusterTrust,
    /// The pinned fingerprint, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    pub origin: ClusterOrigin,
    /// Resources in its inventory now (0 while it does not answer).
    pub resources: usize,
    /// Why its first inventory failed at start (it keeps trying).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// `POST /api/proxmox/clusters`: the `[[proxmox]]` settings of one cluster.
#[derive(Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AddCluster {
    /// A label, unique among clusters.
    pub name: String,
    /// Any node of the cluster: `https://pve1.lan:8006`.
    pub url: String,
    /// `USER@REALM!TOKENID`.
    pub token_id: String,
    /// The token secret (stored 0600 in the data directory; never shown).
    pub token_secret: String,
    /// SHA-256 of the node's certificate (`AB:CD:…`).
    #[serde(default)]
    pub fingerprint: Option<String>,
    /// A PEM file on the server with the CA certificate(s) to trust.
    #[serde(default)]
    pub ca_file: Option<String>,
    /// Accept any certificate (a lab only).
    #[serde(default)]
    pub insecure: Option<bool>,
    /// Seconds between inventory refreshes (default 30).
    #[serde(default)]
    pub refresh_interval_secs: Option<u64>,
}

impl fmt::Debug for AddCluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AddCluster")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("token_id", &self.token_id)
            .field("token_secret", &"<redacted>")
            .field("fingerprint", &self.fingerprint)
            .field("ca_file", &self.ca_file)
            .field("insecure", &self.insecure)
            .finish()
    }
}

/// Why a change was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterAdminError {
    /// The settings are wrong, or the cluster refused them (a wrong secret,
    /// a certificate that does not match): the field at fault.
    #[error("{message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Unavailable(String),
}
