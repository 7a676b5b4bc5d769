//! Model calls that may block (the HTTP providers read their stream with a
//! blocking client inside the future) must not hold a runtime worker: the
//! tasks woken from that worker, the SSE streams each text delta wakes, sit
//! in its queue until the whole reply is in, and browsers get the answer in
//! one burst. On a multi-thread runtime the call runs in `block_in_place`,
//! which hands the worker's other tasks on first; elsewhere (tests on a
//! current-thread runtime) it is awaited as is.

use tokio::runtime::{Handle, RuntimeFlavor};
use warden_llm::{BoxFuture, Delta, ModelReply, ModelRequest, Provider, ProviderError};

pub struct OffTheWorker(pub Box<dyn Provider + Send>);

impl Provider for OffTheWorker {
    fn complete<'a>(
        &'a mut self,
        request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        Box::pin(async move {
            let reply = self.0.complete(request, on_delta);
            match Handle::try_current() {
                Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
                    tokio::task::block_in_place(|| handle.block_on(reply))
                }
                _ => reply.await,
            }
        })
    }

    fn identity(&self) -> (&str, &str) {
        self.0.identity()
    }

    fn last_text_is_deterministic(&self) -> bool {
        self.0.last_text_is_deterministic()
    }
}
