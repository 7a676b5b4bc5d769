//! An authenticated HTTP client for one server: bearer token, TLS trust
//! (system roots, a CA file, or a pinned certificate fingerprint), the API's
//! JSON errors turned into clear messages, and the SSE event stream.

use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use futures_util::StreamExt;
use serde_json::Value;
use warden_agent::ServerTrust;
use warden_agent::server_url::ServerUrl;
use warden_llm::sse::{SseDecoder, SseEvent};

/// Flags that point a command at a running `warden serve`.
#[derive(Args, Clone, Debug, Default)]
pub struct RemoteArgs {
    /// Talk to this `warden serve` (https://host:7878) instead of running locally.
    #[arg(long, value_name = "URL", global = true)]
    pub server: Option<String>,
    /// API token for --server (default: $WARDEN_TOKEN).
    #[arg(long, value_name = "TOKEN", requires = "server", global = true)]
    pub token: Option<String>,
    /// Trust exactly the server certificate with this SHA-256 (printed by
    /// `warden serve --tls-self-signed`).
    #[arg(long, value_name = "SHA256", requires = "server", global = true)]
    pub server_fingerprint: Option<String>,
    /// Trust the CAs in this PEM file for --server.
    #[arg(long, value_name = "FILE", requires = "server", global = true)]
    pub server_ca_file: Option<std::path::PathBuf>,
}

impl RemoteArgs {
    /// A client when `--server` was given.
    pub fn client(&self) -> Result<Option<RemoteClient>> {
        let Some(server) = &self.server else {
            return Ok(None);
        };
        let token = self
            .token
            .clone()
            .or_else(|| std::env::var("WARDEN_TOKEN").ok().filter(|t| !t.is_empty()))
            .context(
                "--server needs an API token: --token or $WARDEN_TOKEN (create one with `warden token create`)",
            )?;
        let trust = match (&self.server_fingerprint, &self.server_ca_file) {
            (Some(sha256), None) => ServerTrust::Fingerprint {
                sha256: sha256.clone(),
            },
            (None, Some(path)) => ServerTrust::CaFile { path: path.clone() },
            (None, None) => ServerTrust::SystemRoots,
            (Some(_), Some(_)) => {
                bail!("give --server-fingerprint or --server-ca-file, not both")
            }
        };
        RemoteClient::new(server, &token, &trust).map(Some)
    }
}

#[derive(Clone)]
pub struct RemoteClient {
    server: ServerUrl,
    http: reqwest::Client,
    token: String,
    /// What the TLS verifier refused in the last handshake.
    presented: warden_agent::tls::PresentedCertificate,
}

impl RemoteClient {
    pub fn new(server: &str, token: &str, trust: &ServerTrust) -> Result<Self> {
        let server = ServerUrl::parse(server)?;
        let (tls, presented) = warden_agent::tls::client_config(trust, &server)?;
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured((*tls).clone())
            .connect_timeout(Duration::from_secs(10))
            .user_agent(concat!("warden-cli/", env!("CARGO_PKG_VERSION")))
            .build()
            .context("building the HTTP client")?;
        Ok(RemoteClient {
            server,
            http,
            token: token.to_string(),
            presented,
        })
    }

    /// Why the server could not be reached: a certificate the pin or the
    /// roots refused names the fingerprint it presented and the flag.
    fn unreachable(&self, error: reqwest::Error) -> anyhow::Error {
        let server = self.server.as_str();
        if let Some(mismatch) = self.presented.mismatch() {
            return anyhow!(
                "cannot reach {server}: its certificate does not match --server-fingerprint {}: it presented SHA256 {}. If the server's certificate was renewed, pin the new one: --server-fingerprint {}",
                mismatch.expected,
                mismatch.presented,
                mismatch.presented
            );
        }
        if let Some(untrusted) = self.presented.untrusted() {
            return anyhow!(
                "cannot reach {server}: its certificate is not trusted ({}): it presented SHA256 {}. If that is your Warden server's certificate (`warden serve` prints its fingerprint at start), pin it with --server-fingerprint {}, or give its CA with --server-ca-file",
                untrusted.reason,
                untrusted.presented,
                untrusted.presented
            );
        }
        anyhow::Error::new(error).context(format!("cannot reach {server}"))
    }

    /// The server's base URL.
    pub fn server(&self) -> &str {
        self.server.as_str()
    }

    /// The URL of `path`, whose query (after `?`) stays a query.
    fn url(&self, path: &str) -> String {
        let (path, query) = match path.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (path, None),
        };
        let mut url = self.server.endpoint(path);
        url.set_query(query);
        url.to_string()
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Value> {
        let response = request
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|error| self.unreachable(error))?;
        json_or_error(response).await
    }

    pub async fn get(&self, path: &str) -> Result<Value> {
        self.send(self.http.get(self.url(path))).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Result<Value> {
        self.send(self.http.post(self.url(path)).json(body)).await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Result<Value> {
        self.send(self.http.patch(self.url(path)).json(body)).await
    }

    /// `get`, parsed as `T`.
    pub async fn get_as<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T> {
        let value = self.get(path).await?;
        serde_json::from_value(value).with_context(|| format!("the server's answer to {path}"))
    }

    /// `post`, parsed as `T`.
    pub async fn post_as<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &Value,
    ) -> Result<T> {
        let value = self.post(path, body).await?;
        serde_json::from_value(value).with_context(|| format!("the server's answer to {path}"))
    }

    /// The session's event stream from after `last_event_id`.
    pub async fn events(
        &self,
        session_id: &str,
        last_event_id: Option<u64>,
    ) -> Result<EventStream> {
        let mut request = self
            .http
            .get(self.url(&format!("/api/sessions/{session_id}/events")))
            .bearer_auth(&self.token)
            .header("Accept", "text/event-stream");
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request
            .send()
            .await
            .map_err(|error| self.unreachable(error))?;
        if !response.status().is_success() {
            return Err(api_error(response).await);
        }
        Ok(EventStream {
            body: Box::pin(
                response
                    .bytes_stream()
                    .map(|chunk| chunk.map(|b| b.to_vec())),
            ),
            decoder: SseDecoder::new(),
            queued: std::collections::VecDeque::new(),
        })
    }
}

/// Response body chunks (copied out, so the stream's type needs no `bytes`).
type Body = std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<Vec<u8>>> + Send>>;

/// SSE events as they arrive (comments and keep-alives skipped).
pub struct EventStream {
    body: Body,
    decoder: SseDecoder,
    queued: std::collections::VecDeque<SseEvent>,
}

impl EventStream {
    /// The next event, `None` when the server closed the stream.
    pub async fn next(&mut self) -> Result<Option<SseEvent>> {
        loop {
            if let Some(event) = self.queued.pop_front() {
                return Ok(Some(event));
            }
            match self.body.next().await {
                Some(Ok(chunk)) => self.queued.extend(self.decoder.feed(&chunk)),
                Some(Err(error)) => return Err(anyhow!("the event stream broke: {error}")),
                None => {
                    self.queued.extend(self.decoder.finish());
                    if self.queued.is_empty() {
                        return Ok(None);
                    }
                }
            }
        }
    }
}

/// The body as JSON; an empty body (204, or the 202 of a cancel) is `null`.
async fn json_or_error(response: reqwest::Response) -> Result<Value> {
    if !response.status().is_success() {
        return Err(api_error(response).await);
    }
    let body = response
        .bytes()
        .await
        .context("the server's answer broke off")?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&body).context("the server sent invalid JSON")
}

/// The spec's `{"error": {"code", "message"}}` as a readable error.
async fn api_error(response: reqwest::Response) -> anyhow::Error {
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let error = &body["error"];
    match (error["code"].as_str(), error["message"].as_str()) {
        (Some(code), Some(message)) => anyhow!("the server refused ({status} {code}): {message}"),
        _ => anyhow!("the server answered {status}"),
    }
}
