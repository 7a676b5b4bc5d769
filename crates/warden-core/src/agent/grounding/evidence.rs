//! What a turn's answer may rest on: the user's own words, Warden's notes
//! (mentions it resolved), and every tool call of this turn — what it
//! asked and what it returned (as the model saw it, secrets redacted).

use serde_json::Value;
use warden_protocol::ToolKind;

use super::quantity::{Quantity, quantities};

/// One tool call of the turn.
#[derive(Debug, Clone)]
pub struct CallEvidence {
    pub tool: String,
    pub kind: ToolKind,
    pub ok: bool,
    /// Refused before it ran (approval, policy, gates).
    pub blocked: bool,
    /// The tool and its arguments, lower case.
    pub asked: String,
    /// Every string and number of the response, lower case.
    pub returned: String,
    /// `control service web1 (restart nginx)`, for the user.
    pub described: String,
    /// The exit status of the command, when one ran.
    pub exit_code: Option<i64>,
    /// The first non-empty line of stderr, or else of the error message.
    pub first_error_line: Option<String>,
}

/// Everything an answer of this turn may rest on.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// The user's words and Warden's notes, lower case.
    said: String,
    calls: Vec<CallEvidence>,
}

impl Evidence {
    /// Evidence of a turn that starts with the user's `words`. Only what
    /// the user states counts: a question ("is nginx running?") or a
    /// request ("restart nginx") is no evidence of its answer.
    pub fn new(words: &str) -> Self {
        Evidence {
            said: statements(&words.to_lowercase()),
            calls: Vec::new(),
        }
    }

    /// Warden's own words to the model this turn (resolved mentions).
    pub fn note(&mut self, text: &str) {
        self.said.push('\n');
        self.said.push_str(&text.to_lowercase());
    }

    /// A finished call: what was asked and what came back (the response as
    /// the model saw it).
    pub fn record(&mut self, tool: &str, arguments: &Value, kind: ToolKind, response: &Value) {
        let ok = response["ok"].as_bool().unwrap_or(false);
        let error = &response["error"];
        let blocked = error["blocked"].as_bool().unwrap_or(false);
        let mut asked = tool.to_lowercase();
        flatten(arguments, &mut asked);
        let mut returned = String::new();
        flatten(response, &mut returned);
        let output = &error["details"]["output"];
        let exit_code = output["exit_code"]
            .as_i64()
            .or_else(|| response["data"]["exit_code"].as_i64());
        let first_error_line = [output["stderr"].as_str(), error["message"].as_str()]
            .into_iter()
            .flatten()
            .find_map(|text| text.lines().map(str::trim).find(|l| !l.is_empty()))
            .map(str::to_string);
        self.calls.push(CallEvidence {
            tool: tool.to_string(),
            kind,
            ok,
            blocked,
            asked,
            returned,
            described: describe(tool, arguments),
            exit_code,
            first_error_line,
        });
    }

    pub fn calls(&self) -> &[CallEvidence] {
        &self.calls
    }

    /// Whether any call of this turn succeeded.
    pub fn any_success(&self) -> bool {
        self.calls.iter().any(|c| c.ok)
    }

    /// Whether a call of `kind` (any kind: `None`) succeeded, asking for
    /// one of `stems` (any: empty).
    pub fn succeeded(&self, kind: Option<ToolKind>, stems: &[&str]) -> bool {
        self.calls.iter().any(|c| {
            c.ok && kind.is_none_or(|k| c.kind == k)
                && (stems.is_empty() || stems.iter().any(|s| contains_word_start(&c.asked, s)))
        })
    }

    /// Whether `token` (lower case) is in the user's words or any call.
    pub fn mentions(&self, token: &str) -> bool {
        contains_token(&self.said, token)
            || self
                .calls
                .iter()
                .any(|c| contains_token(&c.returned, token) || contains_token(&c.asked, token))
    }

    /// Every number the evidence holds.
    pub fn quantities(&self) -> Vec<Quantity> {
        let mut all = quantities(&self.said);
        for call in &self.calls {
            all.extend(quantities(&call.asked));
            all.extend(quantities(&call.returned));
        }
        all
    }
}

/// Words that open a question or a request.
const ASKING: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "do",
    "does",
    "did",
    "has",
    "have",
    "can",
    "could",
    "would",
    "will",
    "should",
    "what",
    "what's",
    "whats",
    "which",
    "how",
    "why",
    "when",
    "where",
    "who",
    "whose",
    "please",
    "check",
    "show",
    "list",
    "tell",
    "give",
    "get",
    "find",
    "run",
    "restart",
    "stop",
    "start",
    "reboot",
    "reload",
    "delete",
    "remove",
    "clean",
    "free",
    "update",
    "upgrade",
    "install",
    "take",
    "make",
    "create",
    "look",
    "see",
    "verify",
    "confirm",
    "ist",
    "sind",
    "kannst",
    "wie",
    "was",
    "welche",
    "warum",
    "starte",
    "prüfe",
    "zeig",
    "est-ce",
    "quel",
    "quelle",
    "combien",
    "pourquoi",
    "redémarre",
    "vérifie",
    "montre",
    "qué",
    "cuál",
    "cuánto",
    "cuántos",
    "por",
    "reinicia",
    "revisa",
    "muestra",
];

/// The clauses of the user's words that state something (not questions,
/// not requests).
fn statements(words: &str) -> String {
    let mut kept = String::new();
    let mut clause = String::new();
    let mut chars = words.chars().peekable();
    while let Some(c) = chars.next() {
        // `.` and `,` end a clause before a blank only (not in `1.5G`).
        let ends = match c {
            '?' | ';' | '\n' => true,
            '.' | '!' | ',' => chars.peek().is_none_or(|n| n.is_whitespace()),
            _ => false,
        };
        if !ends {
            clause.push(c);
        }
        if ends || chars.peek().is_none() {
            let first = clause
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .trim_start_matches(['@', '"', '\'', '(']);
            let asking = c == '?' || ASKING.contains(&first);
            if !asking && !clause.trim().is_empty() {
                kept.push_str(clause.trim());
                kept.push('\n');
            }
            clause.clear();
        }
    }
    kept
}

/// Strings, numbers and keys of `value`, one per line.
fn flatten(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => {
            out.push('\n');
            out.push_str(&text.to_lowercase());
        }
        Value::Number(number) => {
            out.push('\n');
            out.push_str(&number.to_string());
        }
        Value::Bool(_) | Value::Null => {}
        Value::Array(items) => items.iter().for_each(|item| flatten(item, out)),
        Value::Object(fields) => {
            for (key, item) in fields {
                out.push('\n');
                out.push_str(&key.to_lowercase());
                flatten(item, out);
            }
        }
    }
}

/// `control service web1 (restart nginx)`.
fn describe(tool: &str, arguments: &Value) -> String {
    let field = |key: &str| arguments.get(key).and_then(Value::as_str);
    let mut text = tool.to_string();
    for part in [field("action"), field("target")].into_iter().flatten() {
        text.push(' ');
        text.push_str(part);
    }
    let detail: Vec<&str> = ["operation", "service", "command", "path", "name"]
        .into_iter()
        .filter_map(field)
        .collect();
    if !detail.is_empty() {
        text.push_str(&format!(" ({})", detail.join(" ")));
    }
    text
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `token` in `text`, not inside a longer word on either side.
pub(super) fn contains_token(text: &str, token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    text.match_indices(token).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + token.len()..].chars().next();
        before.is_none_or(|c| !is_word(c)) && after.is_none_or(|c| !is_word(c))
    })
}

/// A word of `text` starting with `stem` (`restart` in `restarted`).
fn contains_word_start(text: &str, stem: &str) -> bool {
    text.match_indices(stem).any(|(at, _)| {
        text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_match_whole_words_only() {
        assert!(contains_token("host:web1 is up", "web1"));
        assert!(!contains_token("host:web12 is up", "web1"));
        assert!(contains_token(
            "snapshot before-upgrade taken",
            "before-upgrade"
        ));
        assert!(!contains_token("inactive (dead)", "active"));
    }

    #[test]
    fn a_failed_write_keeps_its_exit_status_and_first_stderr_line() {
        let mut evidence = Evidence::new("restart nginx on web1");
        evidence.record(
            "control",
            &json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
            ToolKind::Write,
            &json!({"ok": false, "error": {"code": "EXECUTION_FAILED", "message": "exit code 1",
                "blocked": false, "failed": true, "retryable": false,
                "details": {"output": {"exit_code": 1, "stdout": "", "stderr": "\nJob for nginx.service failed.\nSee journalctl"}}}}),
        );
        let call = &evidence.calls()[0];
        assert_eq!(call.exit_code, Some(1));
        assert_eq!(
            call.first_error_line.as_deref(),
            Some("Job for nginx.service failed.")
        );
        assert_eq!(call.described, "control service web1 (restart nginx)");
        assert!(!evidence.any_success());
        assert!(evidence.mentions("nginx"));
    }
}
