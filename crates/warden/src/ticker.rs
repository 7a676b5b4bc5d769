//! An elapsed-time line on a terminal while tool calls run ("… 3 s"), so a
//! long command never looks like a hang. It lives on stderr, redrawn in
//! place, and is erased before anything else is printed. The display and
//! the approval prompt share one [`Ticker`]: a question pauses it (the line
//! is stopped and erased first, so no prompt is ever drawn over) and it
//! comes back, with the same start, once the question is answered.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Redraw period; a tick only prints after the first second.
const TICK: Duration = Duration::from_millis(250);

#[derive(Default)]
struct State {
    /// What is being waited for, and since when.
    label: Option<(String, Instant)>,
    /// The redrawing thread, while the line shows.
    drawing: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    /// Pauses in force (questions on the terminal).
    pauses: usize,
}

/// A handle on the one elapsed-time line; clones share it.
#[derive(Clone)]
pub struct Ticker {
    state: Arc<Mutex<State>>,
    enabled: bool,
}

/// While held, the line is off; dropping it brings the line back.
pub struct Paused {
    ticker: Ticker,
}

impl Drop for Paused {
    fn drop(&mut self) {
        let mut state = self.ticker.lock();
        state.pauses = state.pauses.saturating_sub(1);
        if state.pauses == 0 {
            self.ticker.draw(&mut state);
        }
    }
}

impl Ticker {
    pub fn for_stderr() -> Self {
        Ticker {
            state: Arc::new(Mutex::new(State::default())),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Show `label` and the time since now, until [`Ticker::stop`].
    pub fn start(&self, label: String) {
        let mut state = self.lock();
        erase(&mut state);
        state.label = Some((label, Instant::now()));
        self.draw(&mut state);
    }

    /// Erase the line and stop redrawing.
    pub fn stop(&self) {
        let mut state = self.lock();
        erase(&mut state);
        state.label = None;
    }

    /// Take the line off the terminal until the guard is dropped (a
    /// question is about to be asked).
    pub fn pause(&self) -> Paused {
        let mut state = self.lock();
        state.pauses += 1;
        erase(&mut state);
        Paused {
            ticker: self.clone(),
        }
    }

    fn draw(&self, state: &mut State) {
        if !self.enabled || state.pauses > 0 || state.drawing.is_some() {
            return;
        }
        let Some((label, started)) = state.label.clone() else {
            return;
        };
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&stop);
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
            state.drawing = Some((stop, handle));
        }
    }
}

/// Stop the redrawing thread (waiting for it, so no tick lands after) and
/// erase the line.
fn erase(state: &mut State) {
    if let Some((stop, handle)) = state.drawing.take() {
        stop.store(true, Ordering::SeqCst);
        let _ = handle.join();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[K");
        let _ = err.flush();
    }
}

impl Drop for State {
    fn drop(&mut self) {
        erase(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticker() -> Ticker {
        Ticker {
            state: Arc::new(Mutex::new(State::default())),
            enabled: true,
        }
    }

    fn drawing(ticker: &Ticker) -> bool {
        ticker.lock().drawing.is_some()
    }

    #[test]
    fn a_question_takes_the_line_off_and_the_answer_brings_it_back() {
        let ticker = ticker();
        ticker.start("read exec host:web1".into());
        assert!(drawing(&ticker));
        let paused = ticker.pause();
        assert!(
            !drawing(&ticker),
            "the line is off while a question is asked"
        );
        // Calls may start and end meanwhile: still nothing drawn.
        ticker.start("two calls".into());
        assert!(!drawing(&ticker));
        let again = ticker.pause();
        drop(paused);
        assert!(!drawing(&ticker), "one pause still holds");
        drop(again);
        assert!(drawing(&ticker), "back after the last answer");
        ticker.stop();
        assert!(!drawing(&ticker));
        drop(ticker.pause());
        assert!(!drawing(&ticker), "nothing to bring back after a stop");
    }
}
