//! Anthropic's Messages API, streamed. The API has one `system` field, no
//! mid-conversation system role, strict user/assistant alternation, and
//! tool results as content blocks of a user message; the mapping below
//! takes care of all three.

use serde_json::{Map, Value, json};

use crate::assemble::{Fragment, ToolCallAssembler};
use crate::config::{DEFAULT_ANTHROPIC_MAX_TOKENS, WireFormat};
use crate::conversation::{
    CONTINUATION_NOTE, Side, has_tool_history, merge_turns, notice_as_user_text,
    split_leading_system,
};
use crate::event_stream::Flow;
use crate::http::{Call, HttpClient, message_from_json};
use crate::models::ModelChoice;
use crate::provider::{BoxFuture, Provider, ProviderError};
use crate::secret::Secret;
use crate::sse::SseEvent;
use crate::streamed_reply::{Ending, ReplyStream, stream_reply};
use crate::types::{Delta, Message, ModelReply, ModelRequest, ToolOffer, ToolSpec, Usage};

pub const ANTHROPIC_VERSION: &str = "2023-06-01";

pub struct AnthropicProvider {
    http: HttpClient,
    base_url: String,
    api_key: Secret,
    model: ModelChoice,
    max_tokens: u32,
}

pub fn auth_headers(api_key: &Secret) -> Vec<(&'static str, String)> {
    vec![
        ("x-api-key", api_key.expose().to_string()),
        ("anthropic-version", ANTHROPIC_VERSION.to_string()),
    ]
}

impl AnthropicProvider {
    /// `model: None` reads the server's list on the first call.
    pub fn new(
        http: HttpClient,
        base_url: String,
        api_key: Secret,
        model: Option<String>,
        max_output_tokens: Option<u32>,
    ) -> Self {
        let model = ModelChoice::new(WireFormat::Anthropic, model.as_deref(), &base_url);
        AnthropicProvider {
            http,
            base_url,
            api_key,
            model,
            max_tokens: max_output_tokens.unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS),
        }
    }

    fn request_body(&self, model: &str, request: &ModelRequest<'_>) -> Value {
        let (system, messages) = wire_conversation(request.messages);
        let mut body = Map::new();
        body.insert("model".into(), json!(model));
        body.insert("max_tokens".into(), json!(self.max_tokens));
        body.insert("stream".into(), json!(true));
        if let Some(system) = system {
            body.insert("system".into(), json!(system));
        }
        body.insert("messages".into(), Value::Array(messages));
        let has_tools = !request.tools.is_empty();
        match request.offer {
            ToolOffer::Tools if has_tools => {
                body.insert("tools".into(), wire_tools(request.tools));
            }
            // The API rejects tool_use/tool_result blocks when no tools are
            // defined, so a text-only turn after tool use declares them and
            // forbids their use instead.
            ToolOffer::TextOnly if has_tools && has_tool_history(request.messages) => {
                body.insert("tools".into(), wire_tools(request.tools));
                body.insert("tool_choice".into(), json!({"type": "none"}));
            }
            ToolOffer::Tools | ToolOffer::TextOnly => {}
        }
        Value::Object(body)
    }
}

fn wire_tools(tools: &[ToolSpec]) -> Value {
    tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.parameters,
            })
        })
        .collect()
}

/// The `system` text and the `messages` array: consecutive same-role
/// messages merged into one message with several blocks, tool results
/// first in their user message, and a user message first.
pub fn wire_conversation(messages: &[Message]) -> (Option<String>, Vec<Value>) {
    let (system, rest) = split_leading_system(messages);
    let pieces = rest.iter().map(|message| match message {
        Message::System { text } => (Side::User, text_block(&notice_as_user_text(text))),
        Message::User { text } => (Side::User, text_block(text)),
        Message::Assistant { text, tool_calls } => {
            let mut blocks = text_block(text.as_deref().unwrap_or(""));
            blocks.extend(tool_calls.iter().map(|call| {
                json!({
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": as_object(&call.arguments),
                })
            }));
            (Side::Model, blocks)
        }
        Message::Tool {
            call_id, content, ..
        } => {
            let content = if content.is_empty() {
                "(no output)"
            } else {
                content
            };
            let block = json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
            (Side::User, vec![block])
        }
    });
    let turns = merge_turns(pieces, text_block(CONTINUATION_NOTE));
    let wire = turns
        .into_iter()
        .map(|(role, mut blocks)| {
            // Tool results must open the message that answers the calls.
            blocks.sort_by_key(|b| b["type"] != "tool_result");
            let role = match role {
                Side::User => "user",
                Side::Model => "assistant",
            };
            json!({"role": role, "content": blocks})
        })
        .collect();
    (system, wire)
}

/// A text block, or none for blank text (the API rejects blank blocks).
fn text_block(text: &str) -> Vec<Value> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    vec![json!({"type": "text", "text": text})]
}

/// `input` must be an object.
fn as_object(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::Null => json!({}),
        other => json!({"_arguments": other}),
    }
}

#[derive(Default)]
struct StreamState {
    text: String,
    calls: ToolCallAssembler,
    usage: Usage,
    saw_usage: bool,
    stop_reason: Option<String>,
    /// `message_stop` arrived.
    stopped: bool,
    /// The stream failed with `overloaded_error`.
    overloaded: bool,
}

impl ReplyStream for StreamState {
    fn on_event(
        &mut self,
        event: SseEvent,
        http: &HttpClient,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Flow, ProviderError> {
        if event.data.trim().is_empty() {
            return Ok(Flow::KeepAlive);
        }
        let json: Value = serde_json::from_str(&event.data).map_err(|e| {
            http.malformed(format!("stream event is not JSON ({e}): {}", event.data))
        })?;
        let kind = json["type"]
            .as_str()
            .or(event.event.as_deref())
            .unwrap_or("");
        match kind {
            "message_start" => self.take_usage(&json["message"]["usage"]),
            "content_block_start" => {
                let index = json["index"].as_u64().unwrap_or(0);
                let block = &json["content_block"];
                match block["type"].as_str().unwrap_or("") {
                    "text" => self.emit_text(block["text"].as_str(), on_delta),
                    "thinking" => self.emit_thinking(block["thinking"].as_str(), on_delta),
                    "tool_use" => {
                        let input = block.get("input").filter(|i| !is_empty_object(i));
                        self.calls.push(Fragment {
                            index: Some(index),
                            id: block["id"].as_str(),
                            name: block["name"].as_str(),
                            arguments: input,
                        });
                    }
                    _ => {} // redacted thinking, server tools: nothing to show
                }
            }
            "content_block_delta" => {
                let index = json["index"].as_u64().unwrap_or(0);
                let delta = &json["delta"];
                match delta["type"].as_str().unwrap_or("") {
                    "text_delta" => self.emit_text(delta["text"].as_str(), on_delta),
                    "thinking_delta" => self.emit_thinking(delta["thinking"].as_str(), on_delta),
                    "input_json_delta" => self.calls.push(Fragment {
                        index: Some(index),
                        arguments: delta.get("partial_json"),
                        ..Fragment::default()
                    }),
                    _ => {} // signature_delta, citations
                }
            }
            "message_delta" => {
                self.take_usage(&json["usage"]);
                if let Some(reason) = json["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_string());
                }
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(Flow::Stop);
            }
            "ping" => return Ok(Flow::KeepAlive),
            "error" => {
                self.overloaded = json["error"]["type"] == "overloaded_error";
                let message = message_from_json(&json).unwrap_or_else(|| json.to_string());
                return Err(http.stream_error(message));
            }
            _ => {} // content_block_stop, events added later
        }
        Ok(Flow::Continue)
    }

    fn reply_bytes(&self) -> usize {
        self.text.len() + self.calls.argument_bytes()
    }

    /// `message_stop` ends a message; a `stop_reason` in `message_delta`
    /// says the same if the connection closes before `message_stop`.
    fn ending(&self) -> Ending {
        if self.calls.has_incomplete_arguments() {
            Ending::InsideToolCall
        } else if self.stopped || self.stop_reason.is_some() {
            Ending::Complete
        } else {
            Ending::NoFinishReason
        }
    }

    fn failed_from_overload(&self) -> bool {
        self.overloaded
    }

    fn into_reply(self, http: &HttpClient) -> Result<ModelReply, ProviderError> {
        let text = (!self.text.is_empty()).then_some(self.text);
        let tool_calls = self.calls.finish();
        if text.is_none() && tool_calls.is_empty() && self.stop_reason.as_deref() == Some("refusal")
        {
            return Err(http.stream_error("the model declined to answer (stop_reason: refusal)"));
        }
        Ok(ModelReply {
            text,
            tool_calls,
            usage: self.saw_usage.then_some(self.usage),
        })
    }
}

impl StreamState {
    /// `message_start` carries the input count, `message_delta` the
    /// running output count; cached input is input too.
    fn take_usage(&mut self, usage: &Value) {
        if !usage.is_object() {
            return;
        }
        self.saw_usage = true;
        let input: u64 = [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .filter_map(|key| usage[*key].as_u64())
        .sum();
        if input > 0 {
            self.usage.input_tokens = input;
        }
        if let Some(output) = usage["output_tokens"].as_u64() {
            self.usage.output_tokens = output;
        }
    }

    fn emit_text(&mut self, text: Option<&str>, on_delta: &mut dyn FnMut(Delta<'_>)) {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            on_delta(Delta::Text(text));
        }
    }

    fn emit_thinking(&mut self, text: Option<&str>, on_delta: &mut dyn FnMut(Delta<'_>)) {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            on_delta(Delta::Thinking(text));
        }
    }
}

fn is_empty_object(value: &Value) -> bool {
    value.as_object().is_some_and(Map::is_empty)
}

impl AnthropicProvider {
    async fn complete_streamed(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<ModelReply, ProviderError> {
        let mut call = Call::new(&self.http, request.cancel, on_delta);
        let headers = auth_headers(&self.api_key);
        let model = self.model.resolve(&mut call, &headers).await?;
        let url = format!("{}/v1/messages", self.base_url);
        let body = self.request_body(&model, request);
        stream_reply(&mut call, &url, &headers, &body, StreamState::default).await
    }
}

impl Provider for AnthropicProvider {
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
    use crate::types::ProposedToolCall;

    #[test]
    fn merges_alternates_and_moves_notices_to_user_text() {
        let messages = vec![
            Message::system("You are Warden."),
            Message::user("restart nginx on web1"),
            Message::Assistant {
                text: Some("Checking.".into()),
                tool_calls: vec![
                    ProposedToolCall::new(
                        "toolu_1",
                        "query",
                        json!({"action": "get", "target": "web1"}),
                    ),
                    ProposedToolCall::new("toolu_2", "read", json!({"action": "logs"})),
                ],
            },
            Message::system("Verify before answering."),
            Message::Tool {
                call_id: "toolu_1".into(),
                name: "query".into(),
                content: "{}".into(),
            },
            Message::Tool {
                call_id: "toolu_2".into(),
                name: "read".into(),
                content: String::new(),
            },
        ];
        let (system, wire) = wire_conversation(&messages);
        assert_eq!(system.as_deref(), Some("You are Warden."));
        assert_eq!(wire.len(), 3);
        assert_eq!(wire[1]["role"], "assistant");
        assert_eq!(wire[1]["content"][1]["type"], "tool_use");
        assert_eq!(wire[2]["role"], "user");
        let blocks = wire[2]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["tool_use_id"], "toolu_1");
        assert_eq!(blocks[1]["tool_use_id"], "toolu_2");
        assert_eq!(blocks[1]["content"], "(no output)");
        assert_eq!(
            blocks[2],
            json!({"type": "text", "text": "[Warden] Verify before answering."})
        );
    }

    #[test]
    fn conversation_starts_with_user() {
        let messages = vec![Message::Assistant {
            text: Some("Hello".into()),
            tool_calls: vec![],
        }];
        let (system, wire) = wire_conversation(&messages);
        assert!(system.is_none());
        assert_eq!(wire[0]["role"], "user");
        assert_eq!(wire[1]["role"], "assistant");
    }
}
