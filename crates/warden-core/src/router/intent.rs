//! What a request asks for, as the router understands it. Three stages:
//! regex fast paths for the common phrasings, a parser for requests that
//! are themselves shell commands, and keyword heuristics for looser
//! phrasings (trusted only without a model). The parser runs before the
//! heuristics because a literal command is unambiguous, while keywords are
//! a guess. Names are kept as typed; resolving them is the planner's job.

use warden_protocol::ResourceKind;

use super::certificate::Endpoint;
pub use super::facts::{Fact, ProcessOrder};
use super::since::Since;
use crate::executor::host_metrics::Metric;

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
    pub since: Option<Since>,
}

/// What the words of a request said a subject is ("the cache *container*").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectKind {
    Service,
    Container,
    Guest,
}

impl SubjectKind {
    pub fn parse(word: &str) -> Option<SubjectKind> {
        match word.trim().trim_end_matches('s') {
            "service" | "daemon" | "unit" => Some(SubjectKind::Service),
            "container" | "docker container" => Some(SubjectKind::Container),
            "vm" | "lxc" | "guest" | "virtual machine" => Some(SubjectKind::Guest),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            SubjectKind::Service => "service",
            SubjectKind::Container => "container",
            SubjectKind::Guest => "guest (VM or LXC)",
        }
    }
}

/// A named thing in a request, with what the words said it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    pub name: String,
    pub on: Option<String>,
    pub said: Option<SubjectKind>,
}

impl Subject {
    pub fn new(name: impl Into<String>, on: Option<String>, said: Option<SubjectKind>) -> Self {
        Subject {
            name: name.into(),
            on,
            said,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    Status(Subject),
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
        subject: Subject,
    },
    /// Top processes, open ports, who is logged in, kernel, updates, failed units.
    Fact {
        fact: Fact,
        on: Option<String>,
    },
    /// Errors in the system log, host-wide.
    Errors {
        since: Option<Since>,
        on: Option<String>,
    },
    /// TLS certificate expiry of an endpoint, checked from `on`.
    Certificate {
        endpoint: Endpoint,
        on: Option<String>,
    },
    /// Why a container or service exited.
    WhyExit(Subject),
    /// The same request for several subjects ("stop A and B"): one plan each.
    Each(Vec<Intent>),
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
            Intent::Status(_) => "status",
            Intent::Metric { .. } => "metric",
            Intent::Logs(_) => "logs",
            Intent::List { .. } => "list",
            Intent::Control { .. } => "control",
            Intent::Fact { fact, .. } => fact.name(),
            Intent::Errors { .. } => "errors",
            Intent::Certificate { .. } => "certificate",
            Intent::WhyExit(_) => "why_exit",
            Intent::Each(parts) => parts.first().map_or("each", Intent::name),
            Intent::Remember { .. } => "remember",
            Intent::Recall { .. } => "recall",
            Intent::Explain { .. } => "explain",
            Intent::Run { .. } => "run",
            Intent::Help => "help",
        }
    }

    /// Whether carrying it out changes something.
    pub fn writes(&self) -> bool {
        match self {
            Intent::Control { .. } | Intent::Remember { .. } => true,
            Intent::Each(parts) => parts.iter().any(Intent::writes),
            Intent::Status(_)
            | Intent::Metric { .. }
            | Intent::Logs(_)
            | Intent::List { .. }
            | Intent::Fact { .. }
            | Intent::Errors { .. }
            | Intent::Certificate { .. }
            | Intent::WhyExit(_)
            | Intent::Recall { .. }
            | Intent::Explain { .. }
            | Intent::Run { .. }
            | Intent::Help => false,
        }
    }
}

/// A recognised request: the stage, the intent, and what matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recognised {
    pub stage: Stage,
    pub intent: Intent,
    /// The pattern, parse or keywords that matched, for `warden explain`.
    pub evidence: String,
}

/// Default number of log lines.
pub const DEFAULT_LOG_LINES: u32 = 50;
/// Most log lines a route asks for.
pub const MAX_LOG_LINES: u32 = 2000;

/// Recognise a request; `None` when no stage matched.
pub fn recognise(text: &str) -> Option<Recognised> {
    let original = strip_politeness(text.trim());
    if original.is_empty() {
        return None;
    }
    let lower = original.to_lowercase();
    if let Some((pattern, intent)) = super::fast::match_fast(original, &lower) {
        return Some(Recognised {
            stage: Stage::FastPath,
            intent,
            evidence: format!("the `{pattern}` pattern matched the whole request"),
        });
    }
    // A literal command ("systemctl status nginx", "$ df -h") is taken as
    // one before keyword guessing, which would read "status" as a question.
    if let Some(intent) = super::command_parser::as_command(original) {
        let program = match &intent {
            Intent::Run { command } => command
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string(),
            _ => String::new(),
        };
        return Some(Recognised {
            stage: Stage::Parser,
            intent,
            evidence: format!(
                "it parses as a shell command, and `{program}` is a program the command policy knows"
            ),
        });
    }
    super::heuristics::guess(original, &lower).map(|(intent, evidence)| Recognised {
        stage: Stage::Heuristic,
        intent,
        evidence,
    })
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
}
