//! Drives an SSE response: bytes from the transport through the decoder to
//! a provider's event handler, until the handler stops or the body ends.

use crate::http::{ByteStream, Call, message_from_json};
use crate::provider::ProviderError;
use crate::sse::{SseDecoder, SseEvent};
use crate::types::Delta;

/// How much of a body without events is kept to explain the failure.
const MAX_KEPT_BODY: usize = 16 * 1024;

/// What a handler wants after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The event carried nothing (a ping): like an SSE comment, it does not
    /// count as data for the idle timeout.
    KeepAlive,
    /// The stream said it is complete (`[DONE]`, `message_stop`).
    Stop,
}

/// Feeds every event to `handle`, which passes deltas on through its
/// second argument. Only events that carry data reset the idle timer:
/// comments, blank lines and [`Flow::KeepAlive`] events do not.
///
/// A body that ends without the provider's end marker still has its last
/// buffered event processed (`finish`); whether it was complete is the
/// caller's judgement. A body that is not an event stream at all is an
/// error: a server (or proxy) that ignored `stream: true` or answered 200
/// with an error document must not look like an empty answer.
pub async fn for_each_event(
    stream: &mut ByteStream,
    call: &mut Call<'_>,
    mut handle: impl FnMut(SseEvent, &mut dyn FnMut(Delta<'_>)) -> Result<Flow, ProviderError>,
) -> Result<(), ProviderError> {
    let mut decoder = SseDecoder::new();
    let mut seen_event = false;
    let mut body_start: Vec<u8> = Vec::new();
    while let Some(chunk) = stream.next_chunk(call).await? {
        if !seen_event && body_start.len() < MAX_KEPT_BODY {
            body_start.extend_from_slice(&chunk[..chunk.len().min(MAX_KEPT_BODY)]);
        }
        for event in decoder.feed(&chunk) {
            seen_event = true;
            let flow = handle(event, &mut |delta| call.emit(delta))?;
            match flow {
                Flow::Continue => call.data_arrived(),
                Flow::KeepAlive => {}
                Flow::Stop => return Ok(()),
            }
        }
    }
    for event in decoder.finish() {
        seen_event = true;
        let flow = handle(event, &mut |delta| call.emit(delta))?;
        if flow == Flow::Stop {
            break;
        }
    }
    if seen_event || decoder.saw_stream_line() {
        Ok(())
    } else {
        Err(not_a_stream(call, &body_start))
    }
}

fn not_a_stream(call: &Call<'_>, body: &[u8]) -> ProviderError {
    let http = call.http();
    let text = String::from_utf8_lossy(body);
    if text.trim().is_empty() {
        return http.malformed("the response body was empty (expected an event stream)");
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(json) if json.get("error").is_some() => {
            http.stream_error(message_from_json(&json).unwrap_or_else(|| json.to_string()))
        }
        _ => http.malformed(format!("expected an event stream, got: {}", text.trim())),
    }
}
