//! A cancellation flag shared by everything one user turn starts: the model
//! stream, the commands on hosts and the loop itself. Ctrl-C in the CLI (or
//! `POST /api/sessions/{id}/cancel` in the server) sets it; each layer checks
//! it at its own safe points, or awaits [`CancelFlag::cancelled`], and stops
//! with a "cancelled" result instead of being killed.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    /// Tasks waiting in [`CancelFlag::cancelled`]; woken by `cancel`.
    waiters: Mutex<Vec<Waker>>,
}

#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<Inner>);

impl CancelFlag {
    pub fn new() -> Self {
        CancelFlag::default()
    }

    /// Ask everything holding a clone of this flag to stop.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        let waiters = match self.0.waiters.lock() {
            Ok(mut waiters) => std::mem::take(&mut *waiters),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        for waker in waiters {
            waker.wake();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Re-arm for the next turn.
    pub fn reset(&self) {
        self.0.cancelled.store(false, Ordering::SeqCst);
    }

    /// Completes when the flag is set (at once if it already is).
    pub fn cancelled(&self) -> Cancelled<'_> {
        Cancelled { flag: self }
    }
}

/// The future of [`CancelFlag::cancelled`].
#[derive(Debug)]
pub struct Cancelled<'a> {
    flag: &'a CancelFlag,
}

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.flag.is_cancelled() {
            return Poll::Ready(());
        }
        {
            let mut waiters = match self.flag.0.waiters.lock() {
                Ok(waiters) => waiters,
                Err(poisoned) => poisoned.into_inner(),
            };
            if !waiters.iter().any(|w| w.will_wake(cx.waker())) {
                waiters.push(cx.waker().clone());
            }
        }
        // Set between the first check and the registration: not missed.
        if self.flag.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn clones_share_the_flag() {
        let a = CancelFlag::new();
        let b = a.clone();
        assert!(!b.is_cancelled());
        a.cancel();
        assert!(b.is_cancelled());
        b.reset();
        assert!(!a.is_cancelled());
    }

    #[test]
    fn cancelled_wakes_its_waiter_once_set() {
        let flag = CancelFlag::new();
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&waker);
        let mut future = std::pin::pin!(flag.cancelled());
        assert_eq!(future.as_mut().poll(&mut cx), Poll::Pending);
        // Polling again does not register the same waker twice.
        assert_eq!(future.as_mut().poll(&mut cx), Poll::Pending);
        flag.clone().cancel();
        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        assert_eq!(future.as_mut().poll(&mut cx), Poll::Ready(()));
    }

    #[test]
    fn an_already_set_flag_is_ready_at_once() {
        let flag = CancelFlag::new();
        flag.cancel();
        let waker = Waker::from(Arc::new(CountingWaker(AtomicUsize::new(0))));
        let mut cx = Context::from_waker(&waker);
        assert_eq!(
            std::pin::pin!(flag.cancelled()).poll(&mut cx),
            Poll::Ready(())
        );
    }
}
