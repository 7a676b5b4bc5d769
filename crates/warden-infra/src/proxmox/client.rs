//! The HTTPS client for one cluster: token auth, `{"data": …}` envelopes,
//! form-encoded writes, and PVE's error answers turned into specific
//! [`ProxmoxError`]s.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderValue};
use reqwest::{Method, Url};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::config::{ConfigError, ConnectionSettings};
use super::error::ProxmoxError;
use super::failures::classify_failure;
use super::tls;

/// How long one request may take by default (connect included).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// An API path below `/api2/json`, built from segments so that names from
/// the inventory are escaped: `ApiPath::new(["nodes", "pve1", "status"])`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiPath {
    segments: Vec<String>,
}

impl ApiPath {
    pub fn new<I, S>(segments: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ApiPath {
            segments: segments.into_iter().map(Into::into).collect(),
        }
    }

    /// This path with more segments.
    pub fn join<I, S>(&self, more: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut segments = self.segments.clone();
        segments.extend(more.into_iter().map(Into::into));
        ApiPath { segments }
    }

    /// The segments, unescaped.
    pub fn segments(&self) -> &[String] {
        &self.segments
    }

    /// The node the path addresses (`/nodes/{node}/…`).
    pub fn node(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [first, node, ..] if first == "nodes" => Some(node),
            _ => None,
        }
    }

    /// What the path acts on, for messages: `vm:pve1:100`, `lxc:pve1:101`, `node:pve1`.
    pub fn target(&self) -> String {
        match self.segments.as_slice() {
            [n, node, kind, vmid, ..] if n == "nodes" && kind == "qemu" => {
                format!("vm:{node}:{vmid}")
            }
            [n, node, kind, vmid, ..] if n == "nodes" && kind == "lxc" => {
                format!("lxc:{node}:{vmid}")
            }
            [n, node, ..] if n == "nodes" => format!("node:{node}"),
            _ => self.to_string(),
        }
    }
}

impl std::fmt::Display for ApiPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for segment in &self.segments {
            write!(f, "/{segment}")?;
        }
        Ok(())
    }
}

/// A client for one cluster. Cheap to clone (shares the connection pool).
#[derive(Clone)]
pub struct PveClient {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    api_base: Url,
    cluster: String,
    token_id: String,
    auth: HeaderValue,
    timeout: Duration,
}

impl std::fmt::Debug for PveClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PveClient")
            .field("cluster", &self.inner.cluster)
            .field("api_base", &self.inner.api_base.as_str())
            .field("token_id", &self.inner.token_id)
            .finish()
    }
}

impl PveClient {
    /// A client for `settings` (no request is made).
    pub fn new(settings: &ConnectionSettings) -> Result<Self, ProxmoxError> {
        Self::with_timeout(settings, DEFAULT_REQUEST_TIMEOUT)
    }

    /// A client whose requests give up after `timeout`.
    pub fn with_timeout(
        settings: &ConnectionSettings,
        timeout: Duration,
    ) -> Result<Self, ProxmoxError> {
        let tls = tls::client_config(&settings.cluster, &settings.trust)?;
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .timeout(timeout)
            .connect_timeout(CONNECT_TIMEOUT.min(timeout))
            .build()
            .map_err(|e| {
                ProxmoxError::Config(ConfigError::BadUrl {
                    cluster: settings.cluster.clone(),
                    url: settings.api_base.to_string(),
                    reason: format!("HTTP client setup failed: {e}"),
                })
            })?;
        let mut auth = HeaderValue::from_str(&settings.token.header_value()).map_err(|_| {
            ProxmoxError::Config(ConfigError::BadSecret {
                cluster: settings.cluster.clone(),
            })
        })?;
        auth.set_sensitive(true);
        Ok(PveClient {
            inner: Arc::new(Inner {
                http,
                api_base: settings.api_base.clone(),
                cluster: settings.cluster.clone(),
                token_id: settings.token.id().to_string(),
                auth,
                timeout,
            }),
        })
    }

    pub fn cluster(&self) -> &str {
        &self.inner.cluster
    }

    pub fn token_id(&self) -> &str {
        &self.inner.token_id
    }

    /// `GET path?query`: the answer's `data`.
    pub async fn get(
        &self,
        path: &ApiPath,
        query: &[(&str, String)],
    ) -> Result<Value, ProxmoxError> {
        self.request(Method::GET, path, query, &[]).await
    }

    /// `GET` deserialised into `T`.
    pub async fn get_as<T: DeserializeOwned>(
        &self,
        path: &ApiPath,
        query: &[(&str, String)],
    ) -> Result<T, ProxmoxError> {
        let data = self.get(path, query).await?;
        serde_json::from_value(data).map_err(|e| self.decode_error(path, e.to_string()))
    }

    /// `POST` with a form body (repeated names for arrays): the answer's `data`.
    pub async fn post(
        &self,
        path: &ApiPath,
        form: &[(&str, String)],
    ) -> Result<Value, ProxmoxError> {
        self.request(Method::POST, path, &[], form).await
    }

    /// `PUT` with a form body.
    pub async fn put(
        &self,
        path: &ApiPath,
        form: &[(&str, String)],
    ) -> Result<Value, ProxmoxError> {
        self.request(Method::PUT, path, &[], form).await
    }

    /// `DELETE path?query`.
    pub async fn delete(
        &self,
        path: &ApiPath,
        query: &[(&str, String)],
    ) -> Result<Value, ProxmoxError> {
        self.request(Method::DELETE, path, query, &[]).await
    }

    fn url(&self, path: &ApiPath) -> Url {
        let mut url = self.inner.api_base.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty();
            segments.extend(path.segments.iter());
        }
        url
    }

    pub(crate) fn decode_error(&self, path: &ApiPath, reason: String) -> ProxmoxError {
        ProxmoxError::Decode {
            cluster: self.inner.cluster.clone(),
            path: path.to_string(),
            reason,
        }
    }

    async fn request(
        &self,
        method: Method,
        path: &ApiPath,
        query: &[(&str, String)],
        form: &[(&str, String)],
    ) -> Result<Value, ProxmoxError> {
        let mut request = self
            .inner
            .http
            .request(method.clone(), self.url(path))
            .header(AUTHORIZATION, self.inner.auth.clone());
        if !query.is_empty() {
            request = request.query(query);
        }
        if !form.is_empty() {
            request = request.form(form);
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.transport_error(&method, path, &e))?;
        let status = response.status();
        let reason = status.canonical_reason().unwrap_or("").to_string();
        let body = response
            .bytes()
            .await
            .map_err(|e| self.transport_error(&method, path, &e))?;
        let json: Option<Value> = serde_json::from_slice(&body).ok();
        if !status.is_success() {
            let message = json
                .as_ref()
                .and_then(|v| v.get("message"))
                .and_then(Value::as_str)
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .or_else(|| {
                    let text = String::from_utf8_lossy(&body).trim().to_string();
                    (!text.is_empty() && text.len() < 500).then_some(text)
                })
                .unwrap_or(reason);
            return Err(classify_failure(
                &self.inner.cluster,
                &self.inner.token_id,
                status,
                method.as_str(),
                path,
                &message,
            ));
        }
        let Some(mut json) = json else {
            return Err(self.decode_error(path, "the body is not JSON".into()));
        };
        match json.get_mut("data") {
            Some(data) => Ok(data.take()),
            None => Err(self.decode_error(path, "no `data` in the answer".into())),
        }
    }

    fn transport_error(
        &self,
        method: &Method,
        path: &ApiPath,
        err: &reqwest::Error,
    ) -> ProxmoxError {
        let cluster = self.inner.cluster.clone();
        let host = self
            .inner
            .api_base
            .host_str()
            .map(|h| match self.inner.api_base.port() {
                Some(port) => format!("{h}:{port}"),
                None => h.to_string(),
            })
            .unwrap_or_default();
        if let Some(mismatch) = tls::find_fingerprint_mismatch(err) {
            return ProxmoxError::CertificateMismatch {
                cluster,
                host,
                expected: mismatch.expected.to_string(),
                presented: mismatch.presented.to_string(),
            };
        }
        if let Some(reason) = tls::find_tls_error(err) {
            return ProxmoxError::Tls {
                cluster,
                host,
                reason,
            };
        }
        if err.is_timeout() {
            return ProxmoxError::Timeout {
                cluster,
                method: method.to_string(),
                path: path.to_string(),
                timeout: self.inner.timeout,
            };
        }
        // A write whose connection broke after it was sent may have happened.
        if !err.is_connect() && method != Method::GET {
            return ProxmoxError::OutcomeUnknown {
                what: format!("{method} {path}"),
                reason: error_chain(err),
            };
        }
        ProxmoxError::Unreachable {
            cluster,
            url: self.inner.api_base.to_string(),
            reason: error_chain(err),
        }
    }
}

/// `err: source: source…` on one line.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut current = err.source();
    while let Some(e) = current {
        let part = e.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        current = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_display_and_escape() {
        let path = ApiPath::new(["nodes", "pve1", "tasks"])
            .join(["UPID:pve1:0001:x:y:qmstart:100:warden@pve!ops:", "status"]);
        assert_eq!(
            path.to_string(),
            "/nodes/pve1/tasks/UPID:pve1:0001:x:y:qmstart:100:warden@pve!ops:/status"
        );
        assert_eq!(path.node(), Some("pve1"));
        let settings = crate::proxmox::config::ProxmoxConfig {
            name: "lab".into(),
            url: "https://127.0.0.1:8006".into(),
            token_id: "warden@pve!ops".into(),
            token_secret_env: None,
            token_secret: Some("s".into()),
            fingerprint: None,
            ca_file: None,
            insecure: true,
            refresh_interval_secs: None,
        }
        .resolve()
        .unwrap();
        let client = PveClient::new(&settings).unwrap();
        let url = client.url(&ApiPath::new(["nodes", "a b/c", "status"]));
        assert_eq!(
            url.as_str(),
            "https://127.0.0.1:8006/api2/json/nodes/a%20b%2Fc/status"
        );
        let url = client.url(&path);
        assert!(
            url.as_str()
                .ends_with("/tasks/UPID:pve1:0001:x:y:qmstart:100:warden@pve!ops:/status"),
            "{url}"
        );
    }
}
