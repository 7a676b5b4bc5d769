//! Waiting for a turn's cancellation. [`CancelFlag`] is a plain atomic
//! today, so this polls it on a short timer; when the flag gains an async
//! `cancelled()` this helper becomes a one-line call and nothing else in
//! the crate changes.

use std::time::Duration;

use warden_protocol::CancelFlag;

/// How often the flag is looked at while a call waits.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Completes once `flag` is set; never when there is no flag.
pub async fn cancelled(flag: Option<&CancelFlag>) {
    let Some(flag) = flag else {
        return std::future::pending().await;
    };
    while !flag.is_cancelled() {
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

pub fn is_cancelled(flag: Option<&CancelFlag>) -> bool {
    flag.is_some_and(CancelFlag::is_cancelled)
}
