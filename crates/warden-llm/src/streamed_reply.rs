//! One streamed model reply, whatever the wire format: send, decode,
//! enforce the reply size, and judge the ending. A reply is only returned
//! when the stream said it was complete; otherwise the answer was cut
//! short (server crash, proxy timeout, dropped connection) and must not be
//! shown or acted on as if it were whole.
//!
//! **Truncation.** A stream that ends without its finish marker, ends inside
//! a tool call (arguments that stop mid-JSON), or whose connection breaks
//! mid-body is tried once more, but only if nothing of the answer reached
//! the caller yet: streamed text cannot be taken back, and showing it twice
//! would be worse. Otherwise, or when the second try is cut short too, the
//! call fails with [`ProviderError::Truncated`]; the loop marks any partial
//! text it showed as truncated.

use serde_json::Value;

use crate::event_stream::{Flow, for_each_event};
use crate::http::{Call, HttpClient, backoff, whole_seconds};
use crate::provider::ProviderError;
use crate::sse::SseEvent;
use crate::types::{Delta, ModelReply};

/// How a stream ended, as far as its events tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The finish marker arrived and every tool call is whole.
    Complete,
    /// No `[DONE]`, `finish_reason`, stop event or `finishReason`.
    NoFinishReason,
    /// A tool call's arguments stop in the middle of their JSON.
    InsideToolCall,
}

/// A provider's view of one reply stream.
pub trait ReplyStream {
    fn on_event(
        &mut self,
        event: SseEvent,
        http: &HttpClient,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<Flow, ProviderError>;

    /// Text plus tool-call argument bytes so far (thinking is not kept).
    fn reply_bytes(&self) -> usize;

    fn ending(&self) -> Ending;

    /// The stream failed with an error the server reports for temporary
    /// overload (Anthropic's `overloaded_error`): worth a retry, like a 529.
    fn failed_from_overload(&self) -> bool {
        false
    }

    fn into_reply(self, http: &HttpClient) -> Result<ModelReply, ProviderError>;
}

/// POSTs `body` to `url` and streams the reply through a fresh state from
/// `new_state` per attempt.
pub async fn stream_reply<S: ReplyStream>(
    call: &mut Call<'_>,
    url: &str,
    headers: &[(&'static str, String)],
    body: &Value,
    mut new_state: impl FnMut() -> S,
) -> Result<ModelReply, ProviderError> {
    let http = call.http();
    let settings = http.settings();
    let mut truncation_retried = false;
    let mut overload_retries = 0;
    loop {
        let mut stream = call.post_stream(url, headers, body).await?;
        let mut state = new_state();
        let result = for_each_event(&mut stream, call, |event, on_delta| {
            let flow = state.on_event(event, http, on_delta)?;
            if state.reply_bytes() > settings.max_reply_bytes {
                return Err(http.reply_too_large(settings.max_reply_bytes));
            }
            Ok(flow)
        })
        .await;
        // Whatever happens next, this response is done with: close it.
        drop(stream);
        let problem = match result {
            Ok(()) => match state.ending() {
                Ending::Complete => return state.into_reply(http),
                Ending::NoFinishReason => "the stream ended without a finish reason".to_string(),
                Ending::InsideToolCall => "the stream ended inside a tool call".to_string(),
            },
            Err(ProviderError::Transport { message, .. }) => message,
            Err(error @ ProviderError::Stream { .. })
                if state.failed_from_overload()
                    && !call.answer_started()
                    && overload_retries < settings.max_retries =>
            {
                let delay = backoff(overload_retries);
                if !call.fits_before_deadline(delay) {
                    return Err(error);
                }
                overload_retries += 1;
                let notice = format!(
                    "{} is overloaded: retrying in {} s (attempt {} of {})",
                    http.provider(),
                    whole_seconds(delay),
                    overload_retries + 1,
                    settings.max_retries + 1
                );
                call.pause(delay, &notice).await?;
                continue;
            }
            Err(error) => return Err(error),
        };
        if truncation_retried || call.answer_started() {
            let shown = if call.answer_started() {
                " after part of the answer was shown"
            } else {
                ", twice"
            };
            return Err(http.truncated(format!("{problem}{shown}")));
        }
        truncation_retried = true;
        call.notice(&format!(
            "{} ended its answer early ({problem}): trying once more",
            http.provider()
        ));
    }
}
