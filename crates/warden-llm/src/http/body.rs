//! A response body as it arrives. Dropping it abandons the exchange: the
//! connection is closed, not returned to the pool half-read.

use std::pin::Pin;

use futures_util::{Stream, StreamExt};

use super::{Call, describe};
use crate::provider::ProviderError;

/// The most one response body may hold, keep-alives included (a runaway
/// server cannot burn CPU and memory for the whole deadline).
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Chunks as owned bytes (no direct `bytes` dependency; a model stream's
/// chunks are small).
type Chunks = Pin<Box<dyn Stream<Item = reqwest::Result<Vec<u8>>> + Send>>;

pub struct ByteStream {
    chunks: Chunks,
    /// Read while deciding whether to retry, not yet handed out.
    pending: Option<Vec<u8>>,
    finished: bool,
    received: usize,
}

/// Why reading the body stopped without a chunk.
pub enum ReadStop {
    /// The connection failed; nothing of this body was handed out yet
    /// when it happens on the first read.
    Broken(String),
    /// Cancelled, idle, past the deadline, too large: not retried.
    Stopped(ProviderError),
}

impl ByteStream {
    pub(super) fn new(response: reqwest::Response) -> Self {
        let chunks = response
            .bytes_stream()
            .map(|chunk| chunk.map(|bytes| bytes.to_vec()));
        ByteStream {
            chunks: Box::pin(chunks),
            pending: None,
            finished: false,
            received: 0,
        }
    }

    /// Reads ahead to the first body bytes (or the end), so that a
    /// connection failing before any byte can still be retried unseen.
    pub(super) async fn read_first(&mut self, call: &mut Call<'_>) -> Result<(), ReadStop> {
        match self.read(call).await? {
            Some(bytes) => self.pending = Some(bytes),
            None => self.finished = true,
        }
        Ok(())
    }

    /// The next bytes, `None` at the end of the body. A connection that
    /// breaks mid-body is [`ProviderError::Transport`].
    pub async fn next_chunk(
        &mut self,
        call: &mut Call<'_>,
    ) -> Result<Option<Vec<u8>>, ProviderError> {
        if call.is_cancelled() {
            return Err(ProviderError::Cancelled);
        }
        if let Some(bytes) = self.pending.take() {
            return Ok(Some(bytes));
        }
        if self.finished {
            return Ok(None);
        }
        match self.read(call).await {
            Ok(Some(bytes)) => Ok(Some(bytes)),
            Ok(None) => {
                self.finished = true;
                Ok(None)
            }
            Err(ReadStop::Broken(message)) => Err(call
                .http()
                .transport(format!("the connection broke mid-answer: {message}"))),
            Err(ReadStop::Stopped(error)) => Err(error),
        }
    }

    async fn read(&mut self, call: &mut Call<'_>) -> Result<Option<Vec<u8>>, ReadStop> {
        let next = call
            .wait(self.chunks.next())
            .await
            .map_err(ReadStop::Stopped)?;
        match next {
            None => Ok(None),
            Some(Ok(bytes)) => {
                self.received = self.received.saturating_add(bytes.len());
                if self.received > MAX_BODY_BYTES {
                    return Err(ReadStop::Stopped(
                        call.http().reply_too_large(MAX_BODY_BYTES),
                    ));
                }
                Ok(Some(bytes))
            }
            Some(Err(error)) => Err(ReadStop::Broken(describe(error))),
        }
    }
}
