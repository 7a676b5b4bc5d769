//! What a request asks for, as the router understands it. Three stages:
//! regex fast paths for the common phrasings, a parser for requests that
//! are themselves shell commands, and keyword heuristics for looser
//! phrasings. The parser runs before the heuristics because a literal
//! command is unambiguous, while keywords are a guess. Names are kept as
//! typed; resolving them is the planner's job.

use crate::executor::host_metrics::Metric;
use warden_protocol::ResourceKind;

/// Which stage recognised the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    FastPath,
    Heuristic,
    Parser,
    /// Handed to the configured model.
    Llm,
    /// Nothing matched and no model is configured.
    Unmatched,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::FastPath => "fast_path",
            Stage::Heuristic => "heuristic",
            Stage::Parser => "parser",
            Stage::Llm => "llm",
            Stage::Unmatched => "unmatched",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlOp {
    Start,
    Stop,
    Restart,
    Reload,
}

impl ControlOp {
    pub fn parse(word: &str) -> Option<ControlOp> {
        match word {
            "start" => Some(ControlOp::Start),
            "stop" => Some(ControlOp::Stop),
            "restart" | "bounce" => Some(ControlOp::Restart),
            "reload" => Some(ControlOp::Reload),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ControlOp::Start => "start",
            ControlOp::Stop => "stop",
            ControlOp::Restart => "restart",
            ControlOp::Reload => "reload",
        }
    }

    /// "restarted", for answers.
    pub fn past(self) -> &'static str {
        match self {
            ControlOp::Start => "started",
            ControlOp::Stop => "stopped",
            ControlOp::Restart => "restarted",
            ControlOp::Reload => "reloaded",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListWhat {
    Services,
    Containers,
    Resources(Option<ResourceKind>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsRequest {
    /// A service, container or guest; `None` is the system log.
    pub subject: Option<String>,
    pub on: Option<String>,
    pub lines: u32,
    /// Only lines containing this (case-insensitive).
    pub filter: Option<String>,
    /// journalctl/docker `--since` syntax ("1 hour ago", "10m").
    pub since: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    Status {
        subject: String,
        on: Option<String>,
    },
    Metric {
        metric: Metric,
        on: Option<String>,
    },
    Logs(LogsRequest),
    List {
        what: ListWhat,
        on: Option<String>,
    },
    Control {
        operation: ControlOp,
        subject: String,
        on: Option<String>,
    },
    Remember {
        note: String,
    },
    Recall {
        query: String,
    },
    /// What Warden's command policy says about a command.
    Explain {
        command: String,
    },
    /// The request is a shell command: run it (read tool if read-only,
    /// otherwise the control tool, which asks for approval).
    Run {
        command: String,
    },
    Help,
}

impl Intent {
    /// A short name for logs, `--verbose` and `warden explain`.
    pub fn name(&self) -> &'static str {
        match self {
            Intent::Status { .. } => "status",
            Intent::Metric { .. } => "metric",
            Intent::Logs(_) => "logs",
            Intent::List { .. } => "list",
            Intent::Control { .. } => "control",
            Intent::Remember { .. } => "remember",
            Intent::Recall { .. } => "recall",
            Intent::Explain { .. } => "explain",
            Intent::Run { .. } => "run",
            Intent::Help => "help",
        }
    }
}

/// Default number of log lines.
pub const DEFAULT_LOG_LINES: u32 = 50;
/// Most log lines a route asks for.
pub const MAX_LOG_LINES: u32 = 2000;

/// Recognise a request; `None` when no stage matched.
pub fn recognise(text: &str) -> Option<(Stage, Intent)> {
    let original = strip_politeness(text.trim());
    if original.is_empty() {
        return None;
    }
    let lower = original.to_lowercase();
    if let Some(intent) = super::fast::match_fast(original, &lower) {
        return Some((Stage::FastPath, intent));
    }
    // A literal command ("systemctl status nginx", "$ df -h") is taken as
    // one before keyword guessing, which would read "status" as a question.
    if let Some(intent) = super::command_parser::as_command(original) {
        return Some((Stage::Parser, intent));
    }
    super::heuristics::guess(original, &lower).map(|intent| (Stage::Heuristic, intent))
}

/// "please", "can you", "warden," and trailing punctuation say nothing
/// about the request.
fn strip_politeness(text: &str) -> &str {
    let mut text = text.trim().trim_end_matches(['?', '!', '.', ' ']);
    loop {
        let lower = text.to_lowercase();
        let prefix = [
            "please ",
            "pls ",
            "warden, ",
            "warden ",
            "hey, ",
            "hey ",
            "can you ",
            "could you ",
            "would you ",
            "can u ",
            "i want to ",
            "i'd like to ",
            "i want you to ",
        ]
        .into_iter()
        .find(|p| lower.starts_with(p));
        match prefix {
            Some(p) => text = text[p.len()..].trim_start(),
            None => break,
        }
    }
    text.trim_end_matches(" please").trim()
}

/// Parse "since" phrases into what `journalctl --since` and `docker logs
/// --since` both accept ("1h" → "1 hour ago" for journalctl is done by
/// the planner).
pub fn parse_since(phrase: &str) -> Option<String> {
    let p = phrase.trim().to_lowercase();
    let p = p
        .strip_prefix("the last ")
        .or_else(|| p.strip_prefix("last "))
        .or_else(|| p.strip_prefix("past "))
        .unwrap_or(&p);
    match p {
        "hour" => return Some("1 hour ago".into()),
        "day" | "24h" | "24 hours" => return Some("1 day ago".into()),
        "minute" => return Some("1 minute ago".into()),
        "today" => return Some("today".into()),
        "yesterday" => return Some("yesterday".into()),
        _ => {}
    }
    let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
    let amount: u64 = digits.parse().ok()?;
    let unit = p[digits.len()..].trim();
    let unit = match unit {
        "s" | "sec" | "secs" | "second" | "seconds" => "second",
        "m" | "min" | "mins" | "minute" | "minutes" => "minute",
        "h" | "hr" | "hrs" | "hour" | "hours" => "hour",
        "d" | "day" | "days" => "day",
        "w" | "week" | "weeks" => "week",
        _ => return None,
    };
    let plural = if amount == 1 { "" } else { "s" };
    Some(format!("{amount} {unit}{plural} ago"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn politeness_is_ignored() {
        assert_eq!(
            strip_politeness("Please can you restart nginx?"),
            "restart nginx"
        );
        assert_eq!(strip_politeness("warden, disk usage please"), "disk usage");
    }

    #[test]
    fn since_phrases() {
        assert_eq!(parse_since("1h").as_deref(), Some("1 hour ago"));
        assert_eq!(
            parse_since("the last 10 minutes").as_deref(),
            Some("10 minutes ago")
        );
        assert_eq!(parse_since("2 days").as_deref(), Some("2 days ago"));
        assert_eq!(parse_since("yesterday").as_deref(), Some("yesterday"));
        assert_eq!(parse_since("last hour").as_deref(), Some("1 hour ago"));
        assert_eq!(parse_since("a while"), None);
    }
}
