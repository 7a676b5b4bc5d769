//! The loop's events as the session's stream events, plus what the server
//! records on the way: usage in the store, tool durations and tokens in
//! the metrics, the FSM state for listings.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use warden_core::agent::provider::Delta;
use warden_core::agent::{EventSink, LoopEvent};
use warden_protocol::{ApprovalDecision, ToolResponse};
use warden_store::UsageRow;

use super::events::{MAX_OUTPUT_BYTES, SessionEvent, clip};
use super::session::LiveSession;
use crate::api::ApprovalView;
use crate::state::{AppState, now_ms};

/// A finished call whose output has not arrived yet (the loop reports the
/// result, then the full response).
struct PendingEnd {
    index: usize,
    call_id: String,
    name: String,
    ok: bool,
    error_code: Option<String>,
    cached: bool,
    duration_ms: u64,
}

pub struct StreamSink {
    app: Arc<AppState>,
    live: Arc<LiveSession>,
    started: HashMap<usize, (Instant, &'static str)>,
    pending: Option<PendingEnd>,
    /// Usage of this turn's model calls, stored when the turn ends.
    pub usage: Vec<UsageRow>,
}

impl StreamSink {
    pub fn new(app: Arc<AppState>, live: Arc<LiveSession>) -> Self {
        StreamSink {
            app,
            live,
            started: HashMap::new(),
            pending: None,
            usage: Vec::new(),
        }
    }

    fn push(&self, event: SessionEvent) {
        self.live.events.push(&event);
    }

    /// Send a result still waiting for its output (without it).
    pub fn flush(&mut self) {
        if let Some(end) = self.pending.take() {
            self.push_end(end, String::new());
        }
    }

    fn push_end(&self, end: PendingEnd, output: String) {
        self.push(SessionEvent::ToolEnd {
            call_id: end.call_id,
            name: end.name,
            ok: end.ok,
            error_code: end.error_code,
            cached: end.cached,
            duration_ms: end.duration_ms,
            output,
        });
    }

    fn approval_view(&self, id: &str) -> Option<ApprovalView> {
        let approval = self.app.store.approval(id).ok().flatten()?;
        let people = self.app.store.approval_people(id).unwrap_or_default();
        Some(ApprovalView::of(&approval, &people, now_ms()))
    }
}

/// Text and thinking deltas as `content` and `thinking` events.
pub fn push_delta(live: &LiveSession, delta: Delta<'_>) {
    match delta {
        Delta::Text(text) => {
            live.events.push(&SessionEvent::Content {
                text: text.to_string(),
            });
        }
        Delta::Thinking(text) => {
            live.events.push(&SessionEvent::Thinking {
                text: text.to_string(),
            });
        }
        // Transport progress ("retrying in 2 s") is for terminals.
        Delta::Notice(_) => {}
    }
}

impl EventSink for StreamSink {
    fn emit(&mut self, event: LoopEvent) {
        self.flush();
        match event {
            LoopEvent::ToolCall {
                index,
                call_id,
                name,
                arguments,
                kind,
                ..
            } => {
                self.started.insert(index, (Instant::now(), kind.as_str()));
                let target = arguments
                    .get("target")
                    .and_then(|t| t.as_str())
                    .map(str::to_string);
                self.push(SessionEvent::ToolStart {
                    call_id,
                    name,
                    arguments,
                    kind: kind.as_str(),
                    target,
                });
            }
            LoopEvent::ToolResult {
                index,
                call_id,
                name,
                ok,
                error_code,
                cached,
                ..
            } => {
                let (elapsed, kind) = self
                    .started
                    .remove(&index)
                    .map(|(t, kind)| (t.elapsed(), kind))
                    .unwrap_or_default();
                crate::metrics::tool_finished(&name, kind, ok, elapsed);
                self.pending = Some(PendingEnd {
                    index,
                    call_id,
                    name,
                    ok,
                    error_code: error_code.map(|c| c.as_str().to_string()),
                    cached,
                    duration_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
                });
            }
            LoopEvent::ApprovalNeeded { approval_id, .. } => {
                if let Some(approval) = self.approval_view(&approval_id) {
                    self.push(SessionEvent::ApprovalNeeded {
                        approval: Box::new(approval),
                    });
                }
            }
            LoopEvent::ApprovalResolved {
                approval_id,
                decision,
            } => {
                let by = match decision {
                    ApprovalDecision::Approved | ApprovalDecision::Denied => self
                        .app
                        .store
                        .approval(&approval_id)
                        .ok()
                        .flatten()
                        .and_then(|a| a.decided_by),
                    ApprovalDecision::Expired => None,
                };
                self.push(SessionEvent::ApprovalResolved {
                    approval_id,
                    decision: decision.as_str(),
                    by,
                });
            }
            LoopEvent::FsmState { state } => {
                self.live.set_fsm(state);
                self.push(SessionEvent::FsmState {
                    state: state.as_str(),
                });
            }
            LoopEvent::Usage {
                provider,
                model,
                input_tokens,
                output_tokens,
                cost_usd,
            } => {
                crate::metrics::tokens(&provider, &model, input_tokens, output_tokens);
                let row = UsageRow {
                    session_id: self.live.id.clone(),
                    provider: provider.clone(),
                    model: model.clone(),
                    input_tokens,
                    output_tokens,
                    cost_usd,
                    at_ms: now_ms(),
                };
                // Stored with the turn's messages, off the async workers.
                self.usage.push(row);
                self.push(SessionEvent::Usage {
                    provider,
                    model,
                    input_tokens,
                    output_tokens,
                    cost_usd,
                });
            }
            LoopEvent::PhantomDetected => self.push(SessionEvent::Error {
                code: "PHANTOM_DETECTED".to_string(),
                message: "the answer claimed results that no tool call showed; it was replaced (see done.final_text)".to_string(),
            }),
            LoopEvent::Exec { .. }
            | LoopEvent::AutoRewrite { .. }
            | LoopEvent::ScriptExhausted
            | LoopEvent::AssistantText { .. } => {}
        }
    }

    fn tool_output(
        &mut self,
        index: usize,
        _response: &ToolResponse,
        model_sees: &serde_json::Value,
    ) {
        match self.pending.take() {
            Some(end) if end.index == index => {
                // What the model saw: secrets redacted.
                let output = model_sees.to_string();
                self.push_end(end, clip(&output, MAX_OUTPUT_BYTES));
            }
            other => {
                self.pending = other;
                self.flush();
            }
        }
    }
}
