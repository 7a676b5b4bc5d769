//! The `[[proxmox]]` configuration of one cluster, and its validation into
//! [`ConnectionSettings`]: the API token resolved (from the environment when
//! `token_secret_env` is given) and exactly one way of trusting the server's
//! certificate.
//!
//! ```toml
//! [[proxmox]]
//! name = "homelab"
//! url = "https://pve1.lan:8006"
//! token_id = "warden@pve!ops"
//! token_secret_env = "WARDEN_PVE_TOKEN"   # or token_secret = "…"
//! fingerprint = "AB:CD:…"                 # or ca_file = "…", or insecure = true
//! ```

use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use reqwest::Url;
use serde::{Deserialize, Serialize};

pub use crate::tls::CertFingerprint;

/// How often the inventory is refreshed when the config says nothing.
pub const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(30);

/// One cluster as written in the config file (or set through the API by an
/// admin). `Debug` and `Serialize` never show the secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxmoxConfig {
    /// A label for the cluster, used in messages.
    pub name: String,
    /// Any node of the cluster: `https://pve1.lan:8006`.
    pub url: String,
    /// `USER@REALM!TOKENID`.
    pub token_id: String,
    /// The environment variable holding the token secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_secret_env: Option<String>,
    /// The token secret itself (prefer `token_secret_env`).
    #[serde(default, skip_serializing)]
    pub token_secret: Option<String>,
    /// SHA-256 fingerprint of the node's certificate (`AB:CD:…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// A PEM file with the CA certificate(s) to trust.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    /// Accept any certificate (a lab only: anyone on the path can read the token).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure: bool,
    /// Seconds between inventory refreshes (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_interval_secs: Option<u64>,
}

impl fmt::Debug for ProxmoxConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProxmoxConfig")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("token_id", &self.token_id)
            .field("token_secret_env", &self.token_secret_env)
            .field(
                "token_secret",
                &self.token_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("fingerprint", &self.fingerprint)
            .field("ca_file", &self.ca_file)
            .field("insecure", &self.insecure)
            .field("refresh_interval_secs", &self.refresh_interval_secs)
            .finish()
    }
}

/// Why a `[[proxmox]]` entry cannot be used. Each names the cluster and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("[[proxmox]]: `name` is empty or contains whitespace (got {name:?})")]
    BadName { name: String },
    #[error("[[proxmox]] `{cluster}`: two clusters are named `{cluster}`; names must be unique")]
    DuplicateName { cluster: String },
    #[error("[[proxmox]] `{cluster}`: url {url:?} is not usable: {reason}")]
    BadUrl {
        cluster: String,
        url: String,
        reason: String,
    },
    #[error(
        "[[proxmox]] `{cluster}`: token_id {token_id:?} is not `USER@REALM!TOKENID` ({reason})"
    )]
    BadTokenId {
        cluster: String,
        token_id: String,
        reason: String,
    },
    #[error(
        "[[proxmox]] `{cluster}`: no token secret: set `token_secret_env` (an environment variable) or `token_secret`"
    )]
    NoSecret { cluster: String },
    #[error("[[proxmox]] `{cluster}`: set either `token_secret_env` or `token_secret`, not both")]
    TwoSecrets { cluster: String },
    #[error(
        "[[proxmox]] `{cluster}`: environment variable `{variable}` (token_secret_env) is not set or is empty"
    )]
    SecretEnvMissing { cluster: String, variable: String },
    #[error("[[proxmox]] `{cluster}`: the token secret is empty or contains whitespace")]
    BadSecret { cluster: String },
    #[error(
        "[[proxmox]] `{cluster}`: fingerprint {value:?} is not a SHA-256 fingerprint: {reason}"
    )]
    BadFingerprint {
        cluster: String,
        value: String,
        reason: String,
    },
    #[error(
        "[[proxmox]] `{cluster}`: {} are set; choose one way to trust the certificate",
        options.join(" and ")
    )]
    ConflictingTrust {
        cluster: String,
        options: Vec<&'static str>,
    },
    #[error("[[proxmox]] `{cluster}`: ca_file {}: {reason}", path.display())]
    BadCaFile {
        cluster: String,
        path: PathBuf,
        reason: String,
    },
    #[error("[[proxmox]] `{cluster}`: refresh_interval_secs must be at least 1")]
    BadRefreshInterval { cluster: String },
}

/// How the server's certificate is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsTrust {
    /// Only a certificate with exactly this SHA-256 fingerprint.
    PinnedFingerprint(CertFingerprint),
    /// Certificates chaining to the CA(s) in this PEM file.
    CaFile(PathBuf),
    /// The public web PKI (for a node with an ACME certificate).
    PublicRoots,
    /// Any certificate: for labs only.
    Insecure,
}

/// `USER@REALM!TOKENID` and its secret. `Debug` hides the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiToken {
    id: String,
    secret: String,
}

impl ApiToken {
    /// The token id (`warden@pve!ops`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The `Authorization` header value: `PVEAPIToken=ID=SECRET`.
    pub fn header_value(&self) -> String {
        format!("PVEAPIToken={}={}", self.id, self.secret)
    }
}

impl fmt::Debug for ApiToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiToken({}=<redacted>)", self.id)
    }
}

/// A validated cluster entry: what the client needs to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionSettings {
    pub cluster: String,
    /// `https://host:port/api2/json/` (always ending with `/`).
    pub api_base: Url,
    pub token: ApiToken,
    pub trust: TlsTrust,
    pub refresh_interval: Duration,
}

impl ProxmoxConfig {
    /// Validates the entry, reading `token_secret_env` from the process environment.
    pub fn resolve(&self) -> Result<ConnectionSettings, ConfigError> {
        self.resolve_with(|name| std::env::var(name).ok())
    }

    /// Validates the entry with `env` as the environment (pure, for tests).
    pub fn resolve_with(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<ConnectionSettings, ConfigError> {
        let cluster = self.name.clone();
        if cluster.is_empty() || cluster.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ConfigError::BadName { name: cluster });
        }
        let api_base = parse_url(&cluster, &self.url)?;
        check_token_id(&cluster, &self.token_id)?;
        let secret = match (&self.token_secret_env, &self.token_secret) {
            (Some(_), Some(_)) => return Err(ConfigError::TwoSecrets { cluster }),
            (None, None) => return Err(ConfigError::NoSecret { cluster }),
            (None, Some(secret)) => secret.clone(),
            (Some(variable), None) => match env(variable) {
                Some(value) if !value.trim().is_empty() => value.trim().to_string(),
                Some(_) | None => {
                    return Err(ConfigError::SecretEnvMissing {
                        cluster,
                        variable: variable.clone(),
                    });
                }
            },
        };
        if secret.is_empty() || secret.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ConfigError::BadSecret { cluster });
        }
        let trust = self.trust(&cluster)?;
        let refresh_interval = match self.refresh_interval_secs {
            None => DEFAULT_REFRESH_INTERVAL,
            Some(0) => return Err(ConfigError::BadRefreshInterval { cluster }),
            Some(secs) => Duration::from_secs(secs),
        };
        Ok(ConnectionSettings {
            cluster,
            api_base,
            token: ApiToken {
                id: self.token_id.clone(),
                secret,
            },
            trust,
            refresh_interval,
        })
    }

    fn trust(&self, cluster: &str) -> Result<TlsTrust, ConfigError> {
        let mut chosen = Vec::new();
        if self.fingerprint.is_some() {
            chosen.push("fingerprint");
        }
        if self.ca_file.is_some() {
            chosen.push("ca_file");
        }
        if self.insecure {
            chosen.push("insecure");
        }
        if chosen.len() > 1 {
            return Err(ConfigError::ConflictingTrust {
                cluster: cluster.to_string(),
                options: chosen,
            });
        }
        if let Some(value) = &self.fingerprint {
            let pinned = value
                .parse()
                .map_err(|reason| ConfigError::BadFingerprint {
                    cluster: cluster.to_string(),
                    value: value.clone(),
                    reason,
                })?;
            return Ok(TlsTrust::PinnedFingerprint(pinned));
        }
        if let Some(path) = &self.ca_file {
            return Ok(TlsTrust::CaFile(path.clone()));
        }
        Ok(if self.insecure {
            TlsTrust::Insecure
        } else {
            TlsTrust::PublicRoots
        })
    }
}

/// Validates several clusters at once: each entry, and that names are unique.
pub fn resolve_all(configs: &[ProxmoxConfig]) -> Result<Vec<ConnectionSettings>, ConfigError> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(configs.len());
    for config in configs {
        if !seen.insert(config.name.as_str()) {
            return Err(ConfigError::DuplicateName {
                cluster: config.name.clone(),
            });
        }
        out.push(config.resolve()?);
    }
    Ok(out)
}

fn parse_url(cluster: &str, text: &str) -> Result<Url, ConfigError> {
    let bad = |reason: &str| ConfigError::BadUrl {
        cluster: cluster.to_string(),
        url: text.to_string(),
        reason: reason.to_string(),
    };
    if !text.contains("://") {
        return Err(bad("it needs a scheme: `https://HOST:8006`"));
    }
    let mut url = Url::parse(text.trim()).map_err(|e| bad(&e.to_string()))?;
    if url.scheme() != "https" {
        return Err(bad("the Proxmox API is served over https only"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("it has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("it must not carry a query or fragment"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "credentials belong in token_id/token_secret, not the url",
        ));
    }
    // `https://pve1:8006`, `…/`, and `…/api2/json` all mean the same API root.
    let path = url.path().trim_end_matches('/').to_string();
    let root = path.strip_suffix("/api2/json").unwrap_or(&path).to_string();
    url.set_path(&format!("{root}/api2/json/"));
    Ok(url)
}

fn check_token_id(cluster: &str, token_id: &str) -> Result<(), ConfigError> {
    let bad = |reason: &str| ConfigError::BadTokenId {
        cluster: cluster.to_string(),
        token_id: token_id.to_string(),
        reason: reason.to_string(),
    };
    let Some((user, token)) = token_id.split_once('!') else {
        return Err(bad("no `!TOKENID`"));
    };
    let Some((name, realm)) = user.split_once('@') else {
        return Err(bad("no `@REALM` in the user"));
    };
    if name.is_empty() || realm.is_empty() || token.is_empty() {
        return Err(bad("user, realm and token id must all be non-empty"));
    }
    // PVE's token ids: a letter, then letters, digits, `-`, `_`, `.`.
    let token_ok = token
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !token_ok {
        return Err(bad(
            "the token id must start with a letter and hold only letters, digits, `-`, `_`, `.`",
        ));
    }
    if token_id
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '=' | ':'))
    {
        return Err(bad("it contains whitespace, `=` or `:`"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FP: &str = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89";

    fn base() -> ProxmoxConfig {
        ProxmoxConfig {
            name: "homelab".into(),
            url: "https://pve1.lan:8006".into(),
            token_id: "warden@pve!ops".into(),
            token_secret_env: Some("WARDEN_PVE_TOKEN".into()),
            token_secret: None,
            fingerprint: Some(FP.into()),
            ca_file: None,
            insecure: false,
            refresh_interval_secs: None,
        }
    }

    fn env(name: &str) -> Option<String> {
        (name == "WARDEN_PVE_TOKEN").then(|| "0f1e2d3c-aaaa-bbbb-cccc-1234567890ab".to_string())
    }

    #[test]
    fn the_documented_example_parses_from_toml() {
        let text = r#"
            name = "homelab"
            url = "https://pve1.lan:8006"
            token_id = "warden@pve!ops"
            token_secret_env = "WARDEN_PVE_TOKEN"
            fingerprint = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"
        "#;
        let config: ProxmoxConfig = serde_json::from_value(toml_to_json(text)).unwrap();
        assert_eq!(config, base());
        let settings = config.resolve_with(env).unwrap();
        assert_eq!(
            settings.api_base.as_str(),
            "https://pve1.lan:8006/api2/json/"
        );
        assert_eq!(
            settings.token.header_value(),
            "PVEAPIToken=warden@pve!ops=0f1e2d3c-aaaa-bbbb-cccc-1234567890ab"
        );
        assert_eq!(
            settings.trust,
            TlsTrust::PinnedFingerprint(FP.parse().unwrap())
        );
        assert_eq!(settings.refresh_interval, DEFAULT_REFRESH_INTERVAL);
    }

    /// The config crate parses TOML in the binary; here a tiny subset
    /// (`key = "string"` lines) is enough to prove the field names.
    fn toml_to_json(text: &str) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let (key, value) = line.split_once('=').unwrap();
            let value = value.trim().trim_matches('"');
            map.insert(key.trim().to_string(), value.into());
        }
        serde_json::Value::Object(map)
    }

    #[test]
    fn secrets_never_show() {
        let mut config = base();
        config.token_secret_env = None;
        config.token_secret = Some("hunter2-secret".into());
        assert!(!format!("{config:?}").contains("hunter2"));
        let json = serde_json::to_string(&config).unwrap();
        assert!(!json.contains("hunter2"), "{json}");
        let settings = config.resolve_with(env).unwrap();
        assert!(!format!("{settings:?}").contains("hunter2"));
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let err = serde_json::from_value::<ProxmoxConfig>(serde_json::json!({
            "name": "x", "url": "https://a", "token_id": "a@b!c", "fingerprnt": "AB"
        }))
        .unwrap_err();
        assert!(err.to_string().contains("fingerprnt"), "{err}");
    }

    #[test]
    fn bad_entries_name_the_problem() {
        type Edit = fn(&mut ProxmoxConfig);
        let cases: Vec<(Edit, &str)> = vec![
            (
                |c| c.name = "home lab".into(),
                "`name` is empty or contains whitespace",
            ),
            (|c| c.name = String::new(), "`name` is empty"),
            (|c| c.url = "pve1.lan:8006".into(), "needs a scheme"),
            (|c| c.url = "http://pve1.lan:8006".into(), "https only"),
            (|c| c.url = "https://:8006".into(), "url \"https://:8006\""),
            (|c| c.url = "https://pve1/?x=1".into(), "query"),
            (|c| c.url = "https://root:pw@pve1".into(), "credentials"),
            (|c| c.token_id = "warden@pve".into(), "no `!TOKENID`"),
            (|c| c.token_id = "warden!ops".into(), "no `@REALM`"),
            (|c| c.token_id = "@pve!ops".into(), "must all be non-empty"),
            (
                |c| c.token_id = "warden@pve!1ops".into(),
                "must start with a letter",
            ),
            (|c| c.token_secret_env = None, "no token secret"),
            (|c| c.token_secret = Some("x".into()), "not both"),
            (
                |c| c.token_secret_env = Some("NOPE".into()),
                "`NOPE` (token_secret_env) is not set",
            ),
            (
                |c| {
                    c.token_secret_env = None;
                    c.token_secret = Some("a b".into());
                },
                "secret is empty or contains whitespace",
            ),
            (|c| c.fingerprint = Some("AB:CD".into()), "got 4 hex digits"),
            (
                |c| c.fingerprint = Some("ab".repeat(20)),
                "(a SHA-1 fingerprint?)",
            ),
            (|c| c.fingerprint = Some("zz".repeat(32)), "not hex"),
            (|c| c.fingerprint = Some("A:BCD".into()), "two hex digits"),
            (|c| c.insecure = true, "fingerprint and insecure are set"),
            (
                |c| c.ca_file = Some("/etc/pve/pve-root-ca.pem".into()),
                "fingerprint and ca_file are set",
            ),
            (|c| c.refresh_interval_secs = Some(0), "at least 1"),
        ];
        for (edit, expected) in cases {
            let mut config = base();
            edit(&mut config);
            let err = config.resolve_with(env).unwrap_err().to_string();
            assert!(err.contains(expected), "{config:?}: {err}");
            assert!(err.contains("[[proxmox]]"), "{err}");
        }
    }

    #[test]
    fn url_forms_mean_the_same_root() {
        for url in [
            "https://pve1.lan:8006",
            "https://pve1.lan:8006/",
            "https://pve1.lan:8006/api2/json",
            "https://pve1.lan:8006/api2/json/",
        ] {
            let mut config = base();
            config.url = url.into();
            let settings = config.resolve_with(env).unwrap();
            assert_eq!(
                settings.api_base.as_str(),
                "https://pve1.lan:8006/api2/json/",
                "{url}"
            );
        }
    }

    #[test]
    fn trust_choices() {
        let mut config = base();
        config.fingerprint = None;
        assert_eq!(
            config.resolve_with(env).unwrap().trust,
            TlsTrust::PublicRoots
        );
        config.insecure = true;
        assert_eq!(config.resolve_with(env).unwrap().trust, TlsTrust::Insecure);
        config.insecure = false;
        config.ca_file = Some("/x/ca.pem".into());
        assert_eq!(
            config.resolve_with(env).unwrap().trust,
            TlsTrust::CaFile("/x/ca.pem".into())
        );
    }

    #[test]
    fn duplicate_cluster_names_are_refused() {
        let mut a = base();
        a.token_secret_env = None;
        a.token_secret = Some("s".into());
        let err = resolve_all(&[a.clone(), a]).unwrap_err();
        assert_eq!(
            err,
            ConfigError::DuplicateName {
                cluster: "homelab".into()
            }
        );
    }
}
