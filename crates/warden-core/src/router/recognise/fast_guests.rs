//! Fast paths for Proxmox requests: history over a window ("memory of web
//! this week", "cpu of pve1 today"), a guest's snapshots, taking one, and
//! rolling back to one. Guest power ("stop web", "kill ct 141") is the
//! general `control` pattern. Named groups keep the patterns readable:
//! `kind` and `after` are what the words said the subject is, `name` the
//! subject, `snap` a snapshot name, `window` the rest of a history request.

use regex_lite::Captures;

use super::fast::{LEAD, NAME, Pattern, kind, metric_word, typed};
use super::intent::{Intent, Subject};
use super::window::Window;

/// A subject with what the words said it is: "vm 101", "the web vm",
/// "ct 141", "node pve1".
fn subject() -> String {
    const KINDS: &str = r"vm|lxc|ct|guest|container|virtual[ \t]+machine";
    format!(
        r"(?:the[ \t]+)?(?:(?P<kind>{KINDS})[ \t]+|node[ \t]+)?(?P<name>{NAME})(?:[ \t]+(?P<after>{KINDS}))?"
    )
}

/// A snapshot name as typed, optionally quoted.
const SNAP: &str = r#"["'`]?(?P<snap>[a-z0-9_][a-z0-9_.\-]*)["'`]?"#;

const METRICS: &str = r"cpu|cpus|processor|memory|mem|ram|swap|disk|disks|disk[ \t]+space|storage|load|load[ \t]+average|network|net|bandwidth";
const METRIC_SUFFIX: &str = r"(?:[ \t]+(?:usage|use|utili[sz]ation|consumption|used))?(?:[ \t]+(?:history|graph|trend|stats))?";

static HISTORY_OF: Pattern = Pattern::new("history_of", || {
    let subject = subject();
    format!(
        r"^{LEAD}(?:(?P<metric>{METRICS}){METRIC_SUFFIX}|history|usage|stats|metrics|graphs?|trends?)[ \t]+(?:of|for|on|in)[ \t]+{subject}(?P<window>[ \t].+)$"
    )
});

static HISTORY_SUFFIX: Pattern = Pattern::new("history_suffix", || {
    let subject = subject();
    format!(
        r"^{LEAD}{subject}(?:'s)?[ \t]+(?:(?P<metric>{METRICS}){METRIC_SUFFIX}|history|usage|stats|metrics)(?P<window>[ \t].+)$"
    )
});

static HISTORY_HOW_MUCH: Pattern = Pattern::new("history_how_much", || {
    let subject = subject();
    format!(
        r"^how[ \t]+much[ \t]+(?P<metric>{METRICS})[ \t]+(?:did|has)[ \t]+{subject}[ \t]+(?:use|used|take|taken)(?P<window>[ \t].+)$"
    )
});

/// "cpu usage today": this machine's (or the first node's) history.
static HISTORY_HERE: Pattern = Pattern::new("history_here", || {
    format!(r"^{LEAD}(?P<metric>{METRICS}){METRIC_SUFFIX}(?P<window>[ \t].+)$")
});

static SNAPSHOTS_OF: Pattern = Pattern::with_words("snapshots_of", &["snapshot"], || {
    let subject = subject();
    format!(
        r"^{LEAD}(?:all[ \t]+)?(?:the[ \t]+)?(?:existing[ \t]+)?snapshots?[ \t]+(?:of|for|on)[ \t]+{subject}$"
    )
});

static SNAPSHOTS_SUFFIX: Pattern = Pattern::with_words("snapshots_suffix", &["snapshots"], || {
    let subject = subject();
    format!(r"^{LEAD}{subject}(?:'s)?[ \t]+snapshots$")
});

static SNAPSHOTS_WHICH: Pattern = Pattern::with_words("snapshots_which", &["snapshots"], || {
    let subject = subject();
    format!(
        r"^(?:what|which)[ \t]+snapshots[ \t]+(?:does|do|has)[ \t]+{subject}[ \t]+(?:have|got)$"
    )
});

static SNAPSHOTS_ANY: Pattern = Pattern::with_words("snapshots_any", &["snapshots"], || {
    let subject = subject();
    format!(r"^(?:does|has)[ \t]+{subject}[ \t]+(?:have|got)[ \t]+(?:any[ \t]+)?snapshots$")
});

static TAKE_SNAPSHOT: Pattern = Pattern::with_words("take_snapshot", &["snapshot"], || {
    let subject = subject();
    format!(
        r"^(?:(?:take|make|create)[ \t]+(?:a[ \t]+)?(?:new[ \t]+)?snapshot[ \t]+(?:of|for)|snapshot)[ \t]+{subject}(?:[ \t]+(?:named|called|as)[ \t]+{SNAP})?$"
    )
});

static TAKE_NAMED_SNAPSHOT: Pattern = Pattern::with_words(
    "take_named_snapshot",
    &["snapshot"],
    || {
        let subject = subject();
        format!(
            r"^(?:take|make|create)[ \t]+(?:a[ \t]+)?(?:new[ \t]+)?snapshot[ \t]+(?:named|called)[ \t]+{SNAP}[ \t]+(?:of|for)[ \t]+{subject}$"
        )
    },
);

static ROLLBACK: Pattern = Pattern::with_words("rollback", &["roll", "revert", "restore"], || {
    let subject = subject();
    format!(
        r"^(?:roll[ \t]*back|revert|restore)[ \t]+{subject}[ \t]+(?:to|from)[ \t]+(?:the[ \t]+)?(?:snapshot[ \t]+)?{SNAP}(?:[ \t]+snapshot)?$"
    )
});

static ROLLBACK_TO: Pattern = Pattern::with_words("rollback_to", &["roll", "revert"], || {
    let subject = subject();
    format!(
        r"^(?:roll[ \t]*back|revert)[ \t]+to[ \t]+(?:the[ \t]+)?(?:snapshot[ \t]+)?{SNAP}[ \t]+(?:on|of|for)[ \t]+{subject}$"
    )
});

/// Every pattern here, for the compile check.
#[cfg(test)]
pub(super) fn patterns() -> [&'static Pattern; 12] {
    [
        &HISTORY_OF,
        &HISTORY_SUFFIX,
        &HISTORY_HOW_MUCH,
        &HISTORY_HERE,
        &SNAPSHOTS_OF,
        &SNAPSHOTS_SUFFIX,
        &SNAPSHOTS_WHICH,
        &SNAPSHOTS_ANY,
        &TAKE_SNAPSHOT,
        &TAKE_NAMED_SNAPSHOT,
        &ROLLBACK,
        &ROLLBACK_TO,
    ]
}

/// Words a subject can never be ("cpu usage today", "list snapshots" have none).
const NOT_A_SUBJECT: &[&str] = &[
    "cpu",
    "cpus",
    "memory",
    "mem",
    "ram",
    "swap",
    "disk",
    "disks",
    "storage",
    "load",
    "network",
    "net",
    "bandwidth",
    "usage",
    "history",
    "stats",
    "metrics",
    "the",
    "my",
    "this",
    "all",
    "list",
    "show",
    "get",
    "check",
    "display",
    "print",
    "give",
    "tell",
    "me",
    "what",
    "which",
    "any",
];

/// The subject of a match, or `None` when its name is a word of the request.
fn subject_of(c: &Captures<'_>) -> Option<Subject> {
    let name = c.name("name")?.as_str().trim_start_matches('@');
    if NOT_A_SUBJECT.contains(&name) {
        return None;
    }
    let said = kind(c.name("kind")).or(kind(c.name("after")));
    Some(Subject::new(name, None, said))
}

pub fn match_guests(original: &str, lower: &str) -> Option<(&'static str, Intent)> {
    for pattern in [&ROLLBACK, &ROLLBACK_TO] {
        if let Some(c) = pattern.captures(lower) {
            let snapshot = typed(original, lower, c.name("snap")?).to_string();
            let subject = subject_of(&c)?;
            return Some((pattern.name, Intent::Rollback { subject, snapshot }));
        }
    }
    for pattern in [&TAKE_SNAPSHOT, &TAKE_NAMED_SNAPSHOT] {
        if let Some(c) = pattern.captures(lower) {
            let name = c
                .name("snap")
                .map(|m| typed(original, lower, m).to_string());
            let subject = subject_of(&c)?;
            return Some((pattern.name, Intent::TakeSnapshot { subject, name }));
        }
    }
    for pattern in [
        &SNAPSHOTS_OF,
        &SNAPSHOTS_SUFFIX,
        &SNAPSHOTS_WHICH,
        &SNAPSHOTS_ANY,
    ] {
        if let Some(c) = pattern.captures(lower) {
            if let Some(subject) = subject_of(&c) {
                return Some((pattern.name, Intent::Snapshots(subject)));
            }
        }
    }
    history(lower)
}

fn history(lower: &str) -> Option<(&'static str, Intent)> {
    for pattern in [&HISTORY_OF, &HISTORY_SUFFIX, &HISTORY_HOW_MUCH] {
        let Some(c) = pattern.captures(lower) else {
            continue;
        };
        let (Some(window), Some(subject)) = (window_of(&c), subject_of(&c)) else {
            continue;
        };
        let metric = c.name("metric").map(|m| metric_word(m.as_str()));
        let intent = Intent::History {
            metric,
            subject: Some(subject),
            window,
        };
        return Some((pattern.name, intent));
    }
    let c = HISTORY_HERE.captures(lower)?;
    let intent = Intent::History {
        metric: c.name("metric").map(|m| metric_word(m.as_str())),
        subject: None,
        window: window_of(&c)?,
    };
    Some((HISTORY_HERE.name, intent))
}

fn window_of(c: &Captures<'_>) -> Option<Window> {
    Window::parse(c.name("window")?.as_str())
}
