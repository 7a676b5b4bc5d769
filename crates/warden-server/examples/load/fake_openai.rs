//! A fake OpenAI-compatible server (the testkit's): `GET /v1/models` and
//! streaming `POST /v1/chat/completions`, `tokens` chunks paced by `pace`,
//! each chunk's content the wall-clock microsecond it was sent.

use std::time::Duration;

use serde_json::json;
use warden_testkit::model::{FakeModel, Piece, Reply, Wire};

use crate::Flags;

fn chunk(delta: serde_json::Value, finish: Option<&str>, usage: Option<u64>) -> String {
    let mut body = json!({
        "id": "fake", "object": "chat.completion.chunk", "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    });
    if let Some(tokens) = usage {
        body["usage"] = json!({"prompt_tokens": 500, "completion_tokens": tokens, "total_tokens": 500 + tokens});
    }
    format!("data: {body}\n\n")
}

/// `tokens` stamped chunks, `pace` before each; then the finish with the
/// usage, and `[DONE]`.
fn stream(pace: Duration, tokens: u64) -> Reply {
    let stamped = (0..tokens).map(|_| {
        Piece::made(pace, || {
            chunk(
                json!({"content": format!("t{} ", crate::now_us())}),
                None,
                None,
            )
            .into_bytes()
        })
    });
    let finish = [
        Piece::from(chunk(json!({}), Some("stop"), Some(tokens))),
        Piece::from("data: [DONE]\n\n"),
    ];
    Reply::sse(stamped.chain(finish)).pause(Duration::ZERO)
}

pub async fn run(flags: &Flags) {
    let port = flags.number("port", 7901);
    let pace = Duration::from_millis(flags.number("pace-ms", 20));
    let tokens = flags.number("tokens", 50);
    let model = FakeModel::start_on(Wire::OpenAi, ([127, 0, 0, 1], port as u16).into());
    model.serve_models(&["fake"]);
    model.set_fallback(stream(pace, tokens));
    println!("READY {}", model.base_url());
    // The server runs on its own threads until the process is stopped.
    std::future::pending::<()>().await;
}
