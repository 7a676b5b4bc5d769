//! Google's Gemini API (`streamGenerateContent` with `alt=sse`). Every
//! stream chunk is a whole `GenerateContentResponse`; function calls arrive
//! whole and usually without an id. Thinking models attach a
//! `thoughtSignature` to function-call parts which must be echoed back on
//! the same part in later requests (Gemini 3 rejects history without it),
//! so it travels in [`ProposedToolCall::provider_data`].

use serde_json::{Map, Value, json};

use crate::assemble::synthetic_call_id;
use crate::config::WireFormat;
use crate::conversation::{
    CONTINUATION_NOTE, Side, find_call, has_tool_history, merge_turns, notice_as_user_text,
    split_leading_system,
};
use crate::event_stream::Flow;
use crate::gemini_schema::gemini_parameters;
use crate::http::{Call, HttpClient, message_from_json};
use crate::models::ModelChoice;
use crate::provider::{BoxFuture, Provider, ProviderError};
use crate::secret::Secret;
use crate::sse::SseEvent;
use crate::streamed_reply::{Ending, ReplyStream, stream_reply};
use crate::types::{
    Delta, Message, ModelReply, ModelRequest, ProposedToolCall, ToolOffer, ToolSpec, Usage,
};

/// Keys inside `provider_data` of a Gemini call.
const THOUGHT_SIGNATURE: &str = "thoughtSignature";
const FUNCTION_CALL_ID: &str = "functionCallId";

pub struct GeminiProvider {
    http: HttpClient,
    base_url: String,
    api_key: Secret,
    model: ModelChoice,
    max_output_tokens: Option<u32>,
}

/// The key goes in a header, never in the URL (URLs end up in logs).
pub fn auth_headers(api_key: &Secret) -> Vec<(&'static str, String)> {
    vec![("x-goog-api-key", api_key.expose().to_string())]
}

impl GeminiProvider {
    /// `model: None` reads the server's list on the first call.
    pub fn new(
        http: HttpClient,
        base_url: String,
        api_key: Secret,
        model: Option<String>,
        max_output_tokens: Option<u32>,
    ) -> Self {
        let model = ModelChoice::new(WireFormat::Gemini, model.as_deref(), &base_url);
        GeminiProvider {
            http,
            base_url,
            api_key,
            model,
            max_output_tokens,
        }
    }

    fn request_body(&self, request: &ModelRequest<'_>) -> Value {
        let (system, contents) = wire_contents(request.messages);
        let mut body = Map::new();
        body.insert("contents".into(), Value::Array(contents));
        if let Some(system) = system {
            body.insert(
                "systemInstruction".into(),
                json!({"parts": [{"text": system}]}),
            );
        }
        let has_tools = !request.tools.is_empty();
        match request.offer {
            ToolOffer::Tools if has_tools => {
                body.insert("tools".into(), wire_tools(request.tools));
            }
            // History with function calls keeps its declarations; the
            // model is told not to call any.
            ToolOffer::TextOnly if has_tools && has_tool_history(request.messages) => {
                body.insert("tools".into(), wire_tools(request.tools));
                body.insert(
                    "toolConfig".into(),
                    json!({"functionCallingConfig": {"mode": "NONE"}}),
                );
            }
            ToolOffer::Tools | ToolOffer::TextOnly => {}
        }
        if let Some(max) = self.max_output_tokens {
            body.insert("generationConfig".into(), json!({"maxOutputTokens": max}));
        }
        Value::Object(body)
    }
}

fn wire_tools(tools: &[ToolSpec]) -> Value {
    let declarations: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut declaration = json!({"name": tool.name, "description": tool.description});
            if let Some(parameters) = gemini_parameters(&tool.parameters) {
                declaration["parameters"] = parameters;
            }
            declaration
        })
        .collect();
    json!([{"functionDeclarations": declarations}])
}

/// `systemInstruction` text and `contents`: roles `user`/`model`,
/// consecutive same-role turns merged (so all results of one step share a
/// content), and a user turn first.
pub fn wire_contents(messages: &[Message]) -> (Option<String>, Vec<Value>) {
    let (system, rest) = split_leading_system(messages);
    let pieces = rest.iter().map(|message| match message {
        Message::System { text } => (Side::User, text_part(&notice_as_user_text(text))),
        Message::User { text } => (Side::User, text_part(text)),
        Message::Assistant { text, tool_calls } => {
            let mut parts = text_part(text.as_deref().unwrap_or(""));
            parts.extend(tool_calls.iter().map(function_call_part));
            (Side::Model, parts)
        }
        Message::Tool {
            call_id,
            name,
            content,
        } => {
            let mut response = json!({"name": name, "response": response_object(content)});
            let server_id = find_call(messages, call_id)
                .and_then(|call| call.provider_data.as_ref())
                .and_then(|data| data[FUNCTION_CALL_ID].as_str());
            if let Some(id) = server_id {
                response["id"] = json!(id);
            }
            (Side::User, vec![json!({"functionResponse": response})])
        }
    });
    let turns = merge_turns(pieces, text_part(CONTINUATION_NOTE));
    let contents = turns
        .into_iter()
        .map(|(role, parts)| {
            let role = match role {
                Side::User => "user",
                Side::Model => "model",
            };
            json!({"role": role, "parts": parts})
        })
        .collect();
    (system, contents)
}

fn text_part(text: &str) -> Vec<Value> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    vec![json!({"text": text})]
}

/// A call as the model made it, with its signature on the same part.
fn function_call_part(call: &ProposedToolCall) -> Value {
    let args = match &call.arguments {
        Value::Object(_) => call.arguments.clone(),
        Value::Null => json!({}),
        other => json!({"_arguments": other}),
    };
    let mut function_call = json!({"name": call.name, "args": args});
    let data = call.provider_data.as_ref();
    if let Some(id) = data.and_then(|d| d[FUNCTION_CALL_ID].as_str()) {
        function_call["id"] = json!(id);
    }
    let mut part = json!({"functionCall": function_call});
    if let Some(signature) = data.and_then(|d| d[THOUGHT_SIGNATURE].as_str()) {
        part[THOUGHT_SIGNATURE] = json!(signature);
    }
    part
}

/// `functionResponse.response` must be an object.
fn response_object(content: &str) -> Value {
    match serde_json::from_str::<Value>(content) {
        Ok(object @ Value::Object(_)) => object,
        Ok(other) => json!({"result": other}),
        Err(_) => json!({"result": content}),
    }
}

#[derive(Default)]
struct StreamState {
    text: String,
    calls: Vec<ProposedToolCall>,
    /// Bytes of the calls' arguments as JSON.
    argument_bytes: usize,
    usage: Option<Usage>,
    /// The last candidate's `finishReason` (`None` while it is still
    /// coming: every chunk but the last has none).
    finish_reason: Option<String>,
    finish_message: Option<String>,
    block_reason: Option<String>,
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
        let chunk: Value = serde_json::from_str(&event.data).map_err(|e| {
            http.malformed(format!("stream chunk is not JSON ({e}): {}", event.data))
        })?;
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            let message = message_from_json(&chunk).unwrap_or_else(|| chunk.to_string());
            return Err(http.stream_error(message));
        }
        if let Some(reason) = chunk["promptFeedback"]["blockReason"].as_str() {
            self.block_reason = Some(reason.to_string());
        }
        let usage = &chunk["usageMetadata"];
        if usage.is_object() {
            let count = |key: &str| usage[key].as_u64().unwrap_or(0);
            self.usage = Some(Usage {
                input_tokens: count("promptTokenCount"),
                output_tokens: count("candidatesTokenCount") + count("thoughtsTokenCount"),
            });
        }
        let candidate = &chunk["candidates"][0];
        for part in candidate["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            self.take_part(part, on_delta);
        }
        if candidate.is_object() {
            self.finish_reason = candidate["finishReason"].as_str().map(str::to_string);
        }
        if let Some(message) = candidate["finishMessage"].as_str() {
            self.finish_message = Some(message.to_string());
        }
        Ok(Flow::Continue)
    }

    fn reply_bytes(&self) -> usize {
        self.text.len() + self.argument_bytes
    }

    /// Function calls arrive whole, so only the finish reason (or a blocked
    /// prompt, which has no candidate) tells a complete reply.
    fn ending(&self) -> Ending {
        if self.finish_reason.is_some() || self.block_reason.is_some() {
            Ending::Complete
        } else {
            Ending::NoFinishReason
        }
    }

    fn into_reply(self, http: &HttpClient) -> Result<ModelReply, ProviderError> {
        if self.text.is_empty() && self.calls.is_empty() {
            if let Some(reason) = &self.block_reason {
                return Err(http.stream_error(format!("the prompt was blocked ({reason})")));
            }
            if let Some(reason) = self
                .finish_reason
                .as_deref()
                .filter(|r| !matches!(*r, "STOP" | "MAX_TOKENS" | "FINISH_REASON_UNSPECIFIED"))
            {
                let detail = self
                    .finish_message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                return Err(http.stream_error(format!(
                    "the model stopped without an answer ({reason}){detail}"
                )));
            }
        }
        Ok(ModelReply {
            text: (!self.text.is_empty()).then_some(self.text),
            tool_calls: self.calls,
            usage: self.usage,
        })
    }
}

impl StreamState {
    fn take_part(&mut self, part: &Value, on_delta: &mut dyn FnMut(Delta<'_>)) {
        if let Some(text) = part["text"].as_str().filter(|t| !t.is_empty()) {
            if part["thought"] == true {
                on_delta(Delta::Thinking(text));
            } else {
                self.text.push_str(text);
                on_delta(Delta::Text(text));
            }
        }
        let call = &part["functionCall"];
        let Some(name) = call["name"].as_str().filter(|n| !n.is_empty()) else {
            return;
        };
        let mut data = Map::new();
        if let Some(signature) = part[THOUGHT_SIGNATURE].as_str() {
            data.insert(THOUGHT_SIGNATURE.into(), json!(signature));
        }
        let server_id = call["id"].as_str().filter(|id| !id.is_empty());
        if let Some(id) = server_id {
            data.insert(FUNCTION_CALL_ID.into(), json!(id));
        }
        let arguments = match &call["args"] {
            Value::Null => json!({}),
            args => args.clone(),
        };
        self.argument_bytes += arguments.to_string().len();
        self.calls.push(ProposedToolCall {
            id: server_id.map_or_else(synthetic_call_id, str::to_string),
            name: name.to_string(),
            arguments,
            provider_data: (!data.is_empty()).then_some(Value::Object(data)),
        });
    }
}

impl GeminiProvider {
    async fn complete_streamed(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<ModelReply, ProviderError> {
        let mut call = Call::new(&self.http, request.cancel, on_delta);
        let headers = auth_headers(&self.api_key);
        let model = self.model.resolve(&mut call, &headers).await?;
        let url = format!(
            "{}/v1beta/models/{model}:streamGenerateContent?alt=sse",
            self.base_url
        );
        let body = self.request_body(request);
        stream_reply(&mut call, &url, &headers, &body, StreamState::default).await
    }
}

impl Provider for GeminiProvider {
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

    #[test]
    fn tool_results_become_function_responses_in_one_user_turn() {
        let mut call = ProposedToolCall::new("call_x_1", "query", json!({"action": "list"}));
        call.provider_data = Some(json!({"thoughtSignature": "sig=="}));
        let messages = vec![
            Message::system("sys"),
            Message::user("what runs on pve1?"),
            Message::Assistant {
                text: None,
                tool_calls: vec![
                    call,
                    ProposedToolCall::new("call_x_2", "metrics", json!({})),
                ],
            },
            Message::Tool {
                call_id: "call_x_1".into(),
                name: "query".into(),
                content: "{\"ok\":true}".into(),
            },
            Message::Tool {
                call_id: "call_x_2".into(),
                name: "metrics".into(),
                content: "plain text".into(),
            },
        ];
        let (system, contents) = wire_contents(&messages);
        assert_eq!(system.as_deref(), Some("sys"));
        assert_eq!(contents.len(), 3);
        assert_eq!(contents[1]["role"], "model");
        assert_eq!(
            contents[1]["parts"][0],
            json!({"functionCall": {"name": "query", "args": {"action": "list"}}, "thoughtSignature": "sig=="})
        );
        assert_eq!(contents[2]["role"], "user");
        assert_eq!(
            contents[2]["parts"],
            json!([
                {"functionResponse": {"name": "query", "response": {"ok": true}}},
                {"functionResponse": {"name": "metrics", "response": {"result": "plain text"}}}
            ])
        );
    }
}
