//! OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp
//! server, LM Studio, OpenRouter, DeepSeek, Groq, ...), streamed.

use serde_json::{Map, Value, json};

use crate::assemble::ToolCallAssembler;
use crate::config::WireFormat;
use crate::event_stream::Flow;
use crate::http::{Call, HttpClient, message_from_json};
use crate::models::ModelChoice;
use crate::provider::{BoxFuture, Provider, ProviderError};
use crate::secret::Secret;
use crate::sse::SseEvent;
use crate::streamed_reply::{Ending, ReplyStream, stream_reply};
use crate::types::{Delta, Message, ModelReply, ModelRequest, ToolOffer, ToolSpec, Usage};

/// OpenAI's own endpoint, which differs from compatible servers in details.
const OPENAI_API: &str = "https://api.openai.com/";

pub struct OpenAiProvider {
    http: HttpClient,
    base_url: String,
    api_key: Option<Secret>,
    model: ModelChoice,
    max_output_tokens: Option<u32>,
    /// Cleared for good once the server rejected `stream_options` (older
    /// compatible servers do); usage is then whatever the server sends.
    send_stream_options: bool,
}

/// `Authorization: Bearer`, only when there is a key (local servers need none).
pub fn auth_headers(api_key: Option<&Secret>) -> Vec<(&'static str, String)> {
    api_key
        .map(|key| vec![("authorization", format!("Bearer {}", key.expose()))])
        .unwrap_or_default()
}

impl OpenAiProvider {
    /// `model: None` reads the server's list on the first call.
    pub fn new(
        http: HttpClient,
        base_url: String,
        api_key: Option<Secret>,
        model: Option<String>,
        max_output_tokens: Option<u32>,
    ) -> Self {
        let model = ModelChoice::new(WireFormat::OpenAiCompatible, model.as_deref(), &base_url);
        OpenAiProvider {
            http,
            base_url,
            api_key,
            model,
            max_output_tokens,
            send_stream_options: true,
        }
    }

    fn request_body(&self, model: &str, request: &ModelRequest<'_>) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(model));
        body.insert(
            "messages".into(),
            Value::Array(wire_messages(request.messages)),
        );
        body.insert("stream".into(), json!(true));
        if self.send_stream_options {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        match request.offer {
            ToolOffer::Tools if !request.tools.is_empty() => {
                body.insert("tools".into(), Value::Array(wire_tools(request.tools)));
            }
            // Not sent at all: the model cannot call what it is not shown.
            ToolOffer::Tools | ToolOffer::TextOnly => {}
        }
        if let Some(max) = self.max_output_tokens {
            // OpenAI's own API rejects `max_tokens` for reasoning models;
            // compatible servers mostly know only `max_tokens`.
            let key = if self.base_url.starts_with(OPENAI_API) {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            body.insert(key.into(), json!(max));
        }
        Value::Object(body)
    }
}

fn wire_tools(tools: &[ToolSpec]) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                }
            })
        })
        .collect()
}

fn wire_messages(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|message| match message {
            Message::System { text } => json!({"role": "system", "content": text}),
            Message::User { text } => json!({"role": "user", "content": text}),
            Message::Assistant { text, tool_calls } => {
                let text = text.as_deref().filter(|t| !t.is_empty());
                let mut wire = Map::new();
                wire.insert("role".into(), json!("assistant"));
                // null content is only valid next to tool calls.
                let content = match text {
                    Some(text) => json!(text),
                    None if tool_calls.is_empty() => json!(""),
                    None => Value::Null,
                };
                wire.insert("content".into(), content);
                if !tool_calls.is_empty() {
                    let calls = tool_calls
                        .iter()
                        .map(|call| {
                            json!({
                                "id": call.id,
                                "type": "function",
                                "function": {
                                    "name": call.name,
                                    "arguments": call.arguments.to_string(),
                                }
                            })
                        })
                        .collect();
                    wire.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(wire)
            }
            Message::Tool {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        })
        .collect()
}

/// What the stream has said so far.
#[derive(Default)]
struct StreamState {
    text: String,
    calls: ToolCallAssembler,
    usage: Option<Usage>,
    /// `[DONE]` or a `finish_reason` arrived. Some servers end at EOF right
    /// after the `finish_reason` chunk, without `[DONE]`: that is complete.
    finished: bool,
}

impl ReplyStream for StreamState {
    fn on_event(
        &mut self,
        event: SseEvent,
        http: &HttpClient,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Flow, ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.finished = true;
            return Ok(Flow::Stop);
        }
        if data.is_empty() {
            return Ok(Flow::KeepAlive);
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| http.malformed(format!("stream chunk is not JSON ({e}): {data}")))?;
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            let message = message_from_json(&chunk).unwrap_or_else(|| chunk.to_string());
            return Err(http.stream_error(message));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(Usage {
                input_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0),
                output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
            });
        }
        let first_choice = chunk["choices"].as_array().and_then(|choices| {
            choices
                .iter()
                .find(|c| c["index"].as_u64().unwrap_or(0) == 0)
        });
        let Some(choice) = first_choice else {
            return Ok(Flow::Continue);
        };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            on_delta(Delta::Text(text));
        }
        let thinking = delta["reasoning_content"]
            .as_str()
            .or(delta["reasoning"].as_str());
        if let Some(thinking) = thinking.filter(|t| !t.is_empty()) {
            on_delta(Delta::Thinking(thinking));
        }
        for fragment in delta["tool_calls"].as_array().into_iter().flatten() {
            self.calls.push_openai(fragment);
        }
        if choice["finish_reason"]
            .as_str()
            .is_some_and(|r| !r.is_empty())
        {
            self.finished = true;
        }
        Ok(Flow::Continue)
    }

    fn reply_bytes(&self) -> usize {
        self.text.len() + self.calls.argument_bytes()
    }

    fn ending(&self) -> Ending {
        if self.calls.has_incomplete_arguments() {
            Ending::InsideToolCall
        } else if self.finished {
            Ending::Complete
        } else {
            Ending::NoFinishReason
        }
    }

    fn into_reply(self, _http: &HttpClient) -> Result<ModelReply, ProviderError> {
        Ok(ModelReply {
            text: (!self.text.is_empty()).then_some(self.text),
            tool_calls: self.calls.finish(),
            usage: self.usage,
        })
    }
}

/// A 400/422 that blames `stream_options` (servers that predate it).
fn rejects_stream_options(error: &ProviderError) -> bool {
    match error {
        ProviderError::Http {
            status, message, ..
        } => matches!(status, 400 | 422) && message.to_ascii_lowercase().contains("stream_options"),
        _ => false,
    }
}

impl OpenAiProvider {
    async fn complete_streamed(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<ModelReply, ProviderError> {
        let mut call = Call::new(&self.http, request.cancel, on_delta);
        let headers = auth_headers(self.api_key.as_ref());
        let model = self.model.resolve(&mut call, &headers).await?;
        let url = format!("{}/chat/completions", self.base_url);
        let body = self.request_body(&model, request);
        let result = stream_reply(&mut call, &url, &headers, &body, StreamState::default).await;
        match result {
            Err(error) if self.send_stream_options && rejects_stream_options(&error) => {
                self.send_stream_options = false;
                let body = self.request_body(&model, request);
                stream_reply(&mut call, &url, &headers, &body, StreamState::default).await
            }
            other => other,
        }
    }
}

impl Provider for OpenAiProvider {
    fn complete<'a>(
        &'a mut self,
        request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        Box::pin(self.complete_streamed(request, on_delta))
    }

    fn identity(&self) -> (&str, &str) {
        (self.http.provider(), self.model.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::TransportSettings;
    use crate::types::ProposedToolCall;

    fn provider(base_url: &str) -> OpenAiProvider {
        let config = crate::ProviderConfig::new(crate::ProviderKind::OpenAi);
        let http = HttpClient::new("openai", TransportSettings::from(&config), None).unwrap();
        OpenAiProvider::new(http, base_url.into(), None, Some("m".into()), Some(100))
    }

    #[test]
    fn output_limit_parameter_depends_on_the_server() {
        let request = ModelRequest {
            messages: &[],
            tools: &[],
            offer: ToolOffer::Tools,
            cancel: None,
        };
        let body = provider("https://api.openai.com/v1").request_body("m", &request);
        assert_eq!(body["max_completion_tokens"], 100);
        assert!(body.get("max_tokens").is_none());
        let body = provider("http://localhost:8000/v1").request_body("m", &request);
        assert_eq!(body["max_tokens"], 100);
    }

    #[test]
    fn assistant_and_tool_messages_map_to_the_wire() {
        let messages = vec![
            Message::system("sys"),
            Message::user("disk on pve1?"),
            Message::Assistant {
                text: None,
                tool_calls: vec![ProposedToolCall::new(
                    "call_1",
                    "metrics",
                    json!({"target": "pve1"}),
                )],
            },
            Message::Tool {
                call_id: "call_1".into(),
                name: "metrics".into(),
                content: "{\"ok\":true}".into(),
            },
            Message::Assistant {
                text: Some("Fine.".into()),
                tool_calls: vec![],
            },
        ];
        let wire = wire_messages(&messages);
        assert_eq!(wire[0], json!({"role": "system", "content": "sys"}));
        assert_eq!(
            wire[2],
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "metrics", "arguments": "{\"target\":\"pve1\"}"}
            }]})
        );
        assert_eq!(
            wire[3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"ok\":true}"})
        );
        assert_eq!(wire[4], json!({"role": "assistant", "content": "Fine."}));
    }
}
