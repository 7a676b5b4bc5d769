//! The provider trait: streaming-first, synchronous. Deltas go to
//! `on_delta` as they arrive; the assembled reply is returned at the end.

use crate::types::{Delta, ModelReply, ModelRequest};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The scripted provider has no more replies for this turn.
    #[error("the script has no more replies")]
    ScriptExhausted,
    /// The user cancelled the turn while the model was answering.
    #[error("cancelled")]
    Cancelled,
    /// Configuration that cannot work (no base URL, no model, bad key format).
    #[error("provider configuration: {0}")]
    Config(String),
    /// No model could be chosen: none configured and none usable listed.
    #[error("no usable model: {0}")]
    NoModel(String),
    /// The server answered with an error status (after retries, if any).
    #[error("{provider} answered HTTP {status}: {message}")]
    Http {
        provider: String,
        status: u16,
        message: String,
    },
    /// Connection, TLS or read failures (after retries).
    #[error("cannot reach {provider}: {message}")]
    Transport { provider: String, message: String },
    /// No data arrived for longer than the idle-read timeout.
    #[error("{provider} sent nothing for {seconds} s")]
    IdleTimeout { provider: String, seconds: u64 },
    /// The provider reported an error inside a streamed reply (an `error`
    /// event or chunk), or ended it without an answer (a safety block).
    #[error("{provider} failed while answering: {message}")]
    Stream { provider: String, message: String },
    /// The response could not be understood at all.
    #[error("{provider} sent a malformed response: {message}")]
    Malformed { provider: String, message: String },
    /// Anything else, already phrased for the user.
    #[error("provider error: {0}")]
    Failed(String),
}

pub trait Provider {
    fn complete(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<ModelReply, ProviderError>;

    /// Provider and model names, for metrics and cost accounting.
    fn identity(&self) -> (&str, &str);

    /// Whether the text of the last reply is Warden's own deterministic
    /// wording (the no-LLM router's templates over tool results or policy
    /// facts) rather than model prose. Only such text is exempt from
    /// phantom detection; every real model keeps the default.
    fn last_text_is_deterministic(&self) -> bool {
        false
    }
}
