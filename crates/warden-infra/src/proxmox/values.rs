//! Tolerant reading of PVE's JSON: numbers that arrive as strings, booleans
//! as 0/1 (numbers or strings), and missing optional keys are all normal.

use serde_json::Value;

/// A string field; numbers are shown as text (a vmid may come either way).
pub fn text_field(item: &Value, key: &str) -> Option<String> {
    match item.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// A number field, from a JSON number or a numeric string.
pub fn float_field(item: &Value, key: &str) -> Option<f64> {
    as_float(item.get(key)?)
}

/// A JSON number or numeric string as `f64` (finite only).
pub fn as_float(value: &Value) -> Option<f64> {
    let number = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
    }?;
    number.is_finite().then_some(number)
}

/// A non-negative integer field (`"101"`, `101`, `101.0`).
pub fn uint_field(item: &Value, key: &str) -> Option<u64> {
    match item.get(key)? {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
    }
}

/// A boolean field: `true`, `1`, `"1"`, `"true"`, `"yes"`, `"on"` are true;
/// a missing key is `None`.
pub fn bool_field(item: &Value, key: &str) -> Option<bool> {
    match item.get(key)? {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => Some(n.as_f64().is_some_and(|f| f != 0.0)),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" | "" => Some(false),
            _ => None,
        },
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// PVE tags: `a;b`, `a,b` or `a b` (the separators PVE accepts), trimmed,
/// empty ones dropped, order kept, duplicates removed.
pub fn split_tags(text: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for tag in text
        .split([';', ',', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        if !tags.iter().any(|t| t == tag) {
            tags.push(tag.to_string());
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn loose_values_are_read() {
        let item = json!({
            "vmid": "101", "n": 7, "f": 2.0, "neg": -1, "s": " 3.5 ", "bad": "x",
            "t1": 1, "t0": 0, "ts": "1", "tb": true, "tf": "false", "null": null
        });
        assert_eq!(uint_field(&item, "vmid"), Some(101));
        assert_eq!(uint_field(&item, "n"), Some(7));
        assert_eq!(uint_field(&item, "f"), Some(2));
        assert_eq!(uint_field(&item, "neg"), None);
        assert_eq!(uint_field(&item, "missing"), None);
        assert_eq!(float_field(&item, "s"), Some(3.5));
        assert_eq!(float_field(&item, "bad"), None);
        assert_eq!(float_field(&item, "null"), None);
        assert_eq!(bool_field(&item, "t1"), Some(true));
        assert_eq!(bool_field(&item, "t0"), Some(false));
        assert_eq!(bool_field(&item, "ts"), Some(true));
        assert_eq!(bool_field(&item, "tb"), Some(true));
        assert_eq!(bool_field(&item, "tf"), Some(false));
        assert_eq!(bool_field(&item, "bad"), None);
        assert_eq!(bool_field(&item, "missing"), None);
        assert_eq!(text_field(&item, "vmid"), Some("101".into()));
        assert_eq!(text_field(&item, "n"), Some("7".into()));
        assert_eq!(text_field(&item, "null"), None);
    }

    #[test]
    fn tags_split_on_every_pve_separator() {
        let cases = [
            ("prod;web", vec!["prod", "web"]),
            ("prod,web", vec!["prod", "web"]),
            ("prod web", vec!["prod", "web"]),
            (" prod ;; web;prod ", vec!["prod", "web"]),
            ("", vec![]),
        ];
        for (text, expected) in cases {
            assert_eq!(split_tags(text), expected, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn numbers_read_the_same_as_strings(n in any::<u32>()) {
            let item = json!({"a": n, "b": n.to_string()});
            prop_assert_eq!(uint_field(&item, "a"), Some(u64::from(n)));
            prop_assert_eq!(uint_field(&item, "b"), Some(u64::from(n)));
            prop_assert_eq!(float_field(&item, "b"), Some(f64::from(n)));
        }

        #[test]
        fn tags_never_hold_separators(text in "[a-z;, ]{0,40}") {
            for tag in split_tags(&text) {
                prop_assert!(!tag.is_empty());
                prop_assert!(!tag.contains([';', ',', ' ']));
            }
        }
    }
}
