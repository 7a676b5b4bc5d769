//! The OpenAI-compatible chat completions stream (`data: {chunk}` events,
//! then `data: [DONE]`), and chunk helpers for tests that write streams by
//! hand.

use serde_json::{Value, json};

use super::reply::{Piece, Reply, sse_data};
use super::turn::{Finish, Turn};

/// One stream chunk as the llm tests write it (`delta` and `finish` are
/// JSON: `{"content":"hi"}`, `null`, `"stop"`).
pub fn openai_chunk(delta: &str, finish: &str) -> String {
    format!(
        r#"{{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{delta},"finish_reason":{finish}}}]}}"#
    )
}

/// A chunk with text content.
pub fn openai_text(content: &str) -> String {
    openai_chunk(&json!({"content": content}).to_string(), "null")
}

/// A complete stream answering "hello".
pub fn openai_hello() -> Reply {
    Reply::sse([sse_data(&[
        &openai_text("hello"),
        &openai_chunk("{}", r#""stop""#),
        "[DONE]",
    ])])
}

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> String {
    let body = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    format!("data: {body}\n\n")
}

/// `turn` as a stream: the role, the text chunks, the tool calls (each
/// whole, in one chunk), the finish reason, the usage, `[DONE]`.
pub(super) fn render(turn: &Turn, model: &str, request: usize) -> Vec<Piece> {
    let mut pieces: Vec<Piece> = vec![chunk(model, json!({"role": "assistant"}), None).into()];
    for text in &turn.text {
        let mut piece = Piece::from(chunk(model, json!({"content": text}), None));
        piece.wait = turn.pace;
        pieces.push(piece);
    }
    if !turn.calls.is_empty() {
        let calls: Vec<Value> = turn
            .calls
            .iter()
            .enumerate()
            .map(|(index, call)| {
                let id = call
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{request}_{index}"));
                json!({
                    "index": index, "id": id, "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments.to_string()},
                })
            })
            .collect();
        pieces.push(chunk(model, json!({"tool_calls": calls}), None).into());
    }
    let reason = match turn.finish {
        Finish::CutOff => return pieces,
        Finish::Length => "length",
        Finish::Complete if turn.calls.is_empty() => "stop",
        Finish::Complete => "tool_calls",
    };
    pieces.push(chunk(model, json!({}), Some(reason)).into());
    if let Some(usage) = turn.usage {
        let body = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": usage.input, "completion_tokens": usage.output,
                      "total_tokens": usage.input + usage.output}});
        pieces.push(format!("data: {body}\n\n").into());
    }
    pieces.push("data: [DONE]\n\n".into());
    pieces
}

/// `GET /v1/models` listing these ids.
pub fn models_list(ids: &[&str]) -> Reply {
    let data: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model"}))
        .collect();
    Reply::json(200, &json!({"object": "list", "data": data}).to_string())
}
