//! A background thread that flushes a store every interval, for callers
//! that do not drive [`HistoryStore::flush`] themselves.

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::store::HistoryStore;

/// Flushes until dropped; dropping it stops the thread after one last
/// flush.
pub struct Flusher {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl Flusher {
    pub fn spawn(store: Arc<HistoryStore>, every: Duration) -> std::io::Result<Flusher> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let signal = stop.clone();
        let thread = std::thread::Builder::new()
            .name("history-flush".into())
            .spawn(move || {
                let (lock, wake) = &*signal;
                loop {
                    let stopped = match lock.lock() {
                        Ok(guard) => match wake.wait_timeout_while(guard, every, |s| !*s) {
                            Ok((guard, _)) => *guard,
                            Err(_) => true,
                        },
                        Err(_) => true,
                    };
                    // Errors are logged and kept in `health()` by flush.
                    let _ = store.flush();
                    if stopped {
                        return;
                    }
                }
            })?;
        Ok(Flusher {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        if let Ok(mut stopped) = lock.lock() {
            *stopped = true;
        }
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
