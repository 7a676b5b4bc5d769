//! Where a live session's turn sends its events: the session's event log
//! (every SSE stream of the session reads from it), with the FSM state
//! kept for listings.

use std::sync::Arc;

use warden_core::turn::TurnSink;
use warden_protocol::StreamEvent;

use super::session::LiveSession;

pub struct StreamSink {
    live: Arc<LiveSession>,
}

impl StreamSink {
    pub fn new(live: Arc<LiveSession>) -> Self {
        StreamSink { live }
    }
}

impl TurnSink for StreamSink {
    fn event(&mut self, event: StreamEvent) {
        if let StreamEvent::FsmState { state } = &event {
            self.live.set_fsm(*state);
        }
        self.live.events.push(&event);
    }
}
