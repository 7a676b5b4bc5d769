//! Stage 3: keyword heuristics for looser phrasings ("could you stop
//! redis for me", "anything about timeouts in the jellyfin logs", "how
//! full is the disk on pve1"). A request is read as a bag of words: an
//! action keyword plus the first word that is not vocabulary is the
//! subject; "on X" names the host. A guess is never made from a
//! diagnostic question, from a mistyped keyword (the suggestions handle
//! those), or for a change unless the request starts with the verb.
//! With a model configured, guesses go to the model instead. The words it
//! knows are in `keywords`.

use super::fast::metric_word;
use super::intent::{ControlOp, DEFAULT_LOG_LINES, Intent, ListWhat, LogsRequest, Subject};
use super::keywords::{is_diagnosis, is_subject, is_typo};
use super::since::Since;

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
