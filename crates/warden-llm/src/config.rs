//! Which provider to talk to and how: parsed from the CLI/config file by
//! the binary, turned into a [`Provider`](crate::Provider) by
//! [`connect`](crate::connect).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::provider::ProviderError;
use crate::secret::Secret;

/// The three wire formats. Every OpenAI-compatible server (Ollama, vLLM,
/// llama.cpp, LM Studio, OpenRouter, DeepSeek, Groq, ...) is `OpenAi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    OpenAi,
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
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Gemini => "gemini",
        }
    }

    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::Gemini => "https://generativelanguage.googleapis.com",
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

    /// `openai`, `anthropic`, `gemini` (any case); `ollama` is `OpenAi`
    /// (use [`ProviderConfig::from_name`] to also get Ollama's base URL).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "openai" | "ollama" => Ok(ProviderKind::OpenAi),
            "anthropic" => Ok(ProviderKind::Anthropic),
            "gemini" => Ok(ProviderKind::Gemini),
            other => Err(ProviderError::Config(format!(
                "unknown provider {other:?}: expected openai, anthropic, gemini or ollama"
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
}

pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_MAX_RETRIES: u32 = 3;
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 4096;

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
        }
    }

    /// From a provider name as a user types it; `ollama` also sets the
    /// local Ollama base URL.
    pub fn from_name(name: &str) -> Result<Self, ProviderError> {
        let mut config = ProviderConfig::new(name.parse()?);
        if name.trim().eq_ignore_ascii_case("ollama") {
            config.base_url = Some(OLLAMA_BASE_URL.to_string());
        }
        Ok(config)
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

    /// Checks what can be checked without a network call.
    pub fn validate(&self) -> Result<(), ProviderError> {
        let base = self.base_url();
        let scheme_ok = base.starts_with("http://") || base.starts_with("https://");
        if !scheme_ok || base.len() <= "https://".len() {
            return Err(ProviderError::Config(format!(
                "base URL {base:?} must start with http:// or https://"
            )));
        }
        if base.contains('?') || base.contains('#') {
            return Err(ProviderError::Config(format!(
                "base URL {base:?} must not contain a query or fragment"
            )));
        }
        match &self.api_key {
            Some(key) if key.is_empty() => {
                return Err(ProviderError::Config("the API key is empty".into()));
            }
            Some(key)
                if key
                    .expose()
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control()) =>
            {
                return Err(ProviderError::Config(
                    "the API key contains whitespace or control characters".into(),
                ));
            }
            Some(_) => {}
            None if self.kind != ProviderKind::OpenAi => {
                return Err(ProviderError::Config(format!(
                    "{} needs an API key",
                    self.kind
                )));
            }
            None if base == ProviderKind::OpenAi.default_base_url() => {
                return Err(ProviderError::Config(format!("{base} needs an API key")));
            }
            None => {} // local OpenAI-compatible servers need none
        }
        if self.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(ProviderError::Config("the model name is empty".into()));
        }
        if self.idle_timeout.is_zero() || self.connect_timeout.is_zero() {
            return Err(ProviderError::Config("timeouts must be positive".into()));
        }
        if self.max_output_tokens == Some(0) {
            return Err(ProviderError::Config(
                "max_output_tokens must be positive".into(),
            ));
        }
        Ok(())
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
            Some(ProviderKind::OpenAi)
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
        assert_eq!(config.kind, ProviderKind::OpenAi);
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
    fn debug_hides_the_key() {
        let mut config = ProviderConfig::new(ProviderKind::Anthropic);
        config.api_key = Some(Secret::new("sk-ant-secret"));
        assert!(!format!("{config:?}").contains("sk-ant-secret"));
    }
}
