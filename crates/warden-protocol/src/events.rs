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

/// One event of a session's stream. Internally tagged by `type` so that
/// a client dispatches on one field and the SSE `event:` name can match it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// Answer text, streamed in pieces.
    Content { text: String },
    /// The model's reasoning text, for display only.
    Thinking { text: String },
    /// A tool call is about to run (after the executor admitted it).
    ToolStart {
        call_id: String,
        tool: String,
        arguments: Value,
        kind: ToolKind,
    },
    /// A tool call finished; `error_code` is `null` on success.
    ToolEnd {
        call_id: String,
        tool: String,
        ok: bool,
        error_code: Option<ErrorCode>,
        duration_ms: u64,
    },
    /// A write waits for a human (`POST /api/approvals/{id}/approve|deny`).
    ApprovalNeeded {
        approval_id: String,
        tool: String,
        target: String,
        command: String,
        risk: String,
        description: String,
    },
    /// A human (or the clock) decided an approval.
    ApprovalResolved {
        approval_id: String,
        decision: ApprovalDecision,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
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
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        message: String,
    },
    /// The turn is over; nothing follows for it. `final_text` is what the
    /// user finally sees (after phantom replacement and cleanup), which may
    /// differ from the concatenated `content` pieces.
    Done {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        final_text: Option<String>,
        /// How the request was routed (CLI and server; absent in replays).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        route: Option<RouteSummary>,
    },
}

impl StreamEvent {
    /// The `type` tag, e.g. for the SSE `event:` field.
    pub fn event_type(&self) -> &'static str {
        match self {
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
    fn content_and_thinking() {
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
    fn tool_start_and_end() {
        check(
            StreamEvent::ToolStart {
                call_id: "c1".into(),
                tool: "read".into(),
                arguments: json!({"action": "exec", "target": "host:web1", "command": "uptime"}),
                kind: ToolKind::Read,
            },
            json!({
                "type": "tool_start",
                "call_id": "c1",
                "tool": "read",
                "arguments": {"action": "exec", "target": "host:web1", "command": "uptime"},
                "kind": "read"
            }),
        );
        check(
            StreamEvent::ToolEnd {
                call_id: "c1".into(),
                tool: "control".into(),
                ok: false,
                error_code: Some(ErrorCode::ApprovalRequired),
                duration_ms: 2,
            },
            json!({
                "type": "tool_end",
                "call_id": "c1",
                "tool": "control",
                "ok": false,
                "error_code": "APPROVAL_REQUIRED",
                "duration_ms": 2
            }),
        );
        check(
            StreamEvent::ToolEnd {
                call_id: "c2".into(),
                tool: "read".into(),
                ok: true,
                error_code: None,
                duration_ms: 40,
            },
            json!({"type": "tool_end", "call_id": "c2", "tool": "read", "ok": true, "error_code": null, "duration_ms": 40}),
        );
    }

    #[test]
    fn approvals() {
        check(
            StreamEvent::ApprovalNeeded {
                approval_id: "a1".into(),
                tool: "control".into(),
                target: "lxc:pve1:141".into(),
                command: "systemctl restart homepage".into(),
                risk: "medium".into(),
                description: "restart homepage".into(),
            },
            json!({
                "type": "approval_needed",
                "approval_id": "a1",
                "tool": "control",
                "target": "lxc:pve1:141",
                "command": "systemctl restart homepage",
                "risk": "medium",
                "description": "restart homepage"
            }),
        );
        check(
            StreamEvent::ApprovalResolved {
                approval_id: "a1".into(),
                decision: ApprovalDecision::Denied,
                reason: Some("not now".into()),
            },
            json!({"type": "approval_resolved", "approval_id": "a1", "decision": "denied", "reason": "not now"}),
        );
        check(
            StreamEvent::ApprovalResolved {
                approval_id: "a2".into(),
                decision: ApprovalDecision::Expired,
                reason: None,
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
            StreamEvent::Usage {
                provider: "ollama".into(),
                model: "qwen".into(),
                input_tokens: 0,
                output_tokens: 0,
                cost_usd: None,
            },
            json!({"type": "usage", "provider": "ollama", "model": "qwen", "input_tokens": 0, "output_tokens": 0}),
        );
        check(
            StreamEvent::Error {
                code: Some(ErrorCode::BudgetExceeded.as_str().to_string()),
                message: "budget spent".into(),
            },
            json!({"type": "error", "code": "BUDGET_EXCEEDED", "message": "budget spent"}),
        );
        check(
            StreamEvent::Error {
                code: None,
                message: "provider closed the stream".into(),
            },
            json!({"type": "error", "message": "provider closed the stream"}),
        );
        check(
            StreamEvent::Done {
                final_text: None,
                route: None,
            },
            json!({"type": "done"}),
        );
        check(
            StreamEvent::Done {
                final_text: Some("ok".into()),
                route: Some(RouteSummary {
                    stage: "fast_path".into(),
                    route: "metric".into(),
                    target: Some("host:web1".into()),
                    routing_us: 12,
                }),
            },
            json!({"type": "done", "final_text": "ok", "route": {"stage": "fast_path", "route": "metric", "target": "host:web1", "routing_us": 12}}),
        );
    }

    #[test]
    fn bare_events_parse_without_an_envelope() {
        let e: StreamEvent = serde_json::from_value(json!({"type": "done"})).unwrap();
        assert_eq!(
            e,
            StreamEvent::Done {
                final_text: None,
                route: None
            }
        );
        assert!(serde_json::from_value::<StreamEvent>(json!({"type": "nope"})).is_err());
        assert!(
            serde_json::from_value::<EventEnvelope>(json!({"type": "done", "seq": 1})).is_err(),
            "session_id is required"
        );
    }
}
