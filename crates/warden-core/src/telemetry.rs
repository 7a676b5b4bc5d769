//! Prometheus counters for every gate that blocks, with sanitized, bounded
//! labels (tool names from the catalogue, kinds and states from enums;
//! anything else is `other`). Emitted through the `metrics` facade; the
//! server installs the exporter.

use std::time::Duration;

use metrics::{counter, histogram};
use warden_protocol::{ErrorCode, FsmState, ResourceKind, ToolKind};

use crate::tools::TOOL_NAMES;

/// A tool name safe to use as a label value.
pub fn tool_label(tool: &str) -> &'static str {
    TOOL_NAMES
        .iter()
        .copied()
        .find(|t| *t == tool)
        .unwrap_or("other")
}

/// An action name safe to use as a label value.
pub fn action_label(arguments: &serde_json::Value) -> &'static str {
    const ACTIONS: &[&str] = &[
        "search",
        "get",
        "list",
        "topology",
        "health",
        "exec",
        "file",
        "find",
        "tail",
        "logs",
        "guest",
        "service",
        "command",
        "inspect",
        "stats",
        "control",
        "update",
        "findings",
        "acknowledge",
        "resolve",
        "dismiss",
        "recall",
        "remember",
        "read",
        "write",
        "append",
        "replace",
        "pools",
        "disks",
        "backups",
        "pods",
        "deployments",
        "events",
        "create",
        "rollback",
    ];
    let action = arguments
        .get("action")
        .and_then(|a| a.as_str())
        .unwrap_or("none");
    ACTIONS
        .iter()
        .copied()
        .find(|a| *a == action)
        .unwrap_or(if action == "none" { "none" } else { "other" })
}

pub fn fsm_tool_block(state: FsmState, tool: &str, kind: ToolKind) {
    counter!("warden_fsm_tool_block_total", "state" => state.as_str(), "tool" => tool_label(tool), "kind" => kind.as_str())
        .increment(1);
}

pub fn fsm_final_block(state: FsmState) {
    counter!("warden_fsm_final_block_total", "state" => state.as_str()).increment(1);
}

pub fn strict_resolution_block(tool: &str, arguments: &serde_json::Value) {
    counter!("warden_strict_resolution_block_total", "tool" => tool_label(tool), "action" => action_label(arguments))
        .increment(1);
}

pub fn routing_mismatch_block(tool: &str, target: ResourceKind, child: ResourceKind) {
    counter!(
        "warden_routing_mismatch_block_total",
        "tool" => tool_label(tool),
        "target_kind" => target.as_str(),
        "child_kind" => child.as_str()
    )
    .increment(1);
}

/// Any other refusal by a gate, by code.
pub fn gate_block(code: ErrorCode, tool: &str) {
    counter!("warden_gate_block_total", "code" => code.as_str(), "tool" => tool_label(tool))
        .increment(1);
}

/// A tool output held one of Warden's own secrets and was withheld.
pub fn secret_withheld(tool: &str) {
    counter!("warden_secret_withheld_total", "tool" => tool_label(tool)).increment(1);
}

pub fn phantom_detected(provider: &str, model: &str) {
    counter!("warden_phantom_detected_total", "provider" => bounded(provider), "model" => bounded(model)).increment(1);
}

pub fn auto_recovery_attempt(code: ErrorCode, tool: &str) {
    counter!("warden_auto_recovery_attempt_total", "error_code" => code.as_str(), "tool" => tool_label(tool)).increment(1);
}

pub fn auto_recovery_success(code: ErrorCode, tool: &str) {
    counter!("warden_auto_recovery_success_total", "error_code" => code.as_str(), "tool" => tool_label(tool)).increment(1);
}

pub fn agentic_iteration(provider: &str, model: &str) {
    counter!("warden_agentic_iterations_total", "provider" => bounded(provider), "model" => bounded(model)).increment(1);
}

/// Provider and model names come from configuration: keep them short and
/// free of characters that break label syntax.
fn bounded(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/'))
        .take(64)
        .collect()
}

/// A tool call finished after `elapsed` (the server exports it; the CLI
/// has no recorder, so this costs nothing there).
pub fn tool_finished(tool: &str, kind: ToolKind, ok: bool, elapsed: Duration) {
    let outcome = if ok { "ok" } else { "failed" };
    histogram!(
        "warden_tool_duration_seconds",
        "tool" => tool_label(tool),
        "kind" => kind.as_str(),
        "outcome" => outcome
    )
    .record(elapsed.as_secs_f64());
}

/// Provider and model names come from configuration: short, safe characters.
fn name_label(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/'))
        .take(64)
        .collect()
}

/// Tokens of one model call.
pub fn tokens(provider: &str, model: &str, input: u64, output: u64) {
    let (provider, model) = (name_label(provider), name_label(model));
    counter!("warden_model_tokens_total", "provider" => provider.clone(), "model" => model.clone(), "direction" => "input")
        .increment(input);
    counter!("warden_model_tokens_total", "provider" => provider, "model" => model, "direction" => "output")
        .increment(output);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_are_bounded() {
        assert_eq!(tool_label("read"), "read");
        assert_eq!(tool_label("rm -rf /"), "other");
        assert_eq!(action_label(&json!({"action": "exec"})), "exec");
        assert_eq!(action_label(&json!({"action": "$(reboot)"})), "other");
        assert_eq!(action_label(&json!({})), "none");
        assert_eq!(bounded("gpt-4o\"}\n"), "gpt-4o");
    }
}
