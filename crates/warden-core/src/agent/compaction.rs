//! Compaction: when tool results fill the conversation, the older ones are
//! replaced by short fact summaries (deterministic, per kind of result), so
//! long investigations stay within the model's context. The most recent
//! results are kept whole.

use serde_json::Value;

use super::provider::Message;

pub const KEEP_RECENT: usize = 8;
pub const MAX_TOOL_CHARS: usize = 48_000;

/// A one-line summary of a tool result (the JSON of a `ToolResponse`).
pub fn summarize(tool: &str, content: &str) -> String {
    let Ok(response) = serde_json::from_str::<Value>(content) else {
        return format!("[{tool}: {} bytes of output, compacted]", content.len());
    };
    if response["ok"] != Value::Bool(true) {
        let code = response["error"]["code"].as_str().unwrap_or("ERROR");
        let message = clip(
            response["error"]["message"].as_str().unwrap_or_default(),
            160,
        );
        return format!("[{tool} failed: {code}: {message}]");
    }
    let data = &response["data"];
    if let Some(stdout) = data["stdout"].as_str() {
        let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
        let target = data["target"].as_str().unwrap_or("?");
        return match lines.as_slice() {
            [] => format!(
                "[{tool} on {target}: exit {}, no output]",
                data["exit_code"]
            ),
            [only] => format!(
                "[{tool} on {target}: exit {}: {}]",
                data["exit_code"],
                clip(only, 160)
            ),
            [first, .., last] => format!(
                "[{tool} on {target}: exit {}, {} lines; first: {}; last: {}]",
                data["exit_code"],
                lines.len(),
                clip(first, 100),
                clip(last, 100)
            ),
        };
    }
    if let Some(resources) = data["resources"].as_array() {
        let names: Vec<&str> = resources
            .iter()
            .filter_map(|r| r["id"].as_str())
            .take(12)
            .collect();
        let more = resources.len().saturating_sub(names.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return format!(
            "[{tool}: {} resources: {}{more}]",
            resources.len(),
            names.join(", ")
        );
    }
    if let Some(resource) = data.get("resource") {
        return format!(
            "[{tool}: {}]",
            resource["id"].as_str().unwrap_or("resource")
        );
    }
    format!("[{tool}: {}]", clip(&data.to_string(), 160))
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut clipped: String = text.chars().take(max).collect();
    clipped.push('…');
    clipped
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
    let mut compacted = 0;
    for &i in &tool_positions[..older] {
        if let Message::Tool { name, content, .. } = &mut messages[i] {
            if !content.starts_with('[') {
                *content = summarize(name, content);
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
            summarize("read", &read),
            "[read on host:web1: exit 0, 3 lines; first: a; last: c]"
        );
        let failed = json!({"ok": false, "error": {"code": "READ_ONLY_VIOLATION", "message": "rm: not read-only"}}).to_string();
        assert_eq!(
            summarize("read", &failed),
            "[read failed: READ_ONLY_VIOLATION: rm: not read-only]"
        );
        let list = json!({"ok": true, "data": {"count": 2, "resources": [{"id": "host:a"}, {"id": "host:b"}]}}).to_string();
        assert_eq!(
            summarize("query", &list),
            "[query: 2 resources: host:a, host:b]"
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
