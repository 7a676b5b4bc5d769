//! Deterministic facts from tool results, one extractor per tool. Facts
//! are what survives when old results are compacted out of the model's
//! context, and what the knowledge gate remembers about a session: short,
//! attributed to a target, and negative when a call failed ("no such
//! file" is knowledge too). No model is involved: the same result always
//! gives the same facts.

use serde_json::Value;
use warden_protocol::ToolResponse;

/// One thing a tool call established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// The resource it is about (canonical id or name as called), or `-`.
    pub subject: String,
    pub text: String,
    /// The call failed: this records what is *not* there or did not work.
    pub negative: bool,
}

impl Fact {
    fn new(subject: &str, text: impl Into<String>) -> Fact {
        Fact {
            subject: subject.to_string(),
            text: text.into(),
            negative: false,
        }
    }
}

/// The facts of one call's result.
pub fn extract(tool: &str, arguments: &Value, response: &ToolResponse) -> Vec<Fact> {
    let data = response.data.as_ref().unwrap_or(&Value::Null);
    let subject = data["target"]
        .as_str()
        .or_else(|| arguments["target"].as_str())
        .unwrap_or("-")
        .to_string();
    if let Some(error) = &response.error {
        let what = describe(tool, arguments);
        let output = &error
            .details
            .extra
            .get("output")
            .cloned()
            .unwrap_or(Value::Null);
        let detail = first_line(output["stderr"].as_str().unwrap_or_default())
            .or_else(|| first_line(output["stdout"].as_str().unwrap_or_default()))
            .map(|l| format!(": {l}"))
            .unwrap_or_default();
        return vec![Fact {
            subject,
            text: format!(
                "{what} failed: {} ({}){detail}",
                clip(&error.message, 120),
                error.code
            ),
            negative: true,
        }];
    }
    match tool {
        "metrics" if data["series"].is_array() => history(&subject, data),
        "metrics" => metrics(&subject, &data["metrics"]),
        "query" | "discovery" => resources(&subject, data),
        "docker" if arguments["action"] == "inspect" => container(&subject, data),
        "knowledge" => notes(data),
        "read" | "docker" | "storage" | "kubernetes" | "file_edit" | "control" => {
            command_output(&subject, tool, arguments, data)
        }
        _ => vec![Fact::new(
            &subject,
            format!("{tool}: {}", clip(&data.to_string(), 160)),
        )],
    }
}

/// One line for a compacted result.
pub fn summary(tool: &str, arguments: &Value, response: &ToolResponse) -> String {
    let facts = extract(tool, arguments, response);
    let text: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
    format!("[{}]", text.join("; "))
}

fn describe(tool: &str, arguments: &Value) -> String {
    let action = arguments["action"].as_str().unwrap_or_default();
    let detail = ["command", "path", "service", "operation"]
        .iter()
        .find_map(|k| arguments[*k].as_str())
        .map(|d| format!(" `{}`", clip(d, 80)))
        .unwrap_or_default();
    format!("{tool} {action}{detail}")
        .replace("  ", " ")
        .trim()
        .to_string()
}

/// One fact per metric of a history (Proxmox `rrddata`): its range and numbers.
fn history(subject: &str, data: &Value) -> Vec<Fact> {
    use crate::tools::history_text::format_value;
    let range = data["range"].as_str().unwrap_or("range");
    data["series"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| {
            let unit = s["unit"].as_str().unwrap_or("");
            let summary = &s["summary"];
            let value = |key: &str| summary[key].as_f64().map(|v| format_value(v, unit));
            Some(Fact::new(
                subject,
                format!(
                    "{} of {subject} over the past {range}: min {}, avg {}, max {}, latest {}",
                    s["metric"].as_str()?,
                    value("min")?,
                    value("avg")?,
                    value("max")?,
                    summary["latest"]["v"]
                        .as_f64()
                        .map(|v| format_value(v, unit))?,
                ),
            ))
        })
        .collect()
}

fn metrics(subject: &str, m: &Value) -> Vec<Fact> {
    let mut facts = Vec::new();
    if let Some(disks) = m["disks"].as_array() {
        let parts: Vec<String> = disks
            .iter()
            .map(|d| {
                format!(
                    "{} {}% used",
                    d["mount"].as_str().unwrap_or("?"),
                    d["used_percent"]
                )
            })
            .collect();
        facts.push(Fact::new(
            subject,
            format!("disks on {subject}: {}", parts.join(", ")),
        ));
    }
    if m["memory"].is_object() {
        facts.push(Fact::new(
            subject,
            format!("memory on {subject}: {}% used", m["memory"]["used_percent"]),
        ));
    }
    if m["cpu"].is_object() {
        facts.push(Fact::new(
            subject,
            format!("cpu on {subject}: {}% busy", m["cpu"]["used_percent"]),
        ));
    }
    if m["load"].is_object() {
        facts.push(Fact::new(
            subject,
            format!(
                "load on {subject}: {} {} {}",
                m["load"]["1m"], m["load"]["5m"], m["load"]["15m"]
            ),
        ));
    }
    if let Some(interfaces) = m["network"].as_array() {
        facts.push(Fact::new(
            subject,
            format!("{} network interfaces on {subject}", interfaces.len()),
        ));
    }
    if facts.is_empty() {
        facts.push(Fact::new(
            subject,
            format!("metrics on {subject}: nothing parsed"),
        ));
    }
    facts
}

fn resources(subject: &str, data: &Value) -> Vec<Fact> {
    if let Some(list) = data["resources"].as_array() {
        let ids: Vec<&str> = list
            .iter()
            .filter_map(|r| r["id"].as_str())
            .take(12)
            .collect();
        let more = list.len().saturating_sub(ids.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return vec![Fact::new(
            "-",
            format!("{} resources: {}{more}", list.len(), ids.join(", ")),
        )];
    }
    let resource = &data["resource"];
    let Some(id) = resource["id"].as_str() else {
        return vec![Fact::new(subject, clip(&data.to_string(), 160))];
    };
    let mut text = format!("{id} is {}", resource["name"].as_str().unwrap_or(id));
    if let Some(status) = resource["status"].as_str() {
        text.push_str(&format!(", {status}"));
    }
    if let Some(chain) = data["routing_chain"].as_array().filter(|c| c.len() > 1) {
        let chain: Vec<&str> = chain.iter().filter_map(Value::as_str).collect();
        text.push_str(&format!(", reached via {}", chain.join(" → ")));
    }
    vec![Fact::new(id, text)]
}

fn container(subject: &str, data: &Value) -> Vec<Fact> {
    let parsed: Value =
        serde_json::from_str(data["stdout"].as_str().unwrap_or_default()).unwrap_or(Value::Null);
    let state = &parsed[0]["State"];
    match state["Status"].as_str() {
        Some(status) => {
            let mut text = format!("container {subject}: {status}");
            if let Some(health) = state["Health"]["Status"].as_str() {
                text.push_str(&format!(", health {health}"));
            }
            vec![Fact::new(subject, text)]
        }
        None => command_output(subject, "docker", &Value::Null, data),
    }
}

fn notes(data: &Value) -> Vec<Fact> {
    if let Some(note) = data["remembered"].as_str() {
        return vec![Fact::new("-", format!("noted: {}", clip(note, 120)))];
    }
    let found = data["notes"].as_array().map_or(0, Vec::len);
    vec![Fact::new("-", format!("{found} notes recalled"))]
}

fn command_output(subject: &str, tool: &str, arguments: &Value, data: &Value) -> Vec<Fact> {
    let Some(stdout) = data["stdout"].as_str() else {
        return vec![Fact::new(
            subject,
            format!("{tool}: {}", clip(&data.to_string(), 160)),
        )];
    };
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    let what = if arguments.is_null() {
        format!("{tool} on {subject}")
    } else {
        format!("{} on {subject}", describe(tool, arguments))
    };
    let exit = &data["exit_code"];
    let text = match lines.as_slice() {
        [] => format!("{what}: exit {exit}, no output"),
        [only] => format!("{what}: exit {exit}: {}", clip(only, 160)),
        [first, .., last] => format!(
            "{what}: exit {exit}, {} lines; first: {}; last: {}",
            lines.len(),
            clip(first, 100),
            clip(last, 100)
        ),
    };
    vec![Fact::new(subject, text)]
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| clip(l, 120))
}

pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut clipped: String = text.chars().take(max).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use warden_protocol::{ErrorCode, ToolError};

    #[test]
    fn each_tool_has_its_facts() {
        let metrics = ToolResponse::success(json!({"target": "host:web1", "metrics": {
            "disks": [{"mount": "/", "used_percent": 60.0}], "memory": {"used_percent": 25.0},
            "load": {"1m": 0.5, "5m": 0.4, "15m": 0.3}}}));
        let facts = extract("metrics", &json!({"target": "web1"}), &metrics);
        let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "disks on host:web1: / 60.0% used",
                "memory on host:web1: 25.0% used",
                "load on host:web1: 0.5 0.4 0.3"
            ]
        );
        let history = ToolResponse::success(json!({"target": "vm:pve1:101", "range": "week",
            "series": [{"metric": "memory", "unit": "%", "average": [],
                "summary": {"min": 20.0, "avg": 40.0, "max": 90.0, "latest": {"t": 1, "v": 35.0}}},
                {"metric": "netin", "unit": "B/s", "average": [], "summary": null}]}));
        let facts = extract(
            "metrics",
            &json!({"target": "web", "range": "week"}),
            &history,
        );
        let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "memory of vm:pve1:101 over the past week: min 20.0 %, avg 40.0 %, max 90.0 %, latest 35.0 %"
            ]
        );
        let get = ToolResponse::success(
            json!({"resource": {"id": "lxc:pve1:141", "name": "media", "status": "running"},
            "routing_chain": ["lxc:pve1:141", "node:pve1"]}),
        );
        assert_eq!(
            extract("query", &json!({"action": "get"}), &get)[0].text,
            "lxc:pve1:141 is media, running, reached via lxc:pve1:141 → node:pve1"
        );
        let read = ToolResponse::success(
            json!({"target": "host:web1", "exit_code": 0, "stdout": "active\n"}),
        );
        assert_eq!(
            extract(
                "read",
                &json!({"action": "exec", "command": "systemctl is-active nginx"}),
                &read
            )[0]
            .text,
            "read exec `systemctl is-active nginx` on host:web1: exit 0: active"
        );
    }

    #[test]
    fn failures_are_negative_knowledge() {
        let error = ToolError::new(ErrorCode::ExecutionFailed, "exit code 1").with_detail(
            "output",
            json!({"exit_code": 1, "stdout": "", "stderr": "cat: /etc/x: No such file or directory"}),
        );
        let facts = extract(
            "read",
            &json!({"action": "file", "target": "web1", "path": "/etc/x"}),
            &ToolResponse::failure(error),
        );
        assert!(facts[0].negative);
        assert_eq!(
            facts[0].text,
            "read file `/etc/x` failed: exit code 1 (EXECUTION_FAILED): cat: /etc/x: No such file or directory"
        );
    }
}
