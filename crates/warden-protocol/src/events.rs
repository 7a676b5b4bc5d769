//! Stream events (SSE and CLI, DESIGN "Stream events"): each one flat JSON
//! object with `type`, `session_id` and `seq`, e.g.
//! `{"type":"content","session_id":"s1","seq":3,"text":"hi"}`. The session
//! vocabulary they carry lives in [`crate::session`] and is re-exported here.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::codes::ErrorCode;
pub use crate::session::{
    ControlLevel, FsmState, ToolKind, UnknownControlLevel, UnknownFsmState, UnknownToolKind,
};
use crate::views::ApprovalView;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    Approved,
    Denied,
    /// Nobody decided in time; the call did not run.
    Expired,
}

impl ApprovalDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalDecision::Approved => "approved",
            ApprovalDecision::Denied => "denied",
            ApprovalDecision::Expired => "expired",
        }
    }
}

impl fmt::Display for ApprovalDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One event of a session's stream (`spec/api.md`, "The session event
/// stream"): what `warden ask --json` prints, what the server's SSE stream
/// sends and what the remote CLI parses. Internally tagged by `type` so a
/// client dispatches on one field and the SSE `event:` name can match it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// A turn begins with the user's message.
    TurnStart { turn: u64, text: String },
    /// Answer text, streamed in pieces.
    Content { text: String },
    /// The model's reasoning text, for display only.
    Thinking { text: String },
    /// A tool call is about to run (after the loop accepted the proposal).
    ToolStart {
        call_id: String,
        name: String,
        arguments: Value,
        kind: ToolKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<String>,
    },
    /// A tool call finished.
    ToolEnd {
        call_id: String,
        name: String,
        ok: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_code: Option<ErrorCode>,
        /// Answered from this session's knowledge, not run again.
        #[serde(default)]
        cached: bool,
        duration_ms: u64,
        /// What the model saw (secrets redacted), at most [`MAX_TOOL_OUTPUT_BYTES`].
        #[serde(default)]
        output: String,
    },
    /// A write waits for a human (`POST /api/approvals/{id}/approve|deny`).
    ApprovalNeeded {
        // Boxed: the largest event by far, and the rarest.
        approval: Box<ApprovalView>,
    },
    /// A human (or the clock) decided an approval.
    ApprovalResolved {
        approval_id: String,
        decision: ApprovalDecision,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// The session's FSM moved.
    FsmState { state: FsmState },
    /// Tokens (and cost, when the price is known) of one model call.
    Usage {
        provider: String,
        model: String,
        input_tokens: u64,
        output_tokens: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// The turn failed, or its answer must not be taken at face value.
    /// `code` is a tool error code (`BUDGET_EXCEEDED`) or a turn-level one
    /// (`PHANTOM_DETECTED`, `MODEL_TRUNCATED`, `LOOP_DETECTED`, …).
    Error { code: String, message: String },
    /// The turn is over; nothing follows for it. `final_text` is what the
    /// user finally sees (after phantom replacement and cleanup), which may
    /// differ from the concatenated `content` pieces.
    Done {
        turn: u64,
        final_text: Option<String>,
        /// How the request was routed (absent in replays).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        route: Option<RouteSummary>,
        /// How the turn ended, for clients that report it (exit codes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<TurnOutcome>,
    },
}

/// A tool's output in a `tool_end` event is cut to this many bytes.
pub const MAX_TOOL_OUTPUT_BYTES: usize = 64 * 1024;

/// `text` cut to at most `max` bytes on a character boundary.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

impl StreamEvent {
    /// The `type` tag, e.g. for the SSE `event:` field.
    pub fn event_type(&self) -> &'static str {
        match self {
            StreamEvent::TurnStart { .. } => "turn_start",
            StreamEvent::Content { .. } => "content",
            StreamEvent::Thinking { .. } => "thinking",
            StreamEvent::ToolStart { .. } => "tool_start",
            StreamEvent::ToolEnd { .. } => "tool_end",
            StreamEvent::ApprovalNeeded { .. } => "approval_needed",
            StreamEvent::ApprovalResolved { .. } => "approval_resolved",
            StreamEvent::FsmState { .. } => "fsm_state",
            StreamEvent::Usage { .. } => "usage",
            StreamEvent::Error { .. } => "error",
            StreamEvent::Done { .. } => "done",
        }
    }
}

/// Why a turn stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEndKind {
    /// The model (or the router) answered.
    Answered,
    /// The answer claimed what no tool call showed; it was replaced.
    Retracted,
    /// A write ran but no read verified it before the turn ended.
    Unverified,
    Cancelled,
    /// The model kept proposing the same call.
    LoopDetected,
    /// Several replies in a row whose every tool call failed.
    FailingCalls,
    BudgetExceeded,
    /// The model failed (unreachable, truncated, rate-limited, …).
    ModelFailed,
    /// The model-call limit for one message was reached without an answer.
    ModelCallLimit,
    /// Replay only: the script had no more replies.
    ScriptExhausted,
}

/// How a turn ended and what it left behind: the one reading every client
/// (the terminal, `ask`'s exit code, the JSON stream, the remote CLI) takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnOutcome {
    pub end: TurnEndKind,
    /// Approval requests this turn left open.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending_approvals: Vec<String>,
    /// Writes refused this turn: denied, expired, or blocked by policy.
    #[serde(default)]
    pub refused_writes: u32,
    /// A read or write the answer rests on failed.
    #[serde(default)]
    pub failed_calls: bool,
}

/// Which routing stage handled a request and how long routing took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteSummary {
    /// `fast_path`, `parser`, `heuristic`, `llm` or `unmatched`.
    pub stage: String,
    /// The intent (`metric`, `logs`, `control`, …), `llm` or `unmatched`.
    pub route: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Recognising and planning the request, in microseconds.
    pub routing_us: u64,
}

/// A stream event with its session and sequence number. `seq` increases by
/// one per event within a session so a reconnecting client can resume and
/// spot gaps; the event's fields are flattened next to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventEnvelope {
    pub session_id: String,
    pub seq: u64,
    #[serde(flatten)]
    pub event: StreamEvent,
}

impl EventEnvelope {
    pub fn new(session_id: impl Into<String>, seq: u64, event: StreamEvent) -> Self {
        EventEnvelope {
            session_id: session_id.into(),
            seq,
            event,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Serialises `event` in an envelope, compares with `expected` (the
    /// event's own fields), and parses it back.
    fn check(event: StreamEvent, expected: Value) {
        let envelope = EventEnvelope::new("s1", 7, event);
        let mut want = json!({"session_id": "s1", "seq": 7});
        if let (Some(w), Some(e)) = (want.as_object_mut(), expected.as_object()) {
            w.extend(e.clone());
        }
        let got = serde_json::to_value(&envelope).unwrap();
        assert_eq!(got, want);
        assert_eq!(got["type"], envelope.event.event_type());
        let back: EventEnvelope = serde_json::from_value(got).unwrap();
        assert_eq!(back, envelope);
        let text = serde_json::to_string(&envelope).unwrap();
        assert_eq!(
            serde_json::from_str::<EventEnvelope>(&text).unwrap(),
            envelope
        );
    }

    #[test]
    fn turn_start_content_and_thinking() {
        check(
            StreamEvent::TurnStart {
                turn: 2,
                text: "disk usage".into(),
            },
            json!({"type": "turn_start", "turn": 2, "text": "disk usage"}),
        );
        check(
            StreamEvent::Content { text: "hi".into() },
            json!({"type": "content", "text": "hi"}),
        );
        check(
            StreamEvent::Thinking { text: "hmm".into() },
            json!({"type": "thinking", "text": "hmm"}),
        );
    }

    #[test]
    fn tool_start_and_end_use_the_names_of_the_spec() {
        check(
            StreamEvent::ToolStart {
                call_id: "c1".into(),
                name: "read".into(),
                arguments: json!({"action": "exec", "target": "host:web1", "command": "uptime"}),
                kind: ToolKind::Read,
                target: Some("host:web1".into()),
            },
            json!({
                "type": "tool_start",
                "call_id": "c1",
                "name": "read",
                "arguments": {"action": "exec", "target": "host:web1", "command": "uptime"},
                "kind": "read",
                "target": "host:web1"
            }),
        );
        check(
            StreamEvent::ToolEnd {
                call_id: "c1".into(),
                name: "control".into(),
                ok: false,
                error_code: Some(ErrorCode::ApprovalRequired),
                cached: false,
                duration_ms: 2,
                output: "{}".into(),
            },
            json!({
                "type": "tool_end",
                "call_id": "c1",
                "name": "control",
                "ok": false,
                "error_code": "APPROVAL_REQUIRED",
                "cached": false,
                "duration_ms": 2,
                "output": "{}"
            }),
        );
        check(
            StreamEvent::ToolEnd {
                call_id: "c2".into(),
                name: "read".into(),
                ok: true,
                error_code: None,
                cached: true,
                duration_ms: 40,
                output: String::new(),
            },
            json!({"type": "tool_end", "call_id": "c2", "name": "read", "ok": true, "cached": true, "duration_ms": 40, "output": ""}),
        );
    }

    #[test]
    fn approvals() {
        let approval: crate::Approval = serde_json::from_value(json!({
            "id": "a1", "session_id": "s1", "tool": "control", "target": "lxc:pve1:141",
            "arguments_hash": "ab", "arguments": {"action": "service"},
            "command": "systemctl restart homepage", "risk": "medium",
            "description": "restart homepage", "created_at_ms": 0, "expires_at_ms": 1000,
            "state": "pending", "reason": null
        }))
        .unwrap();
        let view = ApprovalView::of(&approval, 0);
        check(
            StreamEvent::ApprovalNeeded {
                approval: Box::new(view.clone()),
            },
            json!({"type": "approval_needed", "approval": serde_json::to_value(&view).unwrap()}),
        );
        check(
            StreamEvent::ApprovalResolved {
                approval_id: "a1".into(),
                decision: ApprovalDecision::Denied,
                by: Some("user:alice".into()),
            },
            json!({"type": "approval_resolved", "approval_id": "a1", "decision": "denied", "by": "user:alice"}),
        );
        check(
            StreamEvent::ApprovalResolved {
                approval_id: "a2".into(),
                decision: ApprovalDecision::Expired,
                by: None,
            },
            json!({"type": "approval_resolved", "approval_id": "a2", "decision": "expired"}),
        );
        for d in [
            ApprovalDecision::Approved,
            ApprovalDecision::Denied,
            ApprovalDecision::Expired,
        ] {
            assert_eq!(serde_json::to_value(d).unwrap(), json!(d.as_str()));
            assert_eq!(d.to_string(), d.as_str());
        }
    }

    #[test]
    fn fsm_usage_error_done() {
        check(
            StreamEvent::FsmState {
                state: FsmState::Verifying,
            },
            json!({"type": "fsm_state", "state": "VERIFYING"}),
        );
        check(
            StreamEvent::Usage {
                provider: "anthropic".into(),
                model: "claude".into(),
                input_tokens: 1200,
                output_tokens: 80,
                cost_usd: Some(0.0042),
            },
            json!({
                "type": "usage",
                "provider": "anthropic",
                "model": "claude",
                "input_tokens": 1200,
                "output_tokens": 80,
                "cost_usd": 0.0042
            }),
        );
        check(
            StreamEvent::Error {
                code: ErrorCode::BudgetExceeded.as_str().to_string(),
                message: "budget spent".into(),
            },
            json!({"type": "error", "code": "BUDGET_EXCEEDED", "message": "budget spent"}),
        );
        check(
            StreamEvent::Done {
                turn: 1,
                final_text: None,
                route: None,
                outcome: None,
            },
            json!({"type": "done", "turn": 1, "final_text": null}),
        );
        check(
            StreamEvent::Done {
                turn: 3,
                final_text: Some("ok".into()),
                route: Some(RouteSummary {
                    stage: "fast_path".into(),
                    route: "metric".into(),
                    target: Some("host:web1".into()),
                    routing_us: 12,
                }),
                outcome: Some(TurnOutcome {
                    end: TurnEndKind::Answered,
                    pending_approvals: vec!["a1".into()],
                    refused_writes: 0,
                    failed_calls: false,
                }),
            },
            json!({"type": "done", "turn": 3, "final_text": "ok",
                   "route": {"stage": "fast_path", "route": "metric", "target": "host:web1", "routing_us": 12},
                   "outcome": {"end": "answered", "pending_approvals": ["a1"], "refused_writes": 0, "failed_calls": false}}),
        );
    }

    #[test]
    fn bare_events_parse_without_an_envelope() {
        let e: StreamEvent =
            serde_json::from_value(json!({"type": "done", "turn": 1, "final_text": null})).unwrap();
        assert_eq!(
            e,
            StreamEvent::Done {
                turn: 1,
                final_text: None,
                route: None,
                outcome: None,
            }
        );
        assert!(serde_json::from_value::<StreamEvent>(json!({"type": "nope"})).is_err());
        assert!(
            serde_json::from_value::<EventEnvelope>(json!({"type": "done", "turn": 1, "seq": 1}))
                .is_err(),
            "session_id is required"
        );
    }

    #[test]
    fn clip_respects_character_boundaries() {
        assert_eq!(clip("héllo", 2), "h");
        assert_eq!(clip("héllo", 3), "hé");
        assert_eq!(clip("abc", 10), "abc");
    }
}
