//! An elapsed-time line on a terminal while tool calls run ("… 3 s"), so a
//! long command never looks like a hang. It lives on stderr, redrawn in
//! place, and is erased before anything else is printed.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Redraw period; a tick only prints after the first second.
const TICK: Duration = Duration::from_millis(250);

pub struct Ticker {
    running: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    enabled: bool,
}

impl Ticker {
    pub fn for_stderr() -> Self {
        Ticker {
            running: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// Show `label` and the time since now, until [`Ticker::stop`].
    pub fn start(&mut self, label: String) {
        self.stop();
        if !self.enabled {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&stop);
        let started = Instant::now();
        let spawned = std::thread::Builder::new()
            .name("ticker".into())
            .spawn(move || {
                while !seen.load(Ordering::SeqCst) {
                    std::thread::sleep(TICK);
                    let elapsed = started.elapsed();
                    if elapsed >= Duration::from_secs(1) && !seen.load(Ordering::SeqCst) {
                        let mut err = std::io::stderr().lock();
                        let _ = write!(err, "\r\x1b[K  … {label} {} s", elapsed.as_secs());
                        let _ = err.flush();
                    }
                }
            });
        if let Ok(handle) = spawned {
            self.running = Some((stop, handle));
        }
    }

    /// Erase the line and stop redrawing.
    pub fn stop(&mut self) {
        if let Some((stop, handle)) = self.running.take() {
            stop.store(true, Ordering::SeqCst);
            let _ = handle.join();
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop();
    }
}
