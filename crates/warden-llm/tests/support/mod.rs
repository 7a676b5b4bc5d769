//! Driving a provider against the testkit's fake model server: a config
//! with short timeouts, one `complete` call with every delta collected,
//! sample tools and messages.

#![allow(dead_code)] // each test module uses a different part

use std::time::{Duration, Instant};

use warden_llm::{
    Delta, Message, ModelReply, ModelRequest, Provider, ProviderConfig, ProviderError,
    ProviderKind, Secret, ToolOffer, ToolSpec,
};
use warden_protocol::CancelFlag;

pub const TEST_KEY: &str = "sk-test-0123456789abcdef";

/// A config for a fake server: short timeouts, a model set (no listing).
pub fn config(kind: ProviderKind, base_url: String) -> ProviderConfig {
    let mut config = ProviderConfig::new(kind);
    config.base_url = Some(base_url);
    config.api_key = Some(Secret::new(TEST_KEY));
    config.model = Some("test-model".into());
    config.connect_timeout = Duration::from_secs(2);
    config.idle_timeout = Duration::from_secs(2);
    config.max_retries = 2;
    config
}

pub struct Outcome {
    pub result: Result<ModelReply, ProviderError>,
    /// Text deltas in arrival order.
    pub texts: Vec<String>,
    pub thinking: Vec<String>,
    /// Transport notices ("waiting for the model… 5 s").
    pub notices: Vec<String>,
    pub elapsed: Duration,
}

impl Outcome {
    pub fn reply(&self) -> &ModelReply {
        match &self.result {
            Ok(reply) => reply,
            Err(error) => panic!("expected a reply, got {error:?}"),
        }
    }

    pub fn error(&self) -> &ProviderError {
        match &self.result {
            Ok(reply) => panic!("expected an error, got {reply:?}"),
            Err(error) => error,
        }
    }
}

pub async fn complete(
    provider: &mut dyn Provider,
    messages: &[Message],
    tools: &[ToolSpec],
    offer: ToolOffer,
    cancel: Option<&CancelFlag>,
) -> Outcome {
    let mut texts = Vec::new();
    let mut thinking = Vec::new();
    let mut notices = Vec::new();
    let request = ModelRequest {
        messages,
        tools,
        offer,
        cancel,
    };
    let started = Instant::now();
    let result = provider
        .complete(&request, &mut |delta| match delta {
            Delta::Text(text) => texts.push(text.to_string()),
            Delta::Thinking(text) => thinking.push(text.to_string()),
            Delta::Notice(text) => notices.push(text.to_string()),
        })
        .await;
    Outcome {
        result,
        texts,
        thinking,
        notices,
        elapsed: started.elapsed(),
    }
}

/// Two tools with schemas as the core generates them (incl. keywords
/// Gemini does not accept).
pub fn sample_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "query".into(),
            description: "Find resources.".into(),
            parameters: serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "QueryArgs",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "action": {"type": "string", "enum": ["search", "get", "list", "health"]},
                    "target": {"type": ["string", "null"], "default": null}
                },
                "required": ["action"]
            }),
        },
        ToolSpec {
            name: "metrics".into(),
            description: "Current metrics.".into(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"target": {"type": "string"}},
                "required": ["target"]
            }),
        },
    ]
}

pub fn user(text: &str) -> Vec<Message> {
    vec![Message::system("You are Warden."), Message::user(text)]
}
