//! The human part of an error response: the message out of the usual JSON
//! error shapes, or the start of a non-JSON body, shortened.

use serde_json::Value;

/// The longest error message passed on (characters).
const MAX_MESSAGE_CHARS: usize = 500;

/// Extracts the message from the error shapes model APIs use:
/// `{"error":{"message":..}}` (OpenAI, Gemini, most compatible servers),
/// `{"error":"..."}` (Ollama, llama.cpp), Anthropic's
/// `{"type":"error","error":{"type":..,"message":..}}`, `{"message":..}`
/// and `{"detail":..}` (vLLM, FastAPI), and Gemini's occasional array.
pub fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let message = match serde_json::from_str::<Value>(&text) {
        Ok(json) => message_from_json(&json).unwrap_or_else(|| text.trim().to_string()),
        Err(_) => text.trim().to_string(),
    };
    if message.is_empty() {
        return "(empty response body)".to_string();
    }
    truncate(&message, MAX_MESSAGE_CHARS)
}

pub fn message_from_json(json: &Value) -> Option<String> {
    if let Value::Array(items) = json {
        return items.first().and_then(message_from_json);
    }
    match json.get("error") {
        Some(Value::String(message)) => return Some(message.clone()),
        Some(error @ Value::Object(_)) => {
            let message = error["message"].as_str().map(str::to_string);
            // Anthropic puts the useful category in `type`
            // (`overloaded_error`, `rate_limit_error`, ...), Gemini in `status`.
            let kind = error["type"].as_str().or(error["status"].as_str());
            return match (kind, message) {
                (Some(kind), Some(message)) => Some(format!("{kind}: {message}")),
                (None, Some(message)) => Some(message),
                (Some(kind), None) => Some(kind.to_string()),
                (None, None) => Some(error.to_string()),
            };
        }
        _ => {}
    }
    for key in ["message", "detail"] {
        match json.get(key) {
            Some(Value::String(message)) => return Some(message.clone()),
            Some(other @ (Value::Object(_) | Value::Array(_))) => return Some(other.to_string()),
            _ => {}
        }
    }
    None
}

/// At most `max` characters, cut on a character boundary, marked when cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_shapes() {
        assert_eq!(
            error_message(br#"{"error":{"message":"Invalid model","type":"invalid_request_error","code":null}}"#),
            "invalid_request_error: Invalid model"
        );
        assert_eq!(
            error_message(br#"{"error":"model 'x' not found"}"#),
            "model 'x' not found"
        );
        assert_eq!(
            error_message(
                br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "overloaded_error: Overloaded"
        );
        assert_eq!(
            error_message(
                br#"[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]"#
            ),
            "INVALID_ARGUMENT: API key not valid."
        );
        assert_eq!(
            error_message(br#"{"object":"error","message":"bad"}"#),
            "bad"
        );
        assert_eq!(error_message(br#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(
            error_message(b"  <html>Bad Gateway</html>\n"),
            "<html>Bad Gateway</html>"
        );
        assert_eq!(error_message(b""), "(empty response body)");
    }

    #[test]
    fn long_messages_are_cut_on_char_boundaries() {
        let long = "ü".repeat(2000);
        let message = error_message(long.as_bytes());
        assert_eq!(message.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(message.ends_with('…'));
    }
}
