//! Async work from synchronous code: the Docker client's requests during
//! inventory discovery, this machine's commands run by `LocalExecutor::run`.
//!
//! The sync callers may be in no runtime (the CLI before it starts one, a
//! plain thread), on a blocking thread of one (`spawn_blocking`, whose
//! runtime must not be blocked on from inside), or on a runtime's own
//! thread (the core's synchronous `Inventory` port, called from async
//! code). The futures need a tokio runtime with I/O and timers. So the work
//! runs on a single-threaded runtime of its own — on the calling thread
//! when that thread is in no runtime, else on a short-lived thread of its
//! own: a new thread is in no runtime, so blocking on it never panics the
//! way a `block_on` on a runtime's thread does. No runtime is kept alive
//! between calls; a thread and a runtime cost tens of microseconds, against
//! the milliseconds of what they run. [`start_in`] lets the caller go on
//! with its own work meanwhile (discovery reads `/proc` while the engine
//! answers).

use std::future::Future;
use std::io;
use std::thread::{Scope, ScopedJoinHandle};

/// Work started by [`start_in`], running on its own thread.
pub struct Pending<'scope, T> {
    thread: ScopedJoinHandle<'scope, io::Result<T>>,
}

impl<T> Pending<'_, T> {
    /// Blocks until the work is done. A panic in it is the caller's.
    pub fn wait(self) -> io::Result<T> {
        match self.thread.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// Starts `work` on a thread of `scope` with a runtime of its own; the
/// caller goes on and [`Pending::wait`]s. An error: no thread or no
/// runtime could be started.
pub fn start_in<'scope, F>(
    scope: &'scope Scope<'scope, '_>,
    work: F,
) -> io::Result<Pending<'scope, F::Output>>
where
    F: Future + Send + 'scope,
    F::Output: Send + 'scope,
{
    let thread = std::thread::Builder::new()
        .name("warden-blocking".into())
        // A new thread is in no runtime: blocking on this one is sound.
        .spawn_scoped(scope, move || Ok(own_runtime()?.block_on(work)))?;
    Ok(Pending { thread })
}

/// Runs `work` to completion from synchronous code and returns its output;
/// blocks the calling thread (async code awaits the work instead). An
/// error: no thread or no runtime could be started.
pub fn run_blocking<F>(work: F) -> io::Result<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return Ok(own_runtime()?.block_on(work));
    }
    std::thread::scope(|scope| start_in(scope, work)?.wait())
}

fn own_runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
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

    /// A `spawn_blocking` thread has its runtime's handle, but may not block
    /// on that runtime from inside.
    #[tokio::test]
    async fn runs_from_a_blocking_thread_of_a_runtime() {
        let answer = tokio::task::spawn_blocking(|| {
            run_blocking(async {
                tokio::time::sleep(Duration::from_millis(5)).await;
                "done"
            })
        })
        .await
        .unwrap();
        assert_eq!(answer.unwrap(), "done");
    }

    /// The work runs while the caller goes on: it waits for a message the
    /// caller sends only after `start_in` returned.
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
