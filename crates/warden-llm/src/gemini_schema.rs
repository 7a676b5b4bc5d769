//! Tool schemas cut down to the subset of OpenAPI Schema that Gemini's
//! `functionDeclarations[].parameters` accepts. Unknown keywords
//! (`additionalProperties`, `$schema`, `title`, `default`, `oneOf`, ...)
//! make the whole request fail with 400, so everything not known to work is
//! dropped; `["string", "null"]` types become `nullable`.

use serde_json::{Map, Value};

/// Keywords copied through unchanged (after recursion where they nest).
const KEPT_AS_IS: &[&str] = &[
    "description",
    "nullable",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
];

/// The parameters schema for Gemini, or `None` when the tool takes no
/// arguments (Gemini rejects an object schema with empty `properties`).
pub fn gemini_parameters(schema: &Value) -> Option<Value> {
    let cleaned = sanitize(schema);
    let has_properties = cleaned["properties"]
        .as_object()
        .is_some_and(|p| !p.is_empty());
    has_properties.then_some(cleaned)
}

/// One schema node in Gemini's subset.
pub fn sanitize(schema: &Value) -> Value {
    let Some(node) = schema.as_object() else {
        return Value::Object(Map::new());
    };
    let mut out = Map::new();
    let (kind, nullable) = single_type(node);
    if let Some(kind) = &kind {
        out.insert("type".into(), Value::String(kind.clone()));
    }
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    for key in KEPT_AS_IS {
        if let Some(value) = node.get(*key) {
            out.insert((*key).into(), value.clone());
        }
    }
    if let Some(format) = node.get("format").and_then(Value::as_str)
        && format_allowed(kind.as_deref(), format)
    {
        out.insert("format".into(), Value::String(format.into()));
    }
    if let Some(values) = string_enum(node) {
        out.insert("enum".into(), Value::Array(values));
        out.entry("type")
            .or_insert_with(|| Value::String("string".into()));
    }
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        let cleaned: Map<String, Value> = properties
            .iter()
            .map(|(name, prop)| (name.clone(), sanitize(prop)))
            .collect();
        if let Some(required) = node.get("required").and_then(Value::as_array) {
            let known: Vec<Value> = required
                .iter()
                .filter(|r| r.as_str().is_some_and(|name| cleaned.contains_key(name)))
                .cloned()
                .collect();
            if !known.is_empty() {
                out.insert("required".into(), Value::Array(known));
            }
        }
        if !cleaned.is_empty() {
            out.insert("properties".into(), Value::Object(cleaned));
        }
    }
    if let Some(items) = node.get("items").filter(|i| i.is_object()) {
        out.insert("items".into(), sanitize(items));
    }
    if let Some(variants) = node.get("anyOf").and_then(Value::as_array) {
        merge_any_of(variants, &mut out);
    }
    Value::Object(out)
}

/// `type` as one name; a `null` member of a type list becomes `nullable`.
fn single_type(node: &Map<String, Value>) -> (Option<String>, bool) {
    match node.get("type") {
        Some(Value::String(kind)) => (Some(kind.clone()), false),
        Some(Value::Array(kinds)) => {
            let names: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            let nullable = names.contains(&"null");
            let kind = names.into_iter().find(|k| *k != "null").map(str::to_string);
            (kind, nullable)
        }
        _ => (None, false),
    }
}

/// Gemini knows few formats, and enum only for strings.
fn format_allowed(kind: Option<&str>, format: &str) -> bool {
    match kind {
        Some("string") => matches!(format, "enum" | "date-time"),
        Some("number") => matches!(format, "float" | "double"),
        Some("integer") => matches!(format, "int32" | "int64"),
        _ => false,
    }
}

/// `enum` (or `const`) when all values are strings; Gemini has no other enums.
fn string_enum(node: &Map<String, Value>) -> Option<Vec<Value>> {
    let values = match (node.get("enum"), node.get("const")) {
        (Some(Value::Array(values)), _) => values.clone(),
        (None, Some(value)) => vec![value.clone()],
        _ => return None,
    };
    let strings: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
    (!strings.is_empty() && strings.iter().all(Value::is_string)).then_some(strings)
}

/// `anyOf` with `{"type":"null"}` members folded into `nullable`; a single
/// remaining variant is inlined.
fn merge_any_of(variants: &[Value], out: &mut Map<String, Value>) {
    let mut kept: Vec<Value> = Vec::new();
    for variant in variants {
        if variant["type"] == "null" {
            out.insert("nullable".into(), Value::Bool(true));
        } else {
            kept.push(sanitize(variant));
        }
    }
    match kept.len() {
        0 => {}
        1 => {
            if let Some(Value::Object(only)) = kept.pop() {
                for (key, value) in only {
                    out.entry(key).or_insert(value);
                }
            }
        }
        _ => {
            out.insert("anyOf".into(), Value::Array(kept));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drops_unsupported_keywords() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "ReadArgs",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "action": {"type": "string", "enum": ["exec", "file"], "description": "what"},
                "lines": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": 200},
                "target": {"type": "string", "format": "hostname"},
                "tags": {"type": "array", "items": {"type": "string", "title": "t"}},
                "mode": {"const": "fast"},
                "level": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
            },
            "required": ["action", "missing"]
        });
        assert_eq!(
            sanitize(&schema),
            json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["exec", "file"], "description": "what"},
                    "lines": {"type": "integer", "nullable": true, "minimum": 0},
                    "target": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "mode": {"type": "string", "enum": ["fast"]},
                    "level": {"type": "integer", "nullable": true}
                },
                "required": ["action"]
            })
        );
    }

    #[test]
    fn argument_less_tools_have_no_parameters() {
        assert_eq!(
            gemini_parameters(&json!({"type": "object", "properties": {}})),
            None
        );
        assert!(
            gemini_parameters(&json!({"type": "object", "properties": {"a": {"type": "string"}}}))
                .is_some()
        );
    }
}
