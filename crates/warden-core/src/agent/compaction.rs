//! Compaction: when tool results fill the conversation, the older ones are
//! replaced by short fact summaries (deterministic, per kind of result), so
//! long investigations stay within the model's context. The most recent
//! results are kept whole.

use std::collections::HashMap;

use serde_json::Value;
use warden_protocol::ToolResponse;

use super::provider::Message;

pub const KEEP_RECENT: usize = 8;
pub const MAX_TOOL_CHARS: usize = 48_000;

/// A one-line summary of a tool result (the JSON of a `ToolResponse`):
/// the facts the tool's extractor takes from it.
pub fn summarize(tool: &str, arguments: &Value, content: &str) -> String {
    match serde_json::from_str::<ToolResponse>(content) {
        Ok(response) => crate::knowledge::extract::summary(tool, arguments, &response),
        Err(_) => format!("[{tool}: {} bytes of output, compacted]", content.len()),
    }
}

/// Replace older tool results by summaries while they exceed `max_chars`.
/// Returns how many were compacted.
pub fn compact(messages: &mut [Message], keep_recent: usize, max_chars: usize) -> usize {
    let tool_chars: usize = messages
        .iter()
        .map(|m| match m {
            Message::Tool { content, .. } => content.len(),
            _ => 0,
        })
        .sum();
    if tool_chars <= max_chars {
        return 0;
    }
    let tool_positions: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::Tool { .. }))
        .map(|(i, _)| i)
        .collect();
    let older = tool_positions.len().saturating_sub(keep_recent);
    // The arguments of each call, for the summaries.
    let arguments: HashMap<String, Value> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { tool_calls, .. } => Some(tool_calls),
            _ => None,
        })
        .flatten()
        .map(|c| (c.id.clone(), c.arguments.clone()))
        .collect();
    let mut compacted = 0;
    for &i in &tool_positions[..older] {
        if let Message::Tool {
            call_id,
            name,
            content,
        } = &mut messages[i]
        {
            if !content.starts_with('[') {
                let args = arguments.get(call_id.as_str()).unwrap_or(&Value::Null);
                *content = summarize(name, args, content);
                compacted += 1;
            }
        }
    }
    compacted
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries_keep_the_facts() {
        let read = json!({"ok": true, "data": {"target": "host:web1", "exit_code": 0, "stdout": "a\nb\nc\n"}}).to_string();
        assert_eq!(
            summarize("read", &Value::Null, &read),
            "[read on host:web1: exit 0, 3 lines; first: a; last: c]"
        );
        let failed =
            serde_json::to_string(&ToolResponse::failure(warden_protocol::ToolError::new(
                warden_protocol::ErrorCode::ReadOnlyViolation,
                "rm: not read-only",
            )))
            .unwrap();
        assert_eq!(
            summarize("read", &Value::Null, &failed),
            "[read failed: rm: not read-only (READ_ONLY_VIOLATION)]"
        );
        let list = json!({"ok": true, "data": {"count": 2, "resources": [{"id": "host:a"}, {"id": "host:b"}]}}).to_string();
        assert_eq!(
            summarize("query", &Value::Null, &list),
            "[2 resources: host:a, host:b]"
        );
    }

    #[test]
    fn only_older_results_are_compacted() {
        let big = json!({"ok": true, "data": {"target": "host:w", "exit_code": 0, "stdout": "x\n".repeat(5000)}}).to_string();
        let mut messages: Vec<Message> = (0..12)
            .map(|i| Message::Tool {
                call_id: format!("c{i}"),
                name: "read".into(),
                content: big.clone(),
            })
            .collect();
        let n = compact(&mut messages, 8, 48_000);
        assert_eq!(n, 4);
        assert!(
            matches!(&messages[0], Message::Tool { content, .. } if content.starts_with("[read on host:w"))
        );
        assert!(matches!(&messages[11], Message::Tool { content, .. } if content == &big));
        assert_eq!(compact(&mut messages, 8, 1_000_000), 0);
    }
}
