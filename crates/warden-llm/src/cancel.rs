//! Waiting for a turn's cancellation: the flag wakes its waiters when set,
//! so a waiting call costs no timer.

use warden_protocol::CancelFlag;

/// Completes once `flag` is set; never when there is no flag.
pub async fn cancelled(flag: Option<&CancelFlag>) {
    match flag {
        Some(flag) => flag.cancelled().await,
        None => std::future::pending().await,
    }
}

pub fn is_cancelled(flag: Option<&CancelFlag>) -> bool {
    flag.is_some_and(CancelFlag::is_cancelled)
}
