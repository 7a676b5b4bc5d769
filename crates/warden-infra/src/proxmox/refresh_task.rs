//! The background refresh of a cluster's inventory (and, after each, the
//! snapshot-feature checks of guests not asked yet); it stops when its
//! handle is dropped.

use std::sync::Arc;
use std::time::Duration;

use super::cluster::ProxmoxCluster;

impl ProxmoxCluster {
    /// Refreshes every `interval` (the first at once) until the returned
    /// guard is dropped. Failures are logged and retried at the next tick.
    pub fn spawn_refresh_task(self: &Arc<Self>, interval: Duration) -> RefreshTask {
        self.spawn_refresh_ticks(interval, Duration::ZERO)
    }

    /// [`Self::spawn_refresh_task`] for a cluster just refreshed: the first
    /// refresh comes one `interval` from now.
    pub fn spawn_later_refresh_task(self: &Arc<Self>, interval: Duration) -> RefreshTask {
        self.spawn_refresh_ticks(interval, interval)
    }

    fn spawn_refresh_ticks(self: &Arc<Self>, interval: Duration, first: Duration) -> RefreshTask {
        let cluster = Arc::clone(self);
        let interval = interval.max(Duration::from_millis(10));
        let handle = tokio::spawn(async move {
            let start = tokio::time::Instant::now() + first;
            let mut ticker = tokio::time::interval_at(start, interval);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticker.tick().await;
                match cluster.refresh().await {
                    Ok(_) => cluster.check_snapshot_support().await,
                    Err(err) => {
                        tracing::warn!(cluster = %cluster.name(), %err, "Proxmox inventory refresh failed");
                    }
                }
            }
        });
        RefreshTask { handle }
    }

    /// [`Self::spawn_refresh_task`] at the configured interval (default 30 s).
    pub fn spawn_default_refresh_task(self: &Arc<Self>) -> RefreshTask {
        self.spawn_refresh_task(self.settings().refresh_interval)
    }
}

/// The background refresh; stops when dropped.
#[derive(Debug)]
pub struct RefreshTask {
    handle: tokio::task::JoinHandle<()>,
}

impl Drop for RefreshTask {
    fn drop(&mut self) {
        self.handle.abort();
    }
}
