//! The loop's events as the stream's events (`spec/api.md`): the one place
//! where what the loop did becomes what every client sees. `warden ask
//! --json`, the server's SSE stream and the terminal all receive these
//! [`StreamEvent`]s through a [`TurnSink`].

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;
use warden_protocol::views::ApprovalView;
use warden_protocol::{
    ApprovalDecision, ErrorCode, MAX_TOOL_OUTPUT_BYTES, StreamEvent, ToolKind, ToolResponse, clip,
};

use crate::agent::provider::Delta;
use crate::agent::{EventSink, LoopEvent};
use crate::ports::{ApprovalStore, UsageRecord};

/// Where a turn's events go. Events arrive in the order things happened.
pub trait TurnSink: Send {
    /// One stream event (also every `content` and `thinking` piece).
    fn event(&mut self, event: StreamEvent);

    /// The full response of a tool call, before redaction, for the
    /// operator's own terminal. Streams to elsewhere never get it.
    fn raw_output(&mut self, _call_id: &str, _response: &ToolResponse) {}

    /// Transport progress ("retrying in 2 s") for people at a terminal.
    fn notice(&mut self, _text: &str) {}

    /// What the stream does not carry (commands run, rewrites applied), for
    /// verbose terminals.
    fn detail(&mut self, _event: &LoopEvent) {}
}

/// A sink that keeps the events (tests, Patrol's triage).
impl TurnSink for Vec<StreamEvent> {
    fn event(&mut self, event: StreamEvent) {
        self.push(event);
    }
}

/// A finished call whose output has not arrived yet (the loop reports the
/// result, then the full response).
struct PendingEnd {
    index: usize,
    call_id: String,
    name: String,
    ok: bool,
    error_code: Option<ErrorCode>,
    cached: bool,
    duration_ms: u64,
}

/// Translates the loop's events for a [`TurnSink`], timing tool calls and
/// collecting the turn's usage for the store.
pub(crate) struct StreamAdapter<'s> {
    sink: &'s mut dyn TurnSink,
    approvals: &'s dyn ApprovalStore,
    session_id: &'s str,
    now_ms: fn() -> u64,
    started: HashMap<usize, (Instant, ToolKind)>,
    pending: Option<PendingEnd>,
    pub usage: Vec<UsageRecord>,
}

impl<'s> StreamAdapter<'s> {
    pub fn new(
        sink: &'s mut dyn TurnSink,
        approvals: &'s dyn ApprovalStore,
        session_id: &'s str,
        now_ms: fn() -> u64,
    ) -> Self {
        StreamAdapter {
            sink,
            approvals,
            session_id,
            now_ms,
            started: HashMap::new(),
            pending: None,
            usage: Vec::new(),
        }
    }

    pub fn sink(&mut self) -> &mut dyn TurnSink {
        self.flush();
        &mut *self.sink
    }

    /// Text and thinking as they stream.
    pub fn delta(&mut self, delta: Delta<'_>) {
        self.flush();
        match delta {
            Delta::Text(text) => self.sink.event(StreamEvent::Content {
                text: text.to_string(),
            }),
            Delta::Thinking(text) => self.sink.event(StreamEvent::Thinking {
                text: text.to_string(),
            }),
            Delta::Notice(text) => self.sink.notice(text),
        }
    }

    /// Send a result still waiting for its output (without it).
    pub fn flush(&mut self) {
        if let Some(end) = self.pending.take() {
            self.send_end(end, String::new());
        }
    }

    fn send_end(&mut self, end: PendingEnd, output: String) {
        self.sink.event(StreamEvent::ToolEnd {
            call_id: end.call_id,
            name: end.name,
            ok: end.ok,
            error_code: end.error_code,
            cached: end.cached,
            duration_ms: end.duration_ms,
            output,
        });
    }
}

/// The adapter behind a lock, shared by the loop's events and its deltas.
pub(crate) struct Shared<'a, 's>(pub &'a std::sync::Mutex<StreamAdapter<'s>>);

pub(crate) fn lock<'a, 's>(
    adapter: &'a std::sync::Mutex<StreamAdapter<'s>>,
) -> std::sync::MutexGuard<'a, StreamAdapter<'s>> {
    adapter
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl EventSink for Shared<'_, '_> {
    fn emit(&mut self, event: LoopEvent) {
        lock(self.0).emit(event);
    }

    fn tool_output(&mut self, index: usize, response: &ToolResponse, model_sees: &Value) {
        lock(self.0).tool_output(index, response, model_sees);
    }
}

impl EventSink for StreamAdapter<'_> {
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
                self.started.insert(index, (Instant::now(), kind));
                let target = arguments
                    .get("target")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                self.sink.event(StreamEvent::ToolStart {
                    call_id,
                    name,
                    arguments,
                    kind,
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
                    .map(|(at, kind)| (at.elapsed(), kind))
                    .unwrap_or((std::time::Duration::ZERO, ToolKind::Read));
                crate::telemetry::tool_finished(&name, kind, ok, elapsed);
                self.pending = Some(PendingEnd {
                    index,
                    call_id,
                    name,
                    ok,
                    error_code,
                    cached,
                    duration_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
                });
            }
            LoopEvent::ApprovalNeeded { approval_id, .. } => {
                if let Ok(approval) = self.approvals.get(&approval_id) {
                    let view = ApprovalView::of(&approval, (self.now_ms)());
                    self.sink.event(StreamEvent::ApprovalNeeded {
                        approval: Box::new(view),
                    });
                }
            }
            LoopEvent::ApprovalResolved {
                approval_id,
                decision,
            } => {
                let by = match decision {
                    ApprovalDecision::Approved | ApprovalDecision::Denied => self
                        .approvals
                        .get(&approval_id)
                        .ok()
                        .and_then(|a| a.decided_by),
                    ApprovalDecision::Expired => None,
                };
                self.sink.event(StreamEvent::ApprovalResolved {
                    approval_id,
                    decision,
                    by,
                });
            }
            LoopEvent::FsmState { state } => self.sink.event(StreamEvent::FsmState { state }),
            LoopEvent::Usage {
                provider,
                model,
                input_tokens,
                output_tokens,
                cost_usd,
            } => {
                crate::telemetry::tokens(&provider, &model, input_tokens, output_tokens);
                self.usage.push(UsageRecord {
                    session_id: self.session_id.to_string(),
                    provider: provider.clone(),
                    model: model.clone(),
                    input_tokens,
                    output_tokens,
                    cost_usd,
                    at_ms: (self.now_ms)(),
                });
                self.sink.event(StreamEvent::Usage {
                    provider,
                    model,
                    input_tokens,
                    output_tokens,
                    cost_usd,
                });
            }
            LoopEvent::PhantomDetected => self.sink.event(StreamEvent::Error {
                code: "PHANTOM_DETECTED".to_string(),
                message: "the answer claimed results that no tool call showed; it was replaced (see done.final_text)".to_string(),
            }),
            LoopEvent::AnswerUnverified { facts, .. } => self.sink.event(StreamEvent::Error {
                code: "ANSWER_UNVERIFIED".to_string(),
                message: format!(
                    "unverified: no tool result of this turn shows {}",
                    facts.join("; ")
                ),
            }),
            event @ (LoopEvent::Exec { .. } | LoopEvent::AutoRewrite { .. }) => {
                self.sink.detail(&event)
            }
            LoopEvent::ScriptExhausted | LoopEvent::AssistantText { .. } => {}
        }
    }

    fn tool_output(&mut self, index: usize, response: &ToolResponse, model_sees: &Value) {
        match self.pending.take() {
            Some(end) if end.index == index => {
                self.sink.raw_output(&end.call_id, response);
                // What the model saw: secrets redacted.
                let output = clip(&model_sees.to_string(), MAX_TOOL_OUTPUT_BYTES);
                self.send_end(end, output);
            }
            other => {
                self.pending = other;
                self.flush();
            }
        }
    }
}
