//! Drives an SSE response: bytes from the transport through the decoder to
//! a provider's event handler, until the handler stops or the body ends.

use warden_protocol::CancelFlag;

use crate::http::{ByteStream, message_from_json, truncate};
use crate::provider::ProviderError;
use crate::sse::{SseDecoder, SseEvent};

/// How much of a body without events is kept to explain the failure.
const MAX_KEPT_BODY: usize = 16 * 1024;

/// What a handler wants after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The stream said it is complete (`[DONE]`, `message_stop`).
    Stop,
}

/// Feeds every event to `handle`. A body that ends without the provider's
/// end marker still has its last buffered event processed (`finish`). A
/// body with no event at all is an error: a server (or proxy) that ignored
/// `stream: true` or answered 200 with an error document must not look
/// like an empty answer.
pub fn for_each_event(
    stream: &mut ByteStream,
    cancel: Option<&CancelFlag>,
    mut handle: impl FnMut(SseEvent) -> Result<Flow, ProviderError>,
) -> Result<(), ProviderError> {
    let mut decoder = SseDecoder::new();
    let mut seen_event = false;
    let mut body_start: Vec<u8> = Vec::new();
    while let Some(chunk) = stream.next_chunk(cancel)? {
        if !seen_event && body_start.len() < MAX_KEPT_BODY {
            body_start.extend_from_slice(&chunk[..chunk.len().min(MAX_KEPT_BODY)]);
        }
        for event in decoder.feed(&chunk) {
            seen_event = true;
            if handle(event)? == Flow::Stop {
                return Ok(());
            }
        }
    }
    for event in decoder.finish() {
        seen_event = true;
        if handle(event)? == Flow::Stop {
            break;
        }
    }
    if seen_event {
        Ok(())
    } else {
        Err(not_a_stream(stream, &body_start))
    }
}

fn not_a_stream(stream: &ByteStream, body: &[u8]) -> ProviderError {
    let http = stream.client();
    let text = String::from_utf8_lossy(body);
    if text.trim().is_empty() {
        return http.malformed("the response body was empty (expected an event stream)");
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(json) if json.get("error").is_some() => ProviderError::Stream {
            provider: http.provider().to_string(),
            message: http.redact(&truncate(
                &message_from_json(&json).unwrap_or_else(|| json.to_string()),
                500,
            )),
        },
        _ => http.malformed(format!("expected an event stream, got: {}", text.trim())),
    }
}
