//! A tool result's data for a person at a terminal (`warden approvals
//! approve`): output as text, a few lines of it; a Docker inspection as
//! the container's state; other JSON as its scalar fields and the names
//! of lists. Never a raw JSON dump.

use serde_json::{Map, Value};

/// Most lines of output shown.
const MAX_LINES: usize = 20;
/// Most fields of an object shown.
const MAX_FIELDS: usize = 12;

/// The data of a tool result, in lines.
pub fn summarise(data: &Value) -> String {
    if let Some(stdout) = data.get("stdout").and_then(Value::as_str) {
        return match serde_json::from_str::<Value>(stdout.trim()) {
            Ok(json @ (Value::Object(_) | Value::Array(_))) => summarise_json(&json),
            _ => clipped(stdout),
        };
    }
    summarise_json(data)
}

fn clipped(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    if lines.len() <= MAX_LINES {
        return lines.join("\n");
    }
    let mut shown = lines[..MAX_LINES].join("\n");
    shown.push_str(&format!("\n… ({} more lines)", lines.len() - MAX_LINES));
    shown
}

fn summarise_json(value: &Value) -> String {
    match value {
        Value::Array(items) => match items.as_slice() {
            [] => "(nothing)".to_string(),
            [one] => summarise_json(one),
            many => {
                let names: Vec<String> = many.iter().take(MAX_FIELDS).map(item_name).collect();
                let more = many.len().saturating_sub(names.len());
                let tail = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                format!("{} items: {}{tail}", many.len(), names.join(", "))
            }
        },
        Value::Object(object) if object.get("State").is_some_and(Value::is_object) => {
            container(object)
        }
        Value::Object(object) => fields(object),
        scalar => scalar_text(scalar),
    }
}

/// A Docker inspection: what state the container is in.
fn container(object: &Map<String, Value>) -> String {
    let state = &object["State"];
    let text = |v: &Value| v.as_str().unwrap_or("?").to_string();
    let mut lines = Vec::new();
    let name = object
        .get("Name")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .trim_start_matches('/');
    let health = state["Health"]["Status"]
        .as_str()
        .map(|h| format!(" ({h})"))
        .unwrap_or_default();
    lines.push(format!(
        "container {name}: {}{health}",
        text(&state["Status"])
    ));
    if let Some(started) = state["StartedAt"].as_str() {
        lines.push(format!("  started:  {started}"));
    }
    if let Some(exit) = state["ExitCode"].as_i64().filter(|c| *c != 0) {
        lines.push(format!("  exit code: {exit}"));
    }
    if let Some(restarts) = object.get("RestartCount").and_then(Value::as_u64) {
        lines.push(format!("  restarts: {restarts}"));
    }
    if let Some(image) = object["Config"]["Image"].as_str() {
        lines.push(format!("  image:    {image}"));
    }
    if let Some(error) = state["Error"].as_str().filter(|e| !e.is_empty()) {
        lines.push(format!("  error:    {error}"));
    }
    lines.join("\n")
}

/// Scalar fields as `key: value`; objects and lists by their size.
fn fields(object: &Map<String, Value>) -> String {
    let mut lines: Vec<String> = object
        .iter()
        .filter(|(_, v)| !v.is_null())
        .take(MAX_FIELDS)
        .map(|(key, value)| match value {
            Value::Array(items) => {
                let names: Vec<String> = items.iter().take(6).map(item_name).collect();
                let more = items.len().saturating_sub(names.len());
                let tail = if more > 0 {
                    format!(", … {more} more")
                } else {
                    String::new()
                };
                format!("{key}: {}{tail}", names.join(", "))
            }
            Value::Object(inner) => format!("{key}: ({} fields)", inner.len()),
            scalar => format!("{key}: {}", scalar_text(scalar)),
        })
        .collect();
    let more = object.len().saturating_sub(MAX_FIELDS);
    if more > 0 {
        lines.push(format!("… ({more} more fields)"));
    }
    lines.join("\n")
}

/// What an item of a list is called (`name`, `id`), or its text.
fn item_name(item: &Value) -> String {
    match item {
        Value::Object(object) => ["name", "Name", "id", "Id", "vmid"]
            .iter()
            .find_map(|key| object.get(*key).filter(|v| !v.is_null()))
            .map(scalar_text)
            .unwrap_or_else(|| format!("({} fields)", object.len())),
        other => scalar_text(other),
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => {
            let text = text.trim();
            match text.char_indices().nth(120) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text.to_string(),
            }
        }
        Value::Null => "-".to_string(),
        Value::Array(items) => format!("({} items)", items.len()),
        Value::Object(object) => format!("({} fields)", object.len()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_docker_inspection_is_the_containers_state_not_a_dump() {
        let inspect = json!([{
            "Id": "abc123def", "Name": "/jellyfin", "RestartCount": 2,
            "State": {"Status": "running", "Running": true, "ExitCode": 0,
                      "StartedAt": "2026-11-28T10:00:00Z", "Health": {"Status": "healthy"}},
            "Config": {"Image": "jellyfin/jellyfin:10.9", "Env": ["SECRET=x"]},
            "HostConfig": {"Binds": ["/srv:/srv"]}
        }]);
        for data in [json!({"stdout": inspect.to_string()}), inspect.clone()] {
            let text = summarise(&data);
            assert!(
                text.contains("container jellyfin: running (healthy)"),
                "{text}"
            );
            assert!(text.contains("restarts: 2"), "{text}");
            assert!(text.contains("jellyfin/jellyfin:10.9"), "{text}");
            assert!(!text.contains('{') && !text.contains("Binds"), "{text}");
            assert!(!text.contains("SECRET"), "{text}");
        }
    }

    #[test]
    fn other_results_are_fields_lists_and_clipped_text() {
        let status = json!({"status": "stopped", "vmid": 101, "name": "web",
            "snapshots": [{"name": "before-upgrade"}, {"name": "current"}], "config": {"a": 1, "b": 2}});
        let text = summarise(&status);
        assert!(text.contains("status: stopped"), "{text}");
        assert!(
            text.contains("snapshots: before-upgrade, current"),
            "{text}"
        );
        assert!(text.contains("config: (2 fields)"), "{text}");
        let long: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let text = summarise(&json!({"stdout": long}));
        assert!(
            text.contains("line 19") && !text.contains("line 20\n"),
            "{text}"
        );
        assert!(text.contains("(30 more lines)"), "{text}");
        assert_eq!(summarise(&json!({"stdout": "active\n"})), "active");
    }
}
