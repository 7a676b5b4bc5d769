//! A cancellation flag shared by everything one user turn starts: the model
//! stream, the commands on hosts and the loop itself. Ctrl-C in the CLI (or a
//! client disconnect in the server) sets it; each layer checks it at its own
//! safe points and stops with a "cancelled" result instead of being killed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn new() -> Self {
        CancelFlag::default()
    }

    /// Ask everything holding a clone of this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Re-arm for the next turn.
    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }

    /// The shared atomic, for signal handlers that set it directly.
    pub fn as_atomic(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
