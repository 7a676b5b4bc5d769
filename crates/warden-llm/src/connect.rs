//! From a [`ProviderConfig`] to a ready [`Provider`]: validate, resolve the
//! model (the only network call at construction, and only when no model is
//! configured), build the provider.

use crate::anthropic::{self, AnthropicProvider};
use crate::config::{ProviderConfig, ProviderKind};
use crate::gemini::{self, GeminiProvider};
use crate::http::{HttpClient, TransportSettings};
use crate::models::resolve_model;
use crate::openai::{self, OpenAiProvider};
use crate::provider::{Provider, ProviderError};
use crate::secret::Secret;

/// A provider for `config`, ready for [`Provider::complete`].
pub fn connect(config: &ProviderConfig) -> Result<Box<dyn Provider + Send>, ProviderError> {
    config.validate()?;
    let base_url = config.base_url();
    let settings = TransportSettings {
        connect_timeout: config.connect_timeout,
        idle_timeout: config.idle_timeout,
        max_retries: config.max_retries,
    };
    let http = HttpClient::new(config.kind.name(), settings, config.api_key.clone());
    let configured = config.model.as_deref();
    match config.kind {
        ProviderKind::OpenAi => {
            let key = config.api_key.clone();
            let headers = openai::auth_headers(key.as_ref());
            let model = resolve_model(config.kind, configured, &base_url, &http, &headers)?;
            let provider =
                OpenAiProvider::new(http, base_url, key, model, config.max_output_tokens);
            Ok(Box::new(provider))
        }
        ProviderKind::Anthropic => {
            let key = required_key(config)?;
            let headers = anthropic::auth_headers(&key);
            let model = resolve_model(config.kind, configured, &base_url, &http, &headers)?;
            let provider =
                AnthropicProvider::new(http, base_url, key, model, config.max_output_tokens);
            Ok(Box::new(provider))
        }
        ProviderKind::Gemini => {
            let key = required_key(config)?;
            let headers = gemini::auth_headers(&key);
            let model = resolve_model(config.kind, configured, &base_url, &http, &headers)?;
            let provider =
                GeminiProvider::new(http, base_url, key, model, config.max_output_tokens);
            Ok(Box::new(provider))
        }
    }
}

fn required_key(config: &ProviderConfig) -> Result<Secret, ProviderError> {
    config
        .api_key
        .clone()
        .ok_or_else(|| ProviderError::Config(format!("{} needs an API key", config.kind)))
}
