//! The server's session events (spec/api.md, "The session event stream") on
//! a terminal, and what they mean for `ask`'s exit code.

use std::io::Write;

use serde_json::Value;

use crate::exit_codes::AskExit;
use crate::style::Paint;

/// What one remote turn showed, for the exit code.
#[derive(Debug, Default)]
pub struct TurnReading {
    pub final_text: Option<String>,
    pub done: bool,
    /// Approval ids requested and not resolved.
    pub pending: Vec<String>,
    pub refused_writes: usize,
    pub last_call_failed: bool,
    /// The code of a turn-level `error` event (model failed, retraction, …).
    pub turn_error: Option<String>,
    pub route_stage: Option<String>,
    /// Text already printed as it streamed.
    pub streamed: String,
}

impl TurnReading {
    pub fn exit(&self) -> AskExit {
        match self.turn_error.as_deref() {
            Some("CANCELLED") => return AskExit::Cancelled,
            Some(
                "PHANTOM_DETECTED"
                | "LOOP_DETECTED"
                | "BUDGET_EXCEEDED"
                | "MODEL_CALL_LIMIT"
                | "MODEL_TRUNCATED"
                | "MODEL_RATE_LIMITED"
                | "MODEL_TIMEOUT"
                | "MODEL_REPLY_TOO_LARGE"
                | "MODEL_UNREACHABLE"
                | "MODEL_NOT_CONFIGURED"
                | "MODEL_ERROR",
            ) => return AskExit::ModelFailed,
            _ => {}
        }
        if !self.pending.is_empty() {
            AskExit::ApprovalPending
        } else if self.refused_writes > 0 {
            AskExit::WriteRefused
        } else if self.last_call_failed || self.turn_error.is_some() {
            AskExit::ToolFailed
        } else if self.route_stage.as_deref() == Some("unmatched") {
            AskExit::NotUnderstood
        } else {
            AskExit::Answered
        }
    }

    /// Print what a person should see of one event, and note it.
    pub fn show(&mut self, event: &Value, paint: &Paint) {
        if event["type"].as_str() == Some("content") {
            self.streamed
                .push_str(event["text"].as_str().unwrap_or_default());
        }
        print_event(event, paint);
        self.record(event);
    }

    /// Note what one event means for the turn's outcome.
    pub fn record(&mut self, event: &Value) {
        match event["type"].as_str().unwrap_or_default() {
            "tool_end" => self.count_tool_end(event),
            "approval_needed" => {
                if let Some(id) = event["approval"]["id"].as_str() {
                    self.pending.push(id.to_string());
                }
            }
            "approval_resolved" => {
                let id = event["approval_id"].as_str().unwrap_or_default();
                self.pending.retain(|p| p != id);
            }
            "error" => {
                self.turn_error = event["code"]
                    .as_str()
                    .map(str::to_string)
                    .or(Some("ERROR".to_string()));
            }
            "done" => {
                self.done = true;
                self.final_text = event["final_text"].as_str().map(str::to_string);
                self.route_stage = event["route"]["stage"].as_str().map(str::to_string);
            }
            _ => {}
        }
    }

    fn count_tool_end(&mut self, event: &Value) {
        if event["ok"].as_bool().unwrap_or(false) {
            self.last_call_failed = false;
            return;
        }
        match event["error_code"].as_str() {
            Some(
                "APPROVAL_DENIED" | "APPROVAL_EXPIRED" | "POLICY_BLOCKED" | "READ_ONLY_VIOLATION",
            ) => self.refused_writes += 1,
            Some(
                "EXECUTION_FAILED" | "TIMEOUT" | "UNAVAILABLE" | "NOT_FOUND" | "INTERNAL"
                | "CANCELLED",
            ) => self.last_call_failed = true,
            _ => {}
        }
    }
}

/// One event as terminal lines (answer text on stdout, the rest on stderr).
fn print_event(event: &Value, paint: &Paint) {
    match event["type"].as_str().unwrap_or_default() {
        "content" => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(event["text"].as_str().unwrap_or_default().as_bytes());
            let _ = out.flush();
        }
        "tool_start" => eprintln!(
            "→ {} {} {}",
            event["name"].as_str().unwrap_or("?"),
            describe_arguments(&event["arguments"]),
            paint.dim(&format!("[{}]", event["kind"].as_str().unwrap_or("?")))
        ),
        "tool_end" => {
            let name = event["name"].as_str().unwrap_or("?");
            let ms = event["duration_ms"].as_u64().unwrap_or(0);
            if event["ok"].as_bool().unwrap_or(false) {
                let cached = if event["cached"].as_bool() == Some(true) {
                    ", from knowledge"
                } else {
                    ""
                };
                eprintln!("  {} {name} ({ms} ms{cached})", paint.green("✓"));
            } else {
                eprintln!(
                    "  {} {name}: {} ({ms} ms)",
                    paint.red("✗"),
                    event["error_code"].as_str().unwrap_or("failed")
                );
            }
        }
        "approval_resolved" => {
            let by = event["by"]
                .as_str()
                .map(|b| format!(" by {b}"))
                .unwrap_or_default();
            eprintln!(
                "  approval {}: {}{by}",
                event["approval_id"].as_str().unwrap_or("?"),
                event["decision"].as_str().unwrap_or("?")
            );
        }
        "error" if event["code"].as_str() == Some("PHANTOM_DETECTED") => eprintln!(
            "{}",
            paint.red("  ⚠ RETRACTED: the answer claimed results that no tool call showed")
        ),
        "error" => eprintln!(
            "  ! {} {}",
            event["code"].as_str().unwrap_or(""),
            event["message"].as_str().unwrap_or_default()
        ),
        _ => {}
    }
}

/// `exec web1: df -h` from a call's arguments.
fn describe_arguments(arguments: &Value) -> String {
    let field = |k: &str| arguments[k].as_str().unwrap_or_default();
    let mut text = [field("action"), field("target")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    for key in ["command", "service", "operation", "path"] {
        if let Some(value) = arguments[key].as_str() {
            text.push_str(&format!(": {value}"));
            break;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_stream_decides_the_exit_code() {
        let paint = Paint::stderr();
        let mut reading = TurnReading::default();
        reading.show(
            &json!({"type": "approval_needed", "approval": {"id": "a1"}}),
            &paint,
        );
        assert_eq!(reading.exit(), AskExit::ApprovalPending);
        reading.show(
            &json!({"type": "approval_resolved", "approval_id": "a1", "decision": "denied"}),
            &paint,
        );
        reading.show(
            &json!({"type": "tool_end", "name": "control", "ok": false, "error_code": "APPROVAL_DENIED"}),
            &paint,
        );
        assert_eq!(reading.exit(), AskExit::WriteRefused);
        let mut failed = TurnReading::default();
        failed.show(
            &json!({"type": "tool_end", "name": "read", "ok": false, "error_code": "EXECUTION_FAILED"}),
            &paint,
        );
        assert_eq!(failed.exit(), AskExit::ToolFailed);
        failed.show(
            &json!({"type": "tool_end", "name": "read", "ok": true}),
            &paint,
        );
        assert_eq!(failed.exit(), AskExit::Answered);
        failed.show(
            &json!({"type": "error", "code": "MODEL_TRUNCATED", "message": "cut"}),
            &paint,
        );
        assert_eq!(failed.exit(), AskExit::ModelFailed);
        let mut unmatched = TurnReading::default();
        unmatched.show(
            &json!({"type": "done", "final_text": "?", "route": {"stage": "unmatched"}}),
            &paint,
        );
        assert_eq!(unmatched.exit(), AskExit::NotUnderstood);
    }
}
