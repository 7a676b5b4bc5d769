//! From a [`ProviderConfig`] to a ready [`Provider`]: validate and build.
//! Nothing here touches the network; a model that is not configured is
//! looked up on the first call (see [`crate::models`]).

use crate::anthropic::AnthropicProvider;
use crate::config::{ProviderConfig, WireFormat};
use crate::gemini::GeminiProvider;
use crate::http::{HttpClient, TransportSettings};
use crate::openai::OpenAiProvider;
use crate::provider::{Provider, ProviderError};
use crate::secret::Secret;
use crate::unavailable::UnavailableProvider;

/// A provider for `config`, ready for [`Provider::complete`], or the
/// configuration error.
pub fn connect(config: &ProviderConfig) -> Result<Box<dyn Provider + Send>, ProviderError> {
    config.validate()?;
    let base_url = config.base_url();
    let http = HttpClient::new(
        config.kind.name(),
        TransportSettings::from(config),
        config.api_key.clone(),
    )?;
    let model = config.model.clone();
    let max_tokens = config.max_output_tokens;
    Ok(match config.kind.wire_format() {
        WireFormat::OpenAiCompatible => {
            let key = config.api_key.clone();
            Box::new(OpenAiProvider::new(http, base_url, key, model, max_tokens))
        }
        WireFormat::Anthropic => {
            let key = required_key(config)?;
            Box::new(AnthropicProvider::new(
                http, base_url, key, model, max_tokens,
            ))
        }
        WireFormat::Gemini => {
            let key = required_key(config)?;
            Box::new(GeminiProvider::new(http, base_url, key, model, max_tokens))
        }
    })
}

/// Like [`connect`], but a configuration error does not stop the caller:
/// the provider it returns fails every call with that error (naming the
/// configured kind), so the router that wraps it keeps answering what it
/// can route. This is what Warden starts with.
pub fn connect_or_unavailable(config: &ProviderConfig) -> Box<dyn Provider + Send> {
    match connect(config) {
        Ok(provider) => provider,
        Err(error) => Box::new(UnavailableProvider::new(
            config.kind,
            config.model.as_deref(),
            error,
        )),
    }
}

fn required_key(config: &ProviderConfig) -> Result<Secret, ProviderError> {
    config
        .api_key
        .clone()
        .ok_or_else(|| ProviderError::Config(format!("{} needs an API key", config.kind)))
}
