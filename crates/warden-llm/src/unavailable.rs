//! A configured provider that cannot be used (no key, a bad base URL): it
//! still stands behind the router, so routed requests keep working, and
//! every model call fails with the reason, naming the configured kind.

use crate::config::ProviderKind;
use crate::models::UNRESOLVED_MODEL;
use crate::provider::{BoxFuture, Provider, ProviderError};
use crate::types::{Delta, ModelReply, ModelRequest};

#[derive(Debug, Clone)]
pub struct UnavailableProvider {
    kind: ProviderKind,
    model: String,
    error: ProviderError,
}

impl UnavailableProvider {
    pub fn new(kind: ProviderKind, model: Option<&str>, error: ProviderError) -> Self {
        UnavailableProvider {
            kind,
            model: model.unwrap_or(UNRESOLVED_MODEL).to_string(),
            error,
        }
    }

    /// Why every call fails.
    pub fn error(&self) -> &ProviderError {
        &self.error
    }
}

impl Provider for UnavailableProvider {
    fn complete<'a>(
        &'a mut self,
        _request: &'a ModelRequest<'a>,
        _on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        let error = self.error.clone();
        Box::pin(async move { Err(error) })
    }

    fn identity(&self) -> (&str, &str) {
        (self.kind.name(), &self.model)
    }
}
