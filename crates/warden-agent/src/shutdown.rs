//! A one-way switch for a clean shutdown: the binary flips it on SIGTERM or
//! SIGINT, tests flip it by hand; the agent loop and its connection watch it.

use tokio::sync::watch;

/// Flips the switch.
#[derive(Debug, Clone)]
pub struct ShutdownTrigger(watch::Sender<bool>);

/// Watches the switch.
#[derive(Debug, Clone)]
pub struct ShutdownSignal(watch::Receiver<bool>);

pub fn shutdown_channel() -> (ShutdownTrigger, ShutdownSignal) {
    let (tx, rx) = watch::channel(false);
    (ShutdownTrigger(tx), ShutdownSignal(rx))
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        self.0.send_replace(true);
    }
}

impl ShutdownSignal {
    pub fn is_triggered(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once the switch is flipped (or its trigger is gone, which
    /// also means nobody can ask for anything else any more).
    pub async fn wait(&mut self) {
        let _ = self.0.wait_for(|on| *on).await;
    }
}
