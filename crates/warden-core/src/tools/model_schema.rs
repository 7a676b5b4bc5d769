//! The catalogue as models see it. The generated schemas are unions (one
//! variant per `action`) with `$ref`s; several providers accept only a plain
//! object schema at the top (OpenAI, Anthropic) or a small subset of JSON
//! Schema (Gemini). So each tool is offered as one flat object: the union
//! of every action's fields, `action` as an enum whose description says what
//! each action does and which fields it needs. Validation is unchanged: the
//! executor still parses the call into the exact Rust type.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use warden_llm::ToolSpec;

use super::catalogue;

/// The tools offered to the model, optionally limited to a toolset.
pub fn model_tools(toolset: Option<&[String]>) -> Vec<ToolSpec> {
    static ALL: OnceLock<Vec<ToolSpec>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        catalogue()
            .into_iter()
            .map(|tool| ToolSpec {
                name: tool.name.to_string(),
                description: tool.description.to_string(),
                parameters: flatten(&serde_json::to_value(&tool.schema).unwrap_or(Value::Null)),
            })
            .collect()
    });
    all.iter()
        .filter(|t| toolset.is_none_or(|set| set.iter().any(|name| name == &t.name)))
        .cloned()
        .collect()
}

/// One object schema out of a (possibly tagged-union) generated schema.
pub fn flatten(schema: &Value) -> Value {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let variants: Vec<Value> = match schema.get("oneOf").or_else(|| schema.get("anyOf")) {
        Some(Value::Array(list)) => list.iter().map(|v| resolve(v, &defs)).collect(),
        _ => vec![resolve(schema, &defs)],
    };
    let mut properties = Map::new();
    let mut required_everywhere: Option<Vec<String>> = None;
    let mut actions: Vec<(String, String, Vec<String>)> = Vec::new();
    for variant in &variants {
        let required: Vec<String> = variant["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(props) = variant["properties"].as_object() {
            for (name, prop) in props {
                if name == "action" {
                    if let Some(action) = action_name(prop) {
                        let fields = required
                            .iter()
                            .filter(|f| f.as_str() != "action")
                            .cloned()
                            .collect();
                        let description = variant["description"].as_str().unwrap_or("").to_string();
                        actions.push((action, description, fields));
                    }
                    continue;
                }
                properties
                    .entry(name.clone())
                    .or_insert_with(|| simplify(prop, &defs));
            }
        }
        required_everywhere = Some(match required_everywhere {
            None => required,
            Some(before) => before
                .into_iter()
                .filter(|f| required.contains(f))
                .collect(),
        });
    }
    let mut required = required_everywhere.unwrap_or_default();
    if !actions.is_empty() {
        let described: Vec<String> = actions
            .iter()
            .map(|(name, description, fields)| {
                let needs = if fields.is_empty() {
                    String::new()
                } else {
                    format!(" (needs {})", fields.join(", "))
                };
                let description = description.trim().trim_end_matches('.');
                if description.is_empty() {
                    format!("{name}{needs}")
                } else {
                    format!("{name}: {description}{needs}")
                }
            })
            .collect();
        properties.insert(
            "action".to_string(),
            json!({
                "type": "string",
                "enum": actions.iter().map(|(name, _, _)| name.clone()).collect::<Vec<_>>(),
                "description": described.join("; "),
            }),
        );
        if !required.iter().any(|r| r == "action") {
            required.insert(0, "action".to_string());
        }
    }
    json!({
        "type": "object",
        "properties": Value::Object(properties),
        "required": required,
    })
}

/// Follow a `$ref` into `$defs`.
fn resolve(value: &Value, defs: &Value) -> Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap_or_default();
            defs.get(name).cloned().unwrap_or(Value::Null)
        }
        None => value.clone(),
    }
}

/// The tag value of a variant's `action` property.
fn action_name(prop: &Value) -> Option<String> {
    prop.get("const")
        .and_then(Value::as_str)
        .or_else(|| prop["enum"].as_array()?.first()?.as_str())
        .map(str::to_string)
}

/// A property schema in the subset every provider accepts: `$ref`s
/// inlined, optional (`null`) alternatives dropped (absent means unset),
/// integer formats and bounds kept as plain `integer`.
fn simplify(prop: &Value, defs: &Value) -> Value {
    let prop = resolve(prop, defs);
    if let Some(Value::Array(alternatives)) = prop.get("anyOf").or_else(|| prop.get("oneOf")) {
        let concrete: Vec<&Value> = alternatives
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if let [only] = concrete.as_slice() {
            let mut simplified = simplify(only, defs);
            if let (Some(description), Some(object)) =
                (prop.get("description"), simplified.as_object_mut())
            {
                object.insert("description".into(), description.clone());
            }
            return simplified;
        }
        // Several concrete alternatives (e.g. string enums): merge enums.
        let values: Vec<Value> = concrete
            .iter()
            .flat_map(|a| {
                let a = resolve(a, defs);
                match (a.get("const"), a.get("enum")) {
                    (Some(c), _) => vec![c.clone()],
                    (None, Some(Value::Array(e))) => e.clone(),
                    _ => Vec::new(),
                }
            })
            .filter(|v| !v.is_null())
            .collect();
        let mut merged = json!({"type": "string", "enum": values});
        if let Some(description) = prop.get("description") {
            merged["description"] = description.clone();
        }
        return merged;
    }
    let mut out = Map::new();
    if let Some(object) = prop.as_object() {
        for (key, value) in object {
            match key.as_str() {
                "type" => {
                    let concrete = match value {
                        Value::Array(types) => types
                            .iter()
                            .find(|t| t.as_str() != Some("null"))
                            .cloned()
                            .unwrap_or(Value::Null),
                        other => other.clone(),
                    };
                    out.insert("type".into(), concrete);
                }
                "description" => {
                    out.insert(key.clone(), value.clone());
                }
                "enum" => {
                    let values: Vec<Value> = value
                        .as_array()
                        .map(|v| v.iter().filter(|x| !x.is_null()).cloned().collect())
                        .unwrap_or_default();
                    out.insert(key.clone(), Value::Array(values));
                }
                "const" => {
                    out.insert("enum".into(), json!([value]));
                }
                "items" => {
                    out.insert(key.clone(), simplify(value, defs));
                }
                _ => {}
            }
        }
    }
    if out.contains_key("enum") && !out.contains_key("type") {
        out.insert("type".into(), json!("string"));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_one_flat_object() {
        for tool in model_tools(None) {
            let p = &tool.parameters;
            assert_eq!(p["type"], "object", "{}", tool.name);
            let text = p.to_string();
            for forbidden in ["$ref", "$defs", "oneOf", "anyOf", "\"null\""] {
                assert!(
                    !text.contains(forbidden),
                    "{}: {forbidden} in {text}",
                    tool.name
                );
            }
            assert!(
                p["properties"].as_object().is_some_and(|m| !m.is_empty()),
                "{}",
                tool.name
            );
        }
    }

    #[test]
    fn actions_become_a_described_enum() {
        let tools = model_tools(None);
        let read = tools.iter().find(|t| t.name == "read").unwrap();
        let action = &read.parameters["properties"]["action"];
        let names: Vec<&str> = action["enum"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(names, ["exec", "file", "find", "tail", "logs"]);
        let description = action["description"].as_str().unwrap();
        assert!(
            description.contains(
                "exec: Run a provably read-only, bounded command (needs target, command)"
            ),
            "{description}"
        );
        assert_eq!(read.parameters["required"], json!(["action", "target"]));
        assert_eq!(read.parameters["properties"]["lines"]["type"], "integer");
    }

    #[test]
    fn proxmox_arguments_are_offered() {
        let tools = model_tools(None);
        let tool = |name: &str| {
            tools
                .iter()
                .find(|t| t.name == name)
                .unwrap()
                .parameters
                .clone()
        };
        let snapshot = tool("snapshot");
        assert_eq!(
            snapshot["properties"]["action"]["enum"],
            json!(["list", "create", "rollback"])
        );
        assert_eq!(snapshot["required"], json!(["action", "target"]));
        let metrics = tool("metrics");
        assert_eq!(
            metrics["properties"]["range"]["enum"],
            json!(["hour", "day", "week", "month", "year"])
        );
        assert_eq!(metrics["properties"]["max_points"]["type"], "integer");
        let control = tool("control");
        assert_eq!(control["properties"]["timeout_secs"]["type"], "integer");
        assert_eq!(
            control["properties"]["on_timeout"]["enum"],
            json!(["stop", "leave_running"])
        );
    }

    #[test]
    fn toolsets_limit_what_is_offered() {
        let only = model_tools(Some(&["read".to_string(), "query".to_string()]));
        let names: Vec<&str> = only.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["query", "read"]);
    }
}
