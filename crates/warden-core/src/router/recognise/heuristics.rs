//! Stage 3: keyword heuristics for looser phrasings ("could you stop
//! redis for me", "anything about timeouts in the jellyfin logs", "how
//! full is the disk on pve1"). A request is read as a bag of words: an
//! action keyword plus the first word that is not vocabulary is the
//! subject; "on X" names the host. A guess is never made from a
//! diagnostic question, from a mistyped keyword (the suggestions handle
//! those), or for a change unless the request starts with the verb.
//! With a model configured, guesses go to the model instead.

use super::fast::metric_word;
use super::intent::{ControlOp, DEFAULT_LOG_LINES, Intent, ListWhat, LogsRequest, Subject};
use super::since::Since;
use super::suggest::{distance, tolerance};

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

/// Keywords the heuristics act on: a word a typo away from one of these
/// (and not itself known) is a typo, not a name.
const KEYWORDS: &[&str] = &[
    "disk",
    "usage",
    "memory",
    "cpu",
    "load",
    "network",
    "logs",
    "journal",
    "syslog",
    "restart",
    "start",
    "stop",
    "reload",
    "status",
    "running",
    "services",
    "containers",
    "errors",
    "processes",
    "ports",
    "kernel",
    "updates",
    "failed",
    "certificate",
    "space",
    "health",
    "storage",
    "swap",
    "bandwidth",
    "warnings",
    "healthy",
    "version",
];

/// Diagnostic questions are a model's job; the router never guesses them.
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

/// The request without quoted text (a filter is not a subject).
fn without_quotes(text: &str) -> String {
    let mut out = String::new();
    let mut inside: Option<char> = None;
    let mut previous = ' ';
    for c in text.chars() {
        match inside {
            Some(close) if c == close => inside = None,
            Some(_) => {}
            None if matches!(c, '"' | '`' | '“') || c == '\'' && previous.is_whitespace() => {
                inside = Some(if c == '“' { '”' } else { c });
            }
            None => out.push(c),
        }
        previous = c;
    }
    out
}

fn words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || "-_.@:'".contains(c)))
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '\'' || c == ':'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn known(word: &str) -> bool {
    STOPWORDS.contains(&word) || KEYWORDS.contains(&word)
}

/// A keyword mistyped ("usgae", "restrat"), not a name.
pub fn is_typo(word: &str) -> bool {
    !known(word)
        && word.chars().all(|c| c.is_ascii_alphabetic())
        && KEYWORDS
            .iter()
            .chain(STOPWORDS.iter().filter(|w| w.len() >= 5))
            .any(|k| distance(word, k) <= tolerance(k).min(tolerance(word)))
}

fn is_subject(word: &str) -> bool {
    !known(word) && !word.chars().all(|c| c.is_ascii_digit())
}

/// The word after "on"/"at" that is not a stopword: the host.
fn host_of(words: &[&str]) -> Option<String> {
    words
        .windows(2)
        .rev()
        .find(|pair| matches!(pair[0], "on" | "at") && is_subject(pair[1]))
        .map(|pair| pair[1].trim_start_matches('@').to_string())
}

/// Subject words, skipping the host: the first, and any joined to it by
/// "and" ("nginx and redis").
fn subjects_of(words: &[&str], host: Option<&str>) -> Vec<String> {
    let Some(first) = words
        .iter()
        .position(|w| is_subject(w) && Some(w.trim_start_matches('@')) != host)
    else {
        return Vec::new();
    };
    let mut out = vec![words[first].trim_start_matches('@').to_string()];
    let mut i = first + 1;
    while i + 1 < words.len() && words[i] == "and" && is_subject(words[i + 1]) {
        out.push(words[i + 1].trim_start_matches('@').to_string());
        i += 2;
    }
    out
}

/// One intent per subject; `None` without one.
fn each(subjects: &[String], make: impl Fn(&str) -> Intent) -> Option<Intent> {
    match subjects {
        [] => None,
        [one] => Some(make(one)),
        many => Some(Intent::Each(many.iter().map(|s| make(s)).collect())),
    }
}

/// The names right after a control verb: "stop nginx and redis for me",
/// "restart the jellyfin container on media". `None` when something else
/// is in the way ("restart nginx and tell me why"): a change is only made
/// on names the request lists plainly.
fn control_targets<'w>(rest: &[&'w str]) -> Option<Vec<&'w str>> {
    const SKIP: &[&str] = &[
        "the",
        "service",
        "services",
        "container",
        "containers",
        "daemon",
        "unit",
        "for",
        "me",
        "please",
        "now",
        "again",
        "us",
        "right",
        "away",
        "quickly",
    ];
    let mut names = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "on" | "at" => {
                // "on HOST" ends the list; only skippable words may follow.
                i += 2;
                if rest[i.min(rest.len())..].iter().any(|w| !SKIP.contains(w)) {
                    return None;
                }
                break;
            }
            "and" | "&" => {}
            w if SKIP.contains(&w) => {}
            w if is_subject(w) => names.push(w.trim_start_matches('@')),
            _ => return None,
        }
        i += 1;
    }
    (!names.is_empty()).then_some(names)
}

/// A guess and the keywords it rests on.
pub fn guess(original: &str, lower: &str) -> Option<(Intent, String)> {
    if is_diagnosis(lower) {
        return None;
    }
    let unquoted = without_quotes(lower);
    let words = words(&unquoted);
    if words.iter().any(|w| is_typo(w)) {
        // Suggestions do better than a guess around a misspelt keyword.
        return None;
    }
    let has = |w: &str| words.contains(&w);
    let host = host_of(&words);
    let subjects = subjects_of(&words, host.as_deref());
    let subject = subjects.first().cloned();

    if let Some(operation) = words.first().and_then(|w| ControlOp::parse(w)) {
        let targets = control_targets(&words[1..])?;
        let intent = each(
            &targets.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
            |name| Intent::Control {
                operation,
                subject: Subject::new(name, host.clone(), None),
            },
        )?;
        let evidence = format!(
            "keywords: `{}` first, then the name{} {}",
            words[0],
            if targets.len() == 1 { "" } else { "s" },
            targets.join(", ")
        );
        return Some((intent, evidence));
    }
    if ["log", "logs", "journal", "syslog", "journald"]
        .iter()
        .any(|w| has(w))
    {
        let filter = quoted(original).or_else(|| {
            [
                "errors", "error", "warnings", "warning", "failed", "failures",
            ]
            .iter()
            .find(|w| has(w))
            .map(|w| match *w {
                "warnings" | "warning" => "warn".to_string(),
                "failed" | "failures" => "fail".to_string(),
                _ => "error".to_string(),
            })
        });
        let lines = words
            .windows(2)
            .find(|p| p[0].parse::<u32>().is_ok() && matches!(p[1], "lines" | "entries"))
            .and_then(|p| p[0].parse().ok())
            .unwrap_or(DEFAULT_LOG_LINES);
        let since = since_in(&words);
        let system = has("syslog") || subject.as_deref().is_none_or(|s| s == "system");
        let make = |s: &str| {
            Intent::Logs(LogsRequest {
                subject: (!system).then(|| s.to_string()),
                on: host.clone(),
                lines,
                filter: filter.clone(),
                since,
            })
        };
        let intent = if system {
            make("")
        } else {
            each(&subjects, make)?
        };
        return Some((intent, format!("keyword `logs`{}", about(&subjects))));
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
        let intent = Intent::Metric {
            metric,
            on: host.or(subject),
        };
        return Some((intent, format!("keyword `{word}`")));
    }
    if has("containers") && !has("lxc") {
        let intent = Intent::List {
            what: ListWhat::Containers,
            on: host,
        };
        return Some((intent, "keyword `containers`".to_string()));
    }
    if has("services") || has("daemons") {
        let intent = Intent::List {
            what: ListWhat::Services,
            on: host,
        };
        return Some((intent, "keyword `services`".to_string()));
    }
    let status_word = [
        "running", "up", "down", "alive", "status", "health", "healthy", "active", "dead",
        "working", "ok", "okay",
    ]
    .into_iter()
    .find(|w| has(w))?;
    let intent = each(&subjects, |name| {
        Intent::Status(Subject::new(name, host.clone(), None))
    })?;
    Some((
        intent,
        format!("keyword `{status_word}`{}", about(&subjects)),
    ))
}

fn about(subjects: &[String]) -> String {
    if subjects.is_empty() {
        String::new()
    } else {
        format!(" about {}", subjects.join(", "))
    }
}

fn since_in(words: &[&str]) -> Option<Since> {
    words
        .windows(3)
        .find(|p| matches!(p[0], "last" | "past" | "since"))
        .and_then(|p| {
            Since::parse(&format!("{} {}", p[1], p[2]))
                .or_else(|| Since::parse(&format!("{} {}", p[0], p[1])))
        })
        .or_else(|| {
            words.iter().find_map(|w| {
                Since::parse(w)
                    .filter(|_| w.len() > 1 && w.chars().next().is_some_and(|c| c.is_ascii_digit()))
            })
        })
        .or_else(|| words.contains(&"today").then_some(Since::Today))
        .or_else(|| words.contains(&"yesterday").then_some(Since::Yesterday))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_of_keywords_but_not_names() {
        for typo in [
            "usgae", "restrat", "memroy", "dsik", "stauts", "runing", "lgos",
        ] {
            assert!(is_typo(typo), "{typo}");
        }
        for name in [
            "nginx",
            "redis",
            "postgres",
            "jellyfin",
            "plex",
            "loki",
            "grafana",
            "sshd",
            "docker",
            "caddy",
            "traefik",
            "mysql",
            "mariadb",
            "cron",
            "samba",
            "pihole",
            "sonarr",
            "radarr",
            "syncthing",
            "minio",
            "gitea",
            "nextcloud",
            "immich",
            "vaultwarden",
            "prometheus",
            "cache",
            "backup",
            "web1",
            "pve1",
            "disk",
            "usage",
        ] {
            assert!(!is_typo(name), "{name}");
        }
    }

    #[test]
    fn quoted_text_is_not_read_for_subjects() {
        assert_eq!(
            without_quotes("logs with \"foo and bar\" today"),
            "logs with  today"
        );
        assert_eq!(without_quotes("it's nginx"), "it's nginx");
        let (intent, _) = guess(
            "any errors in the nginx logs",
            "any errors in the nginx logs",
        )
        .unwrap_or_else(|| panic!("no guess"));
        assert_eq!(intent.name(), "logs");
    }
}
