//! Drives an SSE response: bytes from the transport through the decoder to
//! a provider's event handler, until the handler stops or the body ends.

use warden_protocol::CancelFlag;

use crate::http::ByteStream;
use crate::provider::ProviderError;
use crate::sse::{SseDecoder, SseEvent};

/// What a handler wants after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The stream said it is complete (`[DONE]`, `message_stop`).
    Stop,
}

/// Feeds every event to `handle`. A body that ends without the provider's
/// end marker still has its last buffered event processed (`finish`).
pub fn for_each_event(
    stream: &mut ByteStream,
    cancel: Option<&CancelFlag>,
    mut handle: impl FnMut(SseEvent) -> Result<Flow, ProviderError>,
) -> Result<(), ProviderError> {
    let mut decoder = SseDecoder::new();
    while let Some(chunk) = stream.next_chunk(cancel)? {
        for event in decoder.feed(&chunk) {
            if handle(event)? == Flow::Stop {
                return Ok(());
            }
        }
    }
    for event in decoder.finish() {
        if handle(event)? == Flow::Stop {
            break;
        }
    }
    Ok(())
}
