//! Which provider to talk to and how: parsed from the CLI/config file by
//! the binary, turned into a [`Provider`](crate::Provider) by
//! [`connect`](crate::connect).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::provider::ProviderError;
use crate::secret::Secret;

/// Which provider is configured. Its [`name`](ProviderKind::name) is what
/// users, metrics and error messages see; its [`WireFormat`] is how Warden
/// talks to it. Every OpenAI-compatible server (vLLM, llama.cpp, LM Studio,
/// OpenRouter, DeepSeek, Groq, ...) is `OpenAi` with its own base URL;
/// Ollama has its own kind so that messages say "ollama", not "openai".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    OpenAi,
    Ollama,
    Anthropic,
    Gemini,
}

/// The three wire formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireFormat {
    /// Chat Completions (`/chat/completions`, `/models`).
    OpenAiCompatible,
    Anthropic,
    Gemini,
}

/// The local Ollama server's OpenAI-compatible endpoint.
pub const OLLAMA_BASE_URL: &str = "http://localhost:11434/v1";

impl ProviderKind {
    /// The name used in `identity()`, metrics and error messages.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Ollama => "ollama",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Gemini => "gemini",
        }
    }

    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Ollama => OLLAMA_BASE_URL,
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    pub fn wire_format(self) -> WireFormat {
        match self {
            ProviderKind::OpenAi | ProviderKind::Ollama => WireFormat::OpenAiCompatible,
            ProviderKind::Anthropic => WireFormat::Anthropic,
            ProviderKind::Gemini => WireFormat::Gemini,
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ProviderKind {
    type Err = ProviderError;

    /// `openai`, `ollama`, `anthropic`, `gemini` (any case).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(ProviderKind::OpenAi),
            "ollama" => Ok(ProviderKind::Ollama),
            "anthropic" => Ok(ProviderKind::Anthropic),
            "gemini" => Ok(ProviderKind::Gemini),
            other => Err(ProviderError::Config(format!(
                "unknown provider {other:?}: expected openai, ollama, anthropic or gemini"
            ))),
        }
    }
}

/// How to reach one model. `Debug` never shows the key.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// `None`: the kind's public endpoint. Trailing slashes are fine.
    pub base_url: Option<String>,
    pub api_key: Option<Secret>,
    /// `None`: the first usable model the server lists (see [`crate::models`]).
    pub model: Option<String>,
    pub connect_timeout: Duration,
    /// Longest silence tolerated while waiting for a response or the next
    /// bytes of a stream.
    pub idle_timeout: Duration,
    /// Retries after the first try, for rate limits, overload and
    /// connection failures before any response byte.
    pub max_retries: u32,
    /// Upper bound on the reply's tokens. Anthropic requires one and uses
    /// [`DEFAULT_ANTHROPIC_MAX_TOKENS`] when unset; the others send it only
    /// when set (OpenAI-compatible: `max_tokens`, api.openai.com:
    /// `max_completion_tokens`; Gemini: `maxOutputTokens`).
    pub max_output_tokens: Option<u32>,
    /// The longest one model call may take, retries and waits included,
    /// however steadily the server trickles bytes or keep-alives
    /// (`[provider] request_timeout_secs`).
    pub request_timeout: Duration,
    /// The longest `Retry-After` Warden waits out on its own; a longer one
    /// is reported as [`ProviderError::RateLimited`] at once
    /// (`[provider] max_retry_after_secs`).
    pub max_retry_after: Duration,
    /// The most text plus tool-call arguments one reply may hold
    /// (`[provider] max_reply_bytes`); more is
    /// [`ProviderError::ReplyTooLarge`].
    pub max_reply_bytes: usize,
}

pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_MAX_RETRIES: u32 = 3;
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 4096;
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
pub const DEFAULT_MAX_REPLY_BYTES: usize = 256 * 1024;

impl ProviderConfig {
    pub fn new(kind: ProviderKind) -> Self {
        ProviderConfig {
            kind,
            base_url: None,
            api_key: None,
            model: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            max_output_tokens: None,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            max_retry_after: DEFAULT_MAX_RETRY_AFTER,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
        }
    }

    /// From a provider name as a user types it (`ollama` comes with the
    /// local Ollama base URL as its default).
    pub fn from_name(name: &str) -> Result<Self, ProviderError> {
        Ok(ProviderConfig::new(name.parse()?))
    }

    /// The base URL in use, without trailing slashes.
    pub fn base_url(&self) -> String {
        let base = self
            .base_url
            .as_deref()
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .unwrap_or(self.kind.default_base_url());
        base.trim_end_matches('/').to_string()
    }

    /// Checks what can be checked without a network call. Every message
    /// names the provider kind.
    pub fn validate(&self) -> Result<(), ProviderError> {
        let kind = self.kind;
        let invalid = |problem: String| Err(ProviderError::Config(format!("{kind}: {problem}")));
        let base = self.base_url();
        let scheme_ok = base.starts_with("http://") || base.starts_with("https://");
        if !scheme_ok || base.len() <= "https://".len() {
            return invalid(format!(
                "base URL {base:?} must start with http:// or https://"
            ));
        }
        if base.contains('?') || base.contains('#') {
            return invalid(format!(
                "base URL {base:?} must not contain a query or fragment"
            ));
        }
        match &self.api_key {
            Some(key) if key.is_empty() => return invalid("the API key is empty".into()),
            Some(key)
                if key
                    .expose()
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control()) =>
            {
                return invalid("the API key contains whitespace or control characters".into());
            }
            Some(_) => {}
            None if self.needs_key() => {
                return Err(ProviderError::Config(format!(
                    "{kind} needs an API key ({base})"
                )));
            }
            None => {} // local servers need none
        }
        if self.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return invalid("the model name is empty".into());
        }
        let durations = [
            ("connect_timeout", self.connect_timeout),
            ("idle_timeout", self.idle_timeout),
            ("request_timeout", self.request_timeout),
            ("max_retry_after", self.max_retry_after),
        ];
        for (name, value) in durations {
            if value.is_zero() {
                return invalid(format!("{name} must be at least 1 s (it is 0)"));
            }
        }
        if self.max_reply_bytes == 0 {
            return invalid("max_reply_bytes must be positive (it is 0)".into());
        }
        if self.max_output_tokens == Some(0) {
            return invalid("max_output_tokens must be positive (it is 0)".into());
        }
        Ok(())
    }

    /// Hosted APIs need a key; local OpenAI-compatible servers do not.
    fn needs_key(&self) -> bool {
        match self.kind {
            ProviderKind::Anthropic | ProviderKind::Gemini => true,
            ProviderKind::OpenAi => self.base_url() == ProviderKind::OpenAi.default_base_url(),
            ProviderKind::Ollama => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_case_insensitively() {
        assert_eq!(
            "OpenAI".parse::<ProviderKind>().ok(),
            Some(ProviderKind::OpenAi)
        );
        assert_eq!(
            " anthropic ".parse::<ProviderKind>().ok(),
            Some(ProviderKind::Anthropic)
        );
        assert_eq!(
            "GEMINI".parse::<ProviderKind>().ok(),
            Some(ProviderKind::Gemini)
        );
        assert_eq!(
            "ollama".parse::<ProviderKind>().ok(),
            Some(ProviderKind::Ollama)
        );
        let error = "mistral"
            .parse::<ProviderKind>()
            .err()
            .map(|e| e.to_string());
        assert!(error.is_some_and(|e| e.contains("mistral") && e.contains("anthropic")));
    }

    #[test]
    fn ollama_gets_its_base_url_and_needs_no_key() {
        let config = ProviderConfig::from_name("Ollama").unwrap();
        assert_eq!(config.kind, ProviderKind::Ollama);
        assert_eq!(config.kind.name(), "ollama");
        assert_eq!(config.kind.wire_format(), WireFormat::OpenAiCompatible);
        assert_eq!(config.base_url(), OLLAMA_BASE_URL);
        assert!(config.validate().is_ok());
    }

    #[test]
    fn base_urls_default_and_lose_trailing_slashes() {
        let mut config = ProviderConfig::new(ProviderKind::Anthropic);
        assert_eq!(config.base_url(), "https://api.anthropic.com");
        config.base_url = Some("http://proxy.local:8080/anthropic//".into());
        assert_eq!(config.base_url(), "http://proxy.local:8080/anthropic");
    }

    #[test]
    fn validation() {
        let mut config = ProviderConfig::new(ProviderKind::Gemini);
        assert!(config.validate().is_err(), "gemini needs a key");
        config.api_key = Some(Secret::new("key-123"));
        assert!(config.validate().is_ok());
        config.base_url = Some("ftp://x".into());
        assert!(config.validate().is_err());
        config.base_url = None;
        config.api_key = Some(Secret::new("a b"));
        assert!(config.validate().is_err());
        let openai = ProviderConfig::new(ProviderKind::OpenAi);
        assert!(openai.validate().is_err(), "api.openai.com needs a key");
    }

    #[test]
    fn new_limits_have_defaults_and_reject_zero() {
        let config = ProviderConfig::new(ProviderKind::Ollama);
        assert_eq!(config.request_timeout, Duration::from_secs(600));
        assert_eq!(config.max_retry_after, Duration::from_secs(30));
        assert_eq!(config.max_reply_bytes, 262_144);
        type Zero = fn(&mut ProviderConfig);
        let zeroed: [(&str, Zero); 3] = [
            ("request_timeout", |c| c.request_timeout = Duration::ZERO),
            ("max_retry_after", |c| c.max_retry_after = Duration::ZERO),
            ("max_reply_bytes", |c| c.max_reply_bytes = 0),
        ];
        for (name, zero) in zeroed {
            let mut bad = config.clone();
            zero(&mut bad);
            let message = bad.validate().unwrap_err().to_string();
            assert!(
                message.contains(name) && message.contains("ollama"),
                "{message}"
            );
        }
    }

    #[test]
    fn missing_key_names_the_kind() {
        let message = ProviderConfig::new(ProviderKind::Anthropic)
            .validate()
            .unwrap_err()
            .to_string();
        assert!(message.contains("anthropic needs an API key"), "{message}");
    }

    #[test]
    fn debug_hides_the_key() {
        let mut config = ProviderConfig::new(ProviderKind::Anthropic);
        config.api_key = Some(Secret::new("sk-ant-secret"));
        assert!(!format!("{config:?}").contains("sk-ant-secret"));
    }
}
