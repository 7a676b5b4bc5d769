//! Stage 2: keyword heuristics for looser phrasings ("can nginx be
//! restarted for me", "anything about timeouts in the jellyfin logs",
//! "how full is the disk on pve1"). A request is read as a bag of words:
//! an action keyword plus the first word that is not vocabulary is the
//! subject; "on X" names the host.

use super::fast::metric_word;
use super::intent::{ControlOp, DEFAULT_LOG_LINES, Intent, ListWhat, LogsRequest, parse_since};

/// Words that are never a subject.
const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "it",
    "its",
    "it's",
    "of",
    "on",
    "at",
    "in",
    "for",
    "from",
    "to",
    "and",
    "or",
    "me",
    "my",
    "our",
    "your",
    "this",
    "that",
    "these",
    "those",
    "there",
    "any",
    "anything",
    "some",
    "something",
    "all",
    "please",
    "can",
    "could",
    "would",
    "will",
    "you",
    "i",
    "we",
    "do",
    "does",
    "did",
    "have",
    "has",
    "what",
    "which",
    "whats",
    "what's",
    "how",
    "much",
    "many",
    "show",
    "check",
    "get",
    "give",
    "tell",
    "see",
    "look",
    "view",
    "find",
    "list",
    "display",
    "print",
    "now",
    "currently",
    "current",
    "right",
    "still",
    "again",
    "with",
    "about",
    "containing",
    "mentioning",
    "matching",
    "last",
    "latest",
    "recent",
    "lines",
    "line",
    "entries",
    "up",
    "down",
    "running",
    "status",
    "health",
    "state",
    "service",
    "services",
    "container",
    "containers",
    "server",
    "host",
    "machine",
    "box",
    "logs",
    "log",
    "journal",
    "errors",
    "error",
    "warnings",
    "warning",
    "usage",
    "used",
    "free",
    "left",
    "space",
    "full",
    "disk",
    "disks",
    "memory",
    "ram",
    "cpu",
    "load",
    "network",
    "restart",
    "start",
    "stop",
    "reload",
    "bounce",
    "for",
    "by",
    "if",
    "whether",
    "ok",
    "okay",
    "alive",
    "healthy",
    "working",
    "active",
    "dead",
    "doing",
    "mean",
    "today",
    "yesterday",
    "hour",
    "hours",
    "minutes",
    "minute",
    "since",
    "past",
    "day",
    "days",
    "be",
    "being",
    "kindly",
    "quickly",
    "just",
    "real",
    "quick",
    "time",
];

/// Diagnostic questions are a model's job when one is configured.
const DIAGNOSIS: &[&str] = &[
    "why",
    "diagnose",
    "investigate",
    "troubleshoot",
    "debug",
    "fix",
    "figure",
    "analyse",
    "analyze",
    "explain",
    "compare",
    "suggest",
    "recommend",
    "optimize",
    "optimise",
];

pub fn is_diagnosis(lower: &str) -> bool {
    lower
        .split_whitespace()
        .take(3)
        .any(|w| DIAGNOSIS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
        || lower.starts_with("how come")
        || lower.starts_with("what caused")
        || lower.starts_with("what is wrong")
        || lower.starts_with("what's wrong")
}

fn words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || "-_.@:'".contains(c)))
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '\'' || c == ':'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn is_subject(word: &str) -> bool {
    !STOPWORDS.contains(&word) && !word.chars().all(|c| c.is_ascii_digit())
}

/// The word after "on"/"at" that is not a stopword: the host.
fn host_of(words: &[&str]) -> Option<String> {
    words
        .windows(2)
        .rev()
        .find(|pair| matches!(pair[0], "on" | "at") && is_subject(pair[1]))
        .map(|pair| pair[1].trim_start_matches('@').to_string())
}

/// The first subject word, skipping the host.
fn subject_of(words: &[&str], host: Option<&str>) -> Option<String> {
    words
        .iter()
        .copied()
        .filter(|w| is_subject(w))
        .map(|w| w.trim_start_matches('@'))
        .find(|w| Some(*w) != host)
        .map(str::to_string)
}

pub fn guess(original: &str, lower: &str) -> Option<Intent> {
    let words = words(lower);
    let has = |w: &str| words.contains(&w);
    let host = host_of(&words);
    let subject = subject_of(&words, host.as_deref());

    if let Some(operation) = words.iter().find_map(|w| ControlOp::parse(w)) {
        // "restart" must act on something named; "stop" inside a
        // question ("why did it stop") is a diagnosis, handled earlier.
        return Some(Intent::Control {
            operation,
            subject: subject?,
            on: host,
        });
    }
    if ["log", "logs", "journal", "syslog", "journald"]
        .iter()
        .any(|w| has(w))
    {
        let filter = [
            "errors", "error", "warnings", "warning", "failed", "failures",
        ]
        .iter()
        .find(|w| has(w))
        .map(|w| w.trim_end_matches('s').to_string())
        .or_else(|| quoted(original));
        let lines = words
            .windows(2)
            .find(|p| p[0].parse::<u32>().is_ok() && matches!(p[1], "lines" | "entries"))
            .and_then(|p| p[0].parse().ok())
            .unwrap_or(DEFAULT_LOG_LINES);
        let since = words
            .windows(3)
            .find(|p| matches!(p[0], "last" | "past" | "since"))
            .and_then(|p| parse_since(&format!("{} {}", p[1], p[2])))
            .or_else(|| {
                words.iter().find_map(|w| {
                    parse_since(w).filter(|_| {
                        w.len() > 1 && w.chars().next().is_some_and(|c| c.is_ascii_digit())
                    })
                })
            })
            .or_else(|| has("today").then(|| "today".to_string()))
            .or_else(|| has("yesterday").then(|| "yesterday".to_string()));
        let system = has("syslog") || subject.as_deref().is_none_or(|s| s == "system");
        return Some(Intent::Logs(LogsRequest {
            subject: if system { None } else { subject },
            on: host,
            lines,
            filter,
            since,
        }));
    }
    let metric_word_found = words.iter().find(|w| {
        matches!(
            **w,
            "disk"
                | "disks"
                | "space"
                | "storage"
                | "full"
                | "memory"
                | "ram"
                | "swap"
                | "cpu"
                | "load"
                | "network"
                | "bandwidth"
        )
    });
    if let Some(word) = metric_word_found {
        let metric = if *word == "full" {
            metric_word("disk")
        } else {
            metric_word(word)
        };
        return Some(Intent::Metric {
            metric,
            on: host.or(subject),
        });
    }
    if has("containers") && !has("lxc") {
        return Some(Intent::List {
            what: ListWhat::Containers,
            on: host,
        });
    }
    if has("services") || has("daemons") {
        return Some(Intent::List {
            what: ListWhat::Services,
            on: host,
        });
    }
    let status_word = [
        "running", "up", "down", "alive", "status", "health", "healthy", "active", "dead",
        "working", "ok", "okay",
    ]
    .iter()
    .any(|w| has(w));
    if status_word {
        return Some(Intent::Status {
            subject: subject?,
            on: host,
        });
    }
    None
}

/// Text in quotes or backquotes, as typed.
fn quoted(original: &str) -> Option<String> {
    for quote in ['"', '`', '\''] {
        let mut parts = original.split(quote);
        parts.next()?;
        if let Some(inner) = parts.next() {
            if parts.next().is_some() && !inner.trim().is_empty() {
                return Some(inner.trim().to_string());
            }
        }
    }
    None
}
