//! What goes to a model and what comes back, independent of wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use warden_protocol::CancelFlag;

#[cfg(test)]
mod cap_tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_on_a_character_boundary() {
        let long = "é".repeat(10);
        let capped = Message::user(long.clone()).capped(5);
        let Message::User { text } = capped else {
            panic!("still a user message");
        };
        assert!(text.starts_with("éé"), "{text}");
        assert!(text.contains("more bytes cut"), "{text}");
        assert_eq!(Message::user("short").capped(5), Message::user("short"));
    }
}

/// One message of the conversation the model sees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions from Warden (the system prompt, gate notices, nudges).
    System {
        text: String,
    },
    User {
        text: String,
    },
    Assistant {
        text: Option<String>,
        tool_calls: Vec<ProposedToolCall>,
    },
    /// The result of one tool call, answering the call with `call_id`.
    Tool {
        call_id: String,
        name: String,
        content: String,
    },
}

impl Message {
    pub fn system(text: impl Into<String>) -> Self {
        Message::System { text: text.into() }
    }

    pub fn user(text: impl Into<String>) -> Self {
        Message::User { text: text.into() }
    }

    /// This message with every text longer than `max_bytes` cut to its
    /// head and a marker saying how much was cut: what a store keeps, so
    /// one huge reply or tool result cannot bloat a conversation.
    pub fn capped(&self, max_bytes: usize) -> Message {
        let cap = |text: &str| cap_text(text, max_bytes);
        match self {
            Message::System { text } => Message::System { text: cap(text) },
            Message::User { text } => Message::User { text: cap(text) },
            Message::Assistant { text, tool_calls } => Message::Assistant {
                text: text.as_deref().map(cap),
                tool_calls: tool_calls.clone(),
            },
            Message::Tool {
                call_id,
                name,
                content,
            } => Message::Tool {
                call_id: call_id.clone(),
                name: name.clone(),
                content: cap(content),
            },
        }
    }
}

/// `text`, or its first `max_bytes` (on a character boundary) and a marker.
fn cap_text(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[… {} more bytes cut when stored]",
        &text[..end],
        text.len() - end
    )
}

/// A tool call as the model proposed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposedToolCall {
    /// The provider's id for the call, or one Warden made up when the
    /// provider sent none (Gemini, some OpenAI-compatible servers).
    pub id: String,
    pub name: String,
    /// Always a JSON value. Arguments that were not valid JSON arrive as
    /// `{"_malformed_arguments": "<raw text>"}` so the executor refuses the
    /// call with a clear error instead of the stream failing.
    pub arguments: Value,
    /// Opaque data the provider needs echoed back with this call in later
    /// requests (Gemini's `thoughtSignature`); never shown to the executor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_data: Option<Value>,
}

impl ProposedToolCall {
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ProposedToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
            provider_data: None,
        }
    }
}

/// The argument key that carries unparseable tool-call arguments.
pub const MALFORMED_ARGUMENTS: &str = "_malformed_arguments";

/// One tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelReply {
    pub text: Option<String>,
    pub tool_calls: Vec<ProposedToolCall>,
    /// Tokens the provider reported for this call.
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A piece of a reply as it streams in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delta<'a> {
    Text(&'a str),
    Thinking(&'a str),
    /// What the transport is doing while nothing streams, for the user
    /// ("waiting for the model… 40 s", "rate-limited: retrying in 5 s").
    /// Never part of the answer.
    Notice(&'a str),
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
    /// The catalogue; providers send it unless `offer` is `TextOnly`.
    pub tools: &'a [ToolSpec],
    pub offer: ToolOffer,
    /// Set when the user cancels the turn; a provider stops reading and
    /// returns [`crate::ProviderError::Cancelled`].
    pub cancel: Option<&'a CancelFlag>,
}
