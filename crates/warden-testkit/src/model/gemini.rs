//! The Gemini `streamGenerateContent?alt=sse` stream: `data:` events, each
//! a candidate with parts; the last one carries the finish reason and the
//! usage metadata.

use serde_json::{Value, json};

use super::reply::Piece;
use super::turn::{Finish, Turn};

fn candidate(model: &str, parts: Vec<Value>) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
        "modelVersion": model})
}

/// `turn` as a stream: a chunk per text chunk, one with every function
/// call, the finish reason and usage on the last.
pub(super) fn render(turn: &Turn, model: &str) -> Vec<Piece> {
    let mut chunks: Vec<(Value, std::time::Duration)> = turn
        .text
        .iter()
        .map(|text| (candidate(model, vec![json!({"text": text})]), turn.pace))
        .collect();
    if !turn.calls.is_empty() {
        let parts = turn
            .calls
            .iter()
            .map(|call| json!({"functionCall": {"name": call.name, "args": call.arguments}}))
            .collect();
        chunks.push((candidate(model, parts), std::time::Duration::ZERO));
    }
    let reason = match turn.finish {
        Finish::CutOff => None,
        Finish::Length => Some("MAX_TOKENS"),
        Finish::Complete => Some("STOP"),
    };
    if let Some(reason) = reason {
        if chunks.is_empty() {
            chunks.push((
                candidate(model, vec![json!({"text": ""})]),
                std::time::Duration::ZERO,
            ));
        }
        if let Some((last, _)) = chunks.last_mut() {
            last["candidates"][0]["finishReason"] = reason.into();
            if let Some(usage) = turn.usage {
                last["usageMetadata"] = json!({"promptTokenCount": usage.input,
                    "candidatesTokenCount": usage.output,
                    "totalTokenCount": usage.input + usage.output});
            }
        }
    }
    chunks
        .into_iter()
        .map(|(chunk, wait)| Piece {
            wait,
            ..Piece::from(format!("data: {chunk}\n\n"))
        })
        .collect()
}
