//! Argon2 hashes in the places they turn up: `sqlite3` output in each
//! mode, JSON, assignments, escaped strings.

use serde_json::json;

use crate::redact::{redact, redact_json};

/// Argon2 hashes (Warden's own users, Vaultwarden, Nextcloud …) wherever
/// they appear: `sqlite3` rows in each output mode, JSON, assignments.
#[test]
fn argon2_hashes_everywhere() {
    let id = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$Mrb2b9Yg2kWm9Y3qWgqvC7PqE1w3qV3H2aN0pT9d5nM";
    let i = "$argon2i$v=19$m=4096,t=3,p=1$c29tZXNhbHQ$iWh06vD8Fy27wf9npn6FXWiCX4K6pW6Ue1Bnzz07Z8A";
    let d = "$argon2d$v=19$m=65536,t=3,p=4$YWJjZGVmZ2g$3kFZ0mE0t9H2uK4hZb9Nn4sPq2m9H5zYwGm1Vh8XJ1k";
    let old = "$argon2i$m=4096,t=3,p=1$c29tZXNhbHQ$iWh06vD8Fy27wf9npn6FXWiCX4K6pW6Ue1Bnzz07Z8A";
    let h = "[redacted: password hash]";
    let rows: Vec<(String, String)> = vec![
        // sqlite3 default (list) mode, pipe-separated
        (
            format!("admin|admin|{id}|1732700000000|0\n"),
            format!("admin|admin|{h}|1732700000000|0\n"),
        ),
        (
            format!("bob|operator|{i}|1732700000000|1"),
            format!("bob|operator|{h}|1732700000000|1"),
        ),
        (format!("{d}|x"), format!("{h}|x")),
        // -separator '\t', -csv, -line, -box
        (
            format!("carol\t{old}\tviewer"),
            format!("carol\t{h}\tviewer"),
        ),
        (
            format!("carol,\"{id}\",viewer"),
            format!("carol,\"{h}\",viewer"),
        ),
        (
            format!("password_hash = {id}"),
            format!("password_hash = {h}"),
        ),
        (format!("│ dave │ {i} │"), format!("│ dave │ {h} │")),
        // -json, and JSON in a log line
        (
            format!("[{{\"username\":\"admin\",\"hash\":\"{id}\"}}]"),
            format!("[{{\"username\":\"admin\",\"hash\":\"{h}\"}}]"),
        ),
        (
            format!("user={{\"h\": \"{d}\"}}"),
            format!("user={{\"h\": \"{h}\"}}"),
        ),
        // a PHP-serialised or escaped string
        (format!("s:97:\\\"{id}\\\""), format!("s:97:\\\"{h}\\\"")),
    ];
    for (input, expected) in &rows {
        assert_eq!(redact(input).text, *expected, "input: {input:?}");
    }
    let mut value = json!({"rows": [{"password_hash": id}, {"x": format!("admin|{i}|1")}]});
    redact_json(&mut value);
    let text = value.to_string();
    assert!(!text.contains("argon2"), "{text}");
}
