//! A fake OpenAI-compatible server: `GET /v1/models` and streaming
//! `POST /v1/chat/completions`, `tokens` chunks paced by `pace`, each
//! chunk's content the wall-clock microsecond it was sent.

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::response::sse::{Event, Sse};
use axum::routing::{get, post};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::json;

use crate::Flags;

fn chunks(pace: Duration, tokens: u64) -> impl Stream<Item = Result<Event, Infallible>> {
    let content = stream::iter(0..tokens).then(move |_| async move {
        tokio::time::sleep(pace).await;
        let chunk = json!({
            "id": "fake", "object": "chat.completion.chunk", "model": "fake",
            "choices": [{"index": 0, "delta": {"content": format!("t{} ", crate::now_us())}, "finish_reason": null}]
        });
        Ok(Event::default().data(chunk.to_string()))
    });
    let finish = stream::iter([
        Ok(Event::default().data(
            json!({
                "id": "fake", "object": "chat.completion.chunk", "model": "fake",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 500, "completion_tokens": tokens, "total_tokens": 500 + tokens}
            })
            .to_string(),
        )),
        Ok(Event::default().data("[DONE]")),
    ]);
    content.chain(finish)
}

pub async fn run(flags: &Flags) {
    let port = flags.number("port", 7901);
    let pace = Duration::from_millis(flags.number("pace-ms", 20));
    let tokens = flags.number("tokens", 50);
    let app = Router::new()
        .route(
            "/v1/models",
            get(|| async {
                axum::Json(json!({"object": "list", "data": [{"id": "fake", "object": "model"}]}))
            }),
        )
        .route(
            "/v1/chat/completions",
            post(move || async move { Sse::new(chunks(pace, tokens)) }),
        );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port as u16))
        .await
        .unwrap();
    println!("READY http://{}/v1", listener.local_addr().unwrap());
    axum::serve(listener, app).await.unwrap();
}
