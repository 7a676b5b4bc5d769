//! Where a live session's turn sends its events: the session's event log
//! (every SSE stream of the session reads from it), with the FSM state
//! kept for listings; approvals asked and decided also go to the
//! installation's stream, with the session they belong to.

use std::sync::Arc;

use warden_core::turn::TurnSink;
use warden_protocol::StreamEvent;

use super::installation::InstallationEvents;
use super::session::LiveSession;

pub struct StreamSink {
    live: Arc<LiveSession>,
    installation: Arc<InstallationEvents>,
}

impl StreamSink {
    pub fn new(live: Arc<LiveSession>, installation: Arc<InstallationEvents>) -> Self {
        StreamSink { live, installation }
    }
}

impl TurnSink for StreamSink {
    fn event(&mut self, event: StreamEvent) {
        if let StreamEvent::FsmState { state } = &event {
            self.live.set_fsm(*state);
        }
        if matches!(
            event,
            StreamEvent::ApprovalNeeded { .. } | StreamEvent::ApprovalResolved { .. }
        ) {
            if let Ok(serde_json::Value::Object(mut fields)) = serde_json::to_value(&event) {
                fields.insert("session_id".into(), self.live.id.clone().into());
                self.installation
                    .push(event.event_type(), serde_json::Value::Object(fields));
            }
        }
        self.live.events.push(&event);
    }
}
