//! The model seam: a provider turns the conversation into a reply (text,
//! tool calls, or both). Real providers (OpenAI-compatible, Anthropic,
//! Gemini) live in `warden-llm`; the scripted provider plays a fixed script
//! for replay and tests.

use std::collections::VecDeque;

use serde_json::Value;

/// One message of the conversation the model sees.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    System(String),
    User(String),
    Assistant {
        text: Option<String>,
        tool_calls: Vec<ProposedToolCall>,
    },
    Tool {
        call_id: String,
        name: String,
        content: String,
    },
}

/// A tool call as the model proposed it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelReply {
    pub text: Option<String>,
    pub tool_calls: Vec<ProposedToolCall>,
    /// Tokens the provider reported for this call.
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A piece of a reply as it streams in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delta<'a> {
    Text(&'a str),
    Thinking(&'a str),
}

/// What the loop offers the model on one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolOffer {
    Tools,
    /// Text only: the last turn, or a brake after repeated blocked turns.
    TextOnly,
}

pub struct ModelRequest<'a> {
    pub messages: &'a [Message],
    pub offer: ToolOffer,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("the script has no more replies")]
    ScriptExhausted,
    #[error("provider error: {0}")]
    Failed(String),
}

/// Streaming-first: deltas go to `on_delta` as they arrive; the assembled
/// reply (text, tool calls, usage) is returned at the end.
pub trait Provider {
    fn complete(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<ModelReply, ProviderError>;

    /// Provider and model names, for metrics and cost accounting.
    fn identity(&self) -> (&str, &str);
}

/// Plays scripted replies in order, whatever the loop offers (the model
/// proposes; the executor decides).
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

impl Provider for ScriptedProvider {
    fn complete(
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

    fn identity(&self) -> (&str, &str) {
        ("scripted", "script")
    }
}
