//! An in-process model for the server tests (a `Provider`, no HTTP): each
//! user message names a script in a shared book; the reply is the script's
//! step for how many times the model has already answered since that
//! message. Text streams word by word, paced with `tokio::time::sleep`
//! when the script says so. (Over the wire, [`crate::model`] does the
//! same.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use warden_llm::{
    BoxFuture, Delta, Message, ModelReply, ModelRequest, ProposedToolCall, Provider, ProviderError,
    Usage,
};

#[derive(Clone, Default)]
pub struct Script {
    pub replies: Vec<ModelReply>,
    /// Pause before each streamed word.
    pub pace: Option<Duration>,
}

impl Script {
    pub fn new() -> Self {
        Script::default()
    }

    pub fn call(mut self, tool: &str, arguments: Value) -> Self {
        let id = format!("c{}", self.replies.len());
        self.replies.push(ModelReply {
            text: None,
            tool_calls: vec![ProposedToolCall::new(id, tool, arguments)],
            usage: Some(Usage {
                input_tokens: 100,
                output_tokens: 10,
            }),
        });
        self
    }

    pub fn text(mut self, text: &str) -> Self {
        self.replies.push(ModelReply {
            text: Some(text.to_string()),
            tool_calls: Vec::new(),
            usage: Some(Usage {
                input_tokens: 100,
                output_tokens: 20,
            }),
        });
        self
    }

    pub fn paced(mut self, pace: Duration) -> Self {
        self.pace = Some(pace);
        self
    }
}

/// Scripts by user message.
#[derive(Clone, Default)]
pub struct ScriptBook(Arc<Mutex<HashMap<String, Script>>>);

impl ScriptBook {
    pub fn add(&self, message: &str, script: Script) {
        self.0.lock().unwrap().insert(message.to_string(), script);
    }

    pub fn provider(&self) -> BookModel {
        BookModel(self.clone())
    }
}

pub struct BookModel(ScriptBook);

impl Provider for BookModel {
    fn complete<'a>(
        &'a mut self,
        request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        let last_user = request
            .messages
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }));
        let (text, step) = match last_user {
            Some(i) => {
                let text = match &request.messages[i] {
                    Message::User { text } => text.clone(),
                    _ => String::new(),
                };
                let step = request.messages[i..]
                    .iter()
                    .filter(|m| matches!(m, Message::Assistant { .. }))
                    .count();
                (text, step)
            }
            None => (String::new(), 0),
        };
        let script = self.0.0.lock().unwrap().get(&text).cloned();
        Box::pin(async move {
            let script = script.ok_or(ProviderError::ScriptExhausted)?;
            let reply = script
                .replies
                .get(step)
                .cloned()
                .ok_or(ProviderError::ScriptExhausted)?;
            if let Some(text) = &reply.text {
                for word in text.split_inclusive(' ') {
                    if let Some(pace) = script.pace {
                        tokio::time::sleep(pace).await;
                    }
                    on_delta(Delta::Text(word));
                }
            }
            Ok(reply)
        })
    }

    fn identity(&self) -> (&str, &str) {
        ("test", "book")
    }
}
