//! Docker requests from synchronous code.
//!
//! Inventory discovery is synchronous (`LocalInventory::resources`, the
//! agent's snapshot): callers run it on a blocking thread
//! (`spawn_blocking`) or before any runtime exists (the CLI). A request is a
//! future that needs a tokio runtime with I/O and timers; the calling thread
//! may be in no runtime, or in one (a `spawn_blocking` thread, whose runtime
//! must not be blocked on from inside). So each request from sync code runs
//! on a short-lived thread of its own, with a single-threaded runtime of its
//! own: sound whatever the caller's context, with no runtime to keep alive
//! between discoveries. Both cost tens of microseconds, against the
//! milliseconds of a discovery.

use std::future::Future;
use std::thread::{Scope, ScopedJoinHandle};

use super::DockerError;

/// A request started by [`start_in`], running on its own thread.
pub struct PendingRequest<'scope, T> {
    thread: ScopedJoinHandle<'scope, Result<T, DockerError>>,
}

impl<T> PendingRequest<'_, T> {
    /// Blocks until the request is done. A panic in it is the caller's.
    pub fn wait(self) -> Result<T, DockerError> {
        match self.thread.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// Starts `request` on a thread of `scope` with a runtime of its own; the
/// caller goes on (with other discovery) and [`PendingRequest::wait`]s.
pub fn start_in<'scope, F>(
    scope: &'scope Scope<'scope, '_>,
    request: F,
) -> Result<PendingRequest<'scope, F::Output>, DockerError>
where
    F: Future + Send + 'scope,
    F::Output: Send + 'scope,
{
    let thread = std::thread::Builder::new()
        .name("warden-docker".into())
        .spawn_scoped(scope, move || {
            // A new thread is in no runtime: blocking on this one is sound.
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .enable_time()
                .build()
                .map_err(|source| DockerError::Runtime { source })?;
            Ok(runtime.block_on(request))
        })
        .map_err(|source| DockerError::Runtime { source })?;
    Ok(PendingRequest { thread })
}

/// Runs `request` to completion from synchronous code (see the module
/// docs). Blocks the calling thread: async code awaits the request instead.
pub fn run_blocking<F>(request: F) -> Result<F::Output, DockerError>
where
    F: Future + Send,
    F::Output: Send,
{
    std::thread::scope(|scope| start_in(scope, request)?.wait())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn runs_outside_any_runtime() {
        let slept = run_blocking(async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            7
        });
        assert_eq!(slept.unwrap(), 7);
    }

    /// Where `Runtime::block_on` would panic ("cannot start a runtime from
    /// within a runtime"): on a worker of a running runtime.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn runs_from_inside_a_runtime_worker() {
        let borrowed = String::from("borrowed, not moved");
        let len = run_blocking(async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            borrowed.len()
        });
        assert_eq!(len.unwrap(), borrowed.len());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn runs_from_inside_a_current_thread_runtime() {
        assert_eq!(run_blocking(async { 1 + 1 }).unwrap(), 2);
    }

    /// The request runs while the caller goes on: it waits for a message
    /// the caller sends only after `start_in` returned.
    #[test]
    fn overlaps_with_the_callers_own_work() {
        let (tell, told) = tokio::sync::oneshot::channel::<u32>();
        let answer = std::thread::scope(|scope| {
            let pending = start_in(scope, async {
                tokio::time::timeout(Duration::from_secs(10), told).await
            })
            .unwrap();
            tell.send(41).unwrap();
            pending.wait().unwrap()
        });
        assert_eq!(answer.unwrap().unwrap(), 41);
    }
}
