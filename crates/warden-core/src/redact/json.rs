//! Redaction of tool results, which are JSON envelopes: every string is
//! redacted as text, and the structure adds what text alone cannot see — a
//! string or number under a secret-named key (`{"password": "x"}`), the
//! `value` of a `{"name": "DB_PASSWORD", "value": "x"}` pair, the `value` of
//! a Proxmox token-create result.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::key_names::secret_named_by;
use super::kind::SecretKind;
use super::placeholder::is_placeholder;
use super::redact;

/// Redact every string inside `value` in place; returns what was removed.
pub fn redact_json(value: &mut Value) -> BTreeMap<SecretKind, usize> {
    let mut removed = BTreeMap::new();
    redact_value(value, &mut removed);
    removed
}

fn redact_value(value: &mut Value, removed: &mut BTreeMap<SecretKind, usize>) {
    match value {
        Value::String(text) => {
            let redacted = redact(text);
            if redacted.is_redacted() {
                for (kind, count) in redacted.removed {
                    *removed.entry(kind).or_insert(0) += count;
                }
                *text = redacted.text.into_owned();
            }
        }
        Value::Array(items) => {
            for item in items {
                redact_value(item, removed);
            }
        }
        Value::Object(map) => redact_object(map, removed),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn redact_object(map: &mut Map<String, Value>, removed: &mut BTreeMap<SecretKind, usize>) {
    let pair_kind = object_pair_kind(map);
    for (key, item) in map.iter_mut() {
        let kind = if key == "value" {
            pair_kind.or_else(|| secret_named_by(key))
        } else {
            secret_named_by(key)
        };
        match kind {
            Some(kind) if holds_secret(item) => {
                *item = Value::String(kind.marker());
                *removed.entry(kind).or_insert(0) += 1;
            }
            Some(_) | None => redact_value(item, removed),
        }
    }
}

/// `{"name": "DB_PASSWORD", "value": …}` and Proxmox `{"full-tokenid": …, "value": …}`.
fn object_pair_kind(map: &Map<String, Value>) -> Option<SecretKind> {
    if !map.contains_key("value") {
        return None;
    }
    if map.contains_key("full-tokenid") || map.contains_key("tokenid") {
        return Some(SecretKind::ProxmoxTokenSecret);
    }
    match map.get("name") {
        Some(Value::String(name)) => secret_named_by(name),
        _ => None,
    }
}

/// A scalar that is not a placeholder; containers are walked instead.
fn holds_secret(value: &Value) -> bool {
    match value {
        Value::String(text) => !is_placeholder(text),
        Value::Number(_) => true,
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => false,
    }
}
