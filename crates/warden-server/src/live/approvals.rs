//! Turns that wait for a human: the approver registers a waiter for the
//! approval and sleeps (no thread) until someone decides through the API,
//! the approval expires, or the turn is cancelled.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use warden_core::agent::{Approver, Decision};
use warden_core::ports::{Approval, ApprovalState, BoxFuture};

use super::session::LiveSession;
use crate::auth::Person;
use crate::state::{AppState, now_ms};

/// How often a waiting turn re-reads its approval from the store.
const REREAD_STORE: Duration = Duration::from_secs(2);

/// Approval id → the turn waiting on it.
#[derive(Default)]
pub struct ApprovalWaiters {
    map: Mutex<HashMap<String, Arc<Notify>>>,
}

/// Removes its waiter when the wait ends, however it ends.
struct Registration<'a> {
    waiters: &'a ApprovalWaiters,
    id: String,
    notify: Arc<Notify>,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        let mut map = self
            .waiters
            .map
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if map
            .get(&self.id)
            .is_some_and(|n| Arc::ptr_eq(n, &self.notify))
        {
            map.remove(&self.id);
        }
    }
}

impl ApprovalWaiters {
    fn register(&self, id: &str) -> Registration<'_> {
        let notify = Arc::new(Notify::new());
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string(), Arc::clone(&notify));
        Registration {
            waiters: self,
            id: id.to_string(),
            notify,
        }
    }

    /// Wake the turn waiting on `id` (after its decision is in the store).
    pub fn wake(&self, id: &str) {
        let notify = self
            .map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned();
        if let Some(notify) = notify {
            notify.notify_waiters();
        }
    }

    /// Whether a live turn waits on `id` (then that turn runs it).
    pub fn is_waiting(&self, id: &str) -> bool {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The approver of a turn in a live session.
pub struct ServerApprover {
    pub app: Arc<AppState>,
    pub live: Arc<LiveSession>,
    /// The person whose message caused the request (four-eyes rule).
    pub requested_by: Person,
}

impl Approver for ServerApprover {
    fn decide<'a>(&'a mut self, approval: &'a Approval) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            if let Err(error) = self
                .app
                .store
                .record_approval_requester(&approval.id, self.requested_by.as_str())
            {
                tracing::warn!(%error, approval = %approval.id, "cannot record who asked");
            }
            self.live.set_waiting(true);
            let decision = wait(&self.app, &self.live, approval).await;
            self.live.set_waiting(false);
            decision
        })
    }
}

async fn wait(app: &AppState, live: &LiveSession, approval: &Approval) -> Decision {
    let registration = app.waiters.register(&approval.id);
    loop {
        // Enabled before the store is read: a decision written after the
        // read still wakes this wait.
        let notified = registration.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        match app.world.backends.approvals.get(&approval.id) {
            Ok(stored) if stored.state != ApprovalState::Pending => {
                return Decision::Recorded(stored.state);
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, approval = %approval.id, "approval unreadable; leaving it pending");
                return Decision::Pending;
            }
        }
        let now = now_ms();
        if now >= approval.expires_at_ms {
            // Marked expired (and audited) in the store.
            if let Err(error) = app.store.expire_approvals(now) {
                tracing::warn!(%error, approval = %approval.id, "cannot mark the approval expired");
            }
            // The loop tells the model it expired and emits `expired`.
            return Decision::Recorded(ApprovalState::Expired);
        }
        // Decisions through the API wake this at once; one made by another
        // process (`warden approvals approve`) is seen at the next re-read.
        let remaining = Duration::from_millis(approval.expires_at_ms - now).min(REREAD_STORE);
        tokio::select! {
            () = &mut notified => {}
            () = tokio::time::sleep(remaining) => {}
            () = live.cancel.cancelled() => return Decision::Pending,
        }
    }
}
