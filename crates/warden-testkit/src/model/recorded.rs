//! One request as the fake model server received it, with what tests ask
//! of it: a header, the path, the model, `max_tokens`, and — read in the
//! server's wire format — the last user message and how many times the
//! model has answered since.

use serde_json::Value;

use super::Wire;

#[derive(Debug, Clone)]
pub struct Recorded {
    pub wire: Wire,
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    pub raw_body: String,
    /// The body as JSON (`Null` when empty or not JSON).
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or(&self.target)
    }

    /// The model asked for: the body's `model`, or for Gemini the path's
    /// `models/NAME:…`.
    pub fn model(&self) -> Option<String> {
        match self.wire {
            Wire::OpenAi | Wire::Anthropic => self.body["model"].as_str().map(str::to_string),
            Wire::Gemini => self
                .path()
                .split("models/")
                .nth(1)
                .and_then(|rest| rest.split(':').next())
                .map(str::to_string),
        }
    }

    /// The output token limit the request set, in the wire's field.
    pub fn max_tokens(&self) -> Option<u64> {
        match self.wire {
            Wire::OpenAi => self.body["max_tokens"]
                .as_u64()
                .or_else(|| self.body["max_completion_tokens"].as_u64()),
            Wire::Anthropic => self.body["max_tokens"].as_u64(),
            Wire::Gemini => self.body["generationConfig"]["maxOutputTokens"].as_u64(),
        }
    }

    /// The conversation's messages (`contents` for Gemini).
    fn messages(&self) -> &[Value] {
        let key = match self.wire {
            Wire::OpenAi | Wire::Anthropic => "messages",
            Wire::Gemini => "contents",
        };
        self.body[key].as_array().map_or(&[], Vec::as_slice)
    }

    /// Where the last message a person typed is, and its text. Tool
    /// results that travel as user messages (Anthropic's `tool_result`,
    /// Gemini's `functionResponse`) are not typed by a person.
    fn last_user(&self) -> Option<(usize, String)> {
        let messages = self.messages();
        messages.iter().enumerate().rev().find_map(|(i, m)| {
            if m["role"] != "user" {
                return None;
            }
            user_text(self.wire, m).map(|text| (i, text))
        })
    }

    /// The last message a person typed ("" when none).
    pub fn last_user_text(&self) -> String {
        self.last_user().map(|(_, text)| text).unwrap_or_default()
    }

    /// How many times the model has answered since the last user message:
    /// the step of a script the request is at.
    pub fn answers_since_user(&self) -> usize {
        let messages = self.messages();
        let from = self.last_user().map_or(0, |(i, _)| i);
        let answer = match self.wire {
            Wire::OpenAi | Wire::Anthropic => "assistant",
            Wire::Gemini => "model",
        };
        messages[from..]
            .iter()
            .filter(|m| m["role"] == answer)
            .count()
    }
}

/// The typed text of a user message, `None` for a message that only
/// carries tool results.
fn user_text(wire: Wire, message: &Value) -> Option<String> {
    match wire {
        Wire::OpenAi => Some(match &message["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }),
        Wire::Anthropic => match &message["content"] {
            Value::String(s) => Some(s.clone()),
            Value::Array(blocks) => joined(blocks.iter().filter(|b| b["type"] == "text"), "text"),
            _ => None,
        },
        Wire::Gemini => {
            let parts = message["parts"].as_array()?;
            joined(parts.iter().filter(|p| p["text"].is_string()), "text")
        }
    }
}

fn joined<'a>(parts: impl Iterator<Item = &'a Value>, key: &str) -> Option<String> {
    let texts: Vec<&str> = parts.filter_map(|p| p[key].as_str()).collect();
    (!texts.is_empty()).then(|| texts.concat())
}
