//! The heuristics' vocabulary: words that are never a subject, the
//! keywords they act on, and the words of a diagnostic question; and with
//! them, telling a mistyped keyword ("usgae") from a name ("nginx").

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

/// A diagnostic question ("why …", "what is wrong …"): the model's job.
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

/// A word that may name something: not vocabulary, not a number.
pub fn is_subject(word: &str) -> bool {
    !known(word) && !word.chars().all(|c| c.is_ascii_digit())
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
}
