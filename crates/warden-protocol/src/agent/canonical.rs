//! Canonical JSON, the bytes a grant's signature covers: object keys sorted
//! (by their UTF-8 bytes, which is code-point order), no whitespace, strings
//! escaped as `serde_json` escapes them, numbers as `serde_json` prints them.
//!
//! Written out by hand rather than trusting `serde_json::to_string`, because
//! key order in a `serde_json::Map` depends on a Cargo feature
//! (`preserve_order`) that any crate in a build may switch on.

use serde_json::Value;

/// `value` as canonical JSON text.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&number.to_string()),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
            out.push('{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

fn write_string(text: &str, out: &mut String) {
    // Serialising a `&str` cannot fail; the fallback keeps this total.
    match serde_json::to_string(text) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth_without_whitespace() {
        let value = json!({"b": 1, "a": {"d": [true, null, "x"], "c": -2.5}, "A": "é\n\"q\""});
        assert_eq!(
            canonical_json(&value),
            r#"{"A":"é\n\"q\"","a":{"c":-2.5,"d":[true,null,"x"]},"b":1}"#
        );
    }

    #[test]
    fn big_integers_are_exact() {
        let value = json!({"expires_at": 1_700_000_000_123u64, "v": 1});
        assert_eq!(
            canonical_json(&value),
            r#"{"expires_at":1700000000123,"v":1}"#
        );
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            ".{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Canonical text parses back to the same value, and is a fixed point.
        #[test]
        fn canonical_text_round_trips(value in arb_json()) {
            let text = canonical_json(&value);
            let back: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(&back, &value);
            prop_assert_eq!(canonical_json(&back), text);
        }
    }
}
