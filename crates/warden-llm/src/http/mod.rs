//! The transport: JSON over HTTP (async reqwest on rustls/ring) with
//! streamed response bodies, retries, an idle timeout, an overall deadline,
//! progress notices and cancellation. See the crate docs for the rules.

mod body;
mod call;
mod error_body;
mod open;
mod retry;
mod tls;

use std::time::Duration;

use crate::config::ProviderConfig;
use crate::provider::ProviderError;
use crate::secret::Secret;
pub use body::ByteStream;
pub use call::Call;
pub use error_body::{error_message, message_from_json, truncate};
pub use retry::{
    RetryWait, backoff, is_retryable_status, parse_retry_after, wait_before_retry, whole_seconds,
};

/// How one provider's calls behave; see [`ProviderConfig`] for each field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportSettings {
    pub connect_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_retries: u32,
    pub request_timeout: Duration,
    pub max_retry_after: Duration,
    pub max_reply_bytes: usize,
}

impl From<&ProviderConfig> for TransportSettings {
    fn from(config: &ProviderConfig) -> Self {
        TransportSettings {
            connect_timeout: config.connect_timeout,
            idle_timeout: config.idle_timeout,
            max_retries: config.max_retries,
            request_timeout: config.request_timeout,
            max_retry_after: config.max_retry_after,
            max_reply_bytes: config.max_reply_bytes,
        }
    }
}

/// An HTTP client for one provider. Cheap to clone (the connection pool is
/// shared).
#[derive(Clone)]
pub struct HttpClient {
    client: reqwest::Client,
    /// The configured kind's name, for every message: "ollama", "openai", ...
    provider: &'static str,
    settings: TransportSettings,
    /// Removed from any text that reaches an error, in case a server echoes it.
    secret: Option<Secret>,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("provider", &self.provider)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// Builds the client; no network traffic happens here.
    pub fn new(
        provider: &'static str,
        settings: TransportSettings,
        secret: Option<Secret>,
    ) -> Result<Self, ProviderError> {
        let tls = tls::client_config()
            .map_err(|e| ProviderError::Config(format!("{provider}: TLS setup failed: {e}")))?;
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .connect_timeout(settings.connect_timeout)
            // An API endpoint that redirects is misconfigured; say so
            // instead of replaying a POST elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                ProviderError::Config(format!("{provider}: cannot build an HTTP client: {e}"))
            })?;
        Ok(HttpClient {
            client,
            provider,
            settings,
            secret,
        })
    }

    pub fn provider(&self) -> &'static str {
        self.provider
    }

    pub fn settings(&self) -> TransportSettings {
        self.settings
    }

    pub(crate) fn reqwest(&self) -> &reqwest::Client {
        &self.client
    }

    pub fn redact(&self, text: &str) -> String {
        match &self.secret {
            Some(secret) if !secret.is_empty() => text.replace(secret.expose(), "***"),
            _ => text.to_string(),
        }
    }

    pub fn malformed(&self, message: impl AsRef<str>) -> ProviderError {
        ProviderError::Malformed {
            provider: self.provider.to_string(),
            message: self.redact(&truncate(message.as_ref(), 300)),
        }
    }

    pub fn stream_error(&self, message: impl AsRef<str>) -> ProviderError {
        ProviderError::Stream {
            provider: self.provider.to_string(),
            message: self.redact(&truncate(message.as_ref(), 500)),
        }
    }

    pub fn transport(&self, message: impl AsRef<str>) -> ProviderError {
        ProviderError::Transport {
            provider: self.provider.to_string(),
            message: self.redact(message.as_ref()),
        }
    }

    pub fn truncated(&self, message: impl AsRef<str>) -> ProviderError {
        ProviderError::Truncated {
            provider: self.provider.to_string(),
            message: self.redact(message.as_ref()),
        }
    }

    pub fn reply_too_large(&self, limit_bytes: usize) -> ProviderError {
        ProviderError::ReplyTooLarge {
            provider: self.provider.to_string(),
            limit_bytes,
        }
    }

    fn idle(&self) -> ProviderError {
        ProviderError::IdleTimeout {
            provider: self.provider.to_string(),
            seconds: whole_seconds(self.settings.idle_timeout),
        }
    }

    fn deadline(&self) -> ProviderError {
        ProviderError::Deadline {
            provider: self.provider.to_string(),
            seconds: whole_seconds(self.settings.request_timeout),
        }
    }

    fn rate_limited(&self, retry_after_secs: u64) -> ProviderError {
        ProviderError::RateLimited {
            provider: self.provider.to_string(),
            retry_after_secs,
        }
    }
}

/// A reqwest error with its causes ("error sending request: client error
/// (Connect): tcp connect error: Connection refused (os error 111)"),
/// without the URL (the caller names what it was talking to).
fn describe(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Whether a failure to get any response is worth another try: connection
/// refused or reset, connect timeout. Certificate problems are not.
fn is_retryable_send_error(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if is_tls_error(cause) {
            return false;
        }
        source = cause.source();
    }
    error.is_connect() || error.is_timeout() || error.is_request()
}

/// A rustls error, possibly inside (nested) `io::Error`s, whose `source`
/// skips what they wrap.
fn is_tls_error(error: &(dyn std::error::Error + 'static)) -> bool {
    if error.is::<rustls::Error>() {
        return true;
    }
    match error
        .downcast_ref::<std::io::Error>()
        .and_then(std::io::Error::get_ref)
    {
        Some(inner) => is_tls_error(inner),
        None => false,
    }
}
