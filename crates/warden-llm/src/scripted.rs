//! Plays scripted replies in order, whatever the loop offers (the model
//! proposes; the executor decides). Used by `warden replay` and tests.

use std::collections::VecDeque;

use crate::provider::{BoxFuture, Provider, ProviderError};
use crate::types::{Delta, ModelReply, ModelRequest, ToolOffer};

#[derive(Debug, Default)]
pub struct ScriptedProvider {
    replies: VecDeque<ModelReply>,
    /// What the loop offered on each call, for tests and transcripts.
    pub offers: Vec<ToolOffer>,
}

impl ScriptedProvider {
    pub fn new(replies: impl IntoIterator<Item = ModelReply>) -> Self {
        ScriptedProvider {
            replies: replies.into_iter().collect(),
            offers: Vec::new(),
        }
    }

    /// Queue the replies for the next user message.
    pub fn load(&mut self, replies: impl IntoIterator<Item = ModelReply>) {
        self.replies = replies.into_iter().collect();
    }
}

impl ScriptedProvider {
    fn next_reply(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<ModelReply, ProviderError> {
        self.offers.push(request.offer);
        let reply = self
            .replies
            .pop_front()
            .ok_or(ProviderError::ScriptExhausted)?;
        if let Some(text) = &reply.text {
            on_delta(Delta::Text(text));
        }
        Ok(reply)
    }
}

impl Provider for ScriptedProvider {
    fn complete<'a>(
        &'a mut self,
        request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        // Nothing to wait for: the script is in memory.
        let result = self.next_reply(request, on_delta);
        Box::pin(async move { result })
    }

    fn identity(&self) -> (&str, &str) {
        ("scripted", "script")
    }
}
