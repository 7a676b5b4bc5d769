//! The Anthropic messages stream: named events from `message_start` to
//! `message_stop`, one content block per text and per tool call.

use serde_json::json;

use super::reply::{Piece, sse_event};
use super::turn::{Finish, Turn};

fn event(name: &str, data: serde_json::Value) -> Piece {
    sse_event(name, &data.to_string()).into()
}

/// `turn` as a stream: `message_start` with the input tokens, a text block
/// (one delta per chunk), a `tool_use` block per call (its input in one
/// `input_json_delta`), `message_delta` with the stop reason and output
/// tokens, `message_stop`.
pub(super) fn render(turn: &Turn, model: &str, request: usize) -> Vec<Piece> {
    let input = turn.usage.map_or(0, |u| u.input);
    let mut pieces = vec![event(
        "message_start",
        json!({"type": "message_start", "message": {"id": format!("msg_{request}"), "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null,
            "usage": {"input_tokens": input, "output_tokens": 1}}}),
    )];
    let mut index = 0;
    if !turn.text.is_empty() {
        pieces.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
                "content_block": {"type": "text", "text": ""}}),
        ));
        for text in &turn.text {
            let mut piece = event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": text}}),
            );
            piece.wait = turn.pace;
            pieces.push(piece);
        }
        pieces.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for (n, call) in turn.calls.iter().enumerate() {
        let id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("toolu_{request}_{n}"));
        pieces.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
                "content_block": {"type": "tool_use", "id": id, "name": call.name, "input": {}}}),
        ));
        pieces.push(event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": call.arguments.to_string()}}),
        ));
        pieces.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    let reason = match turn.finish {
        Finish::CutOff => return pieces,
        Finish::Length => "max_tokens",
        Finish::Complete if turn.calls.is_empty() => "end_turn",
        Finish::Complete => "tool_use",
    };
    let output = turn.usage.map_or(0, |u| u.output);
    pieces.push(event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
            "usage": {"output_tokens": output}}),
    ));
    pieces.push(event("message_stop", json!({"type": "message_stop"})));
    pieces
}
