//! Stage 1: anchored regular expressions for the phrasings operators use
//! most. Compiled once; matching is a few microseconds. The end of a
//! request ("on web1", "since 1h", "with \"timeout\"") is parsed by
//! `modifiers`, and anything it does not understand fails the match.

use std::sync::OnceLock;

use regex_lite::Regex;
use warden_protocol::ResourceKind;

use super::intent::{
    ControlOp, DEFAULT_LOG_LINES, Intent, ListWhat, LogsRequest, MAX_LOG_LINES, Subject,
    SubjectKind,
};
use super::modifiers::{self, Modifier};
use crate::executor::host_metrics::Metric;

/// A resource or service name as typed (with an optional `@`).
pub(super) const NAME: &str = r"@?[a-z0-9_][a-z0-9_.\-:]*";

/// Between names in a list: ", ", " and ", ", and ", " & ".
const SEPARATOR: &str = r"(?:[ \t]*,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+|[ \t]*&[ \t]*)";

/// One name, or a list of them ("nginx and redis", "a, b & c").
pub(super) fn names() -> String {
    format!(r"{NAME}(?:{SEPARATOR}(?:the[ \t]+)?{NAME})*")
}

/// A word that says what a subject is.
pub(super) const KIND: &str =
    r"(service|container|docker[ \t]+container|daemon|vm|lxc|ct|guest|unit|server)s?";

/// A regular expression compiled on first use: a request compiles only the
/// patterns tried before it matched, which keeps a one-shot `warden ask` fast.
pub(super) struct Pattern {
    pub name: &'static str,
    regex: OnceLock<Option<Regex>>,
    pub source: fn() -> String,
    /// Words one of which every match contains: a text without any is not
    /// a match, and the pattern is not even compiled for it.
    words: &'static [&'static str],
}

impl Pattern {
    pub const fn new(name: &'static str, source: fn() -> String) -> Self {
        Pattern {
            name,
            regex: OnceLock::new(),
            source,
            words: &[],
        }
    }

    /// A pattern whose every match contains one of `words`.
    pub const fn with_words(
        name: &'static str,
        words: &'static [&'static str],
        source: fn() -> String,
    ) -> Self {
        Pattern {
            name,
            regex: OnceLock::new(),
            source,
            words,
        }
    }

    pub fn captures<'t>(&self, text: &'t str) -> Option<regex_lite::Captures<'t>> {
        if !self.words.is_empty() && !self.words.iter().any(|w| text.contains(w)) {
            return None;
        }
        self.regex
            .get_or_init(|| Regex::new(&(self.source)()).ok())
            .as_ref()?
            .captures(text)
    }

    fn is_match(&self, text: &str) -> bool {
        self.captures(text).is_some()
    }
}

/// "on HOST" and its variants.
pub(super) fn on() -> String {
    format!(
        r"(?:[ \t]+(?:on|at|in|of|for|from)[ \t]+(?:the[ \t]+)?(?:host[ \t]+|node[ \t]+)?({NAME}))?"
    )
}

pub(super) const LEAD: &str = r"(?:(?:show|check|get|give|display|print|tell|list|what(?:'s|s| is| are)|how(?:'s| is| are| much)?)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?(?:current[ \t]+)?";
const LINES: &str = r"(?:(?:last|latest|recent|final)[ \t]+(?:([0-9]+)[ \t]+)?(?:lines?|entries|log[ \t]+lines|messages)[ \t]+(?:of|from|in)[ \t]+(?:the[ \t]+)?)?";
const VERB: &str = r"(?:(?:show|get|tail|print|display|read|give|check|fetch|view)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?";
/// The rest of the request, for `modifiers`.
const TAIL: &str = r"((?:[ \t].*)?)";

static METRIC: Pattern = Pattern::new("metric", || {
    let on = on();
    format!(
        r"^{LEAD}(disk|disks|disk[ \t]+space|free[ \t]+space|space|storage|filesystems?|memory|mem|ram|swap|cpu|cpus|processor|load|load[ \t]+average|loadavg|network|net|bandwidth)(?:[ \t]+(?:usage|use|space|utili[sz]ation|stats|status|average|left|free|used|consumption|pressure))?{on}$"
    )
});

static DISK_ALL: Pattern = Pattern::new("disk_all", || {
    let on = on();
    format!(
        r"^{LEAD}(?:disk|disks|disk[ \t]+space|filesystems?|mounts)(?:[ \t]+usage)?[ \t]+(?:including|with|incl\.?|and|plus)[ \t]+(?:all[ \t]+)?(?:the[ \t]+)?(?:containers?|container[ \t]+mounts|overlays?|overlay[ \t]+mounts|mounts|all[ \t]+mounts){on}$"
    )
});

static STATUS_IS: Pattern = Pattern::new("status_is", || {
    let names = names();
    format!(
        r"^(?:is|are)[ \t]+(?:the[ \t]+)?(?:{KIND}[ \t]+)?({names})(?:[ \t]+{KIND})?[ \t]+(?:still[ \t]+)?(?:running|up|active|alive|ok|okay|healthy|working|down|started|dead|stopped|failed|failing)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static STATUS_OF: Pattern = Pattern::new("status_of", || {
    let names = names();
    format!(
        r"^(?:(?:check|show|get|what(?:'s|s| is))[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?(?:status|health|state)[ \t]+(?:of[ \t]+|for[ \t]+)?(?:the[ \t]+)?(?:{KIND}[ \t]+)?({names})(?:[ \t]+{KIND})?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static STATUS_SUFFIX: Pattern = Pattern::new("status_suffix", || {
    let names = names();
    format!(
        r"^(?:(?:check|show|get)[ \t]+)?(?:the[ \t]+)?(?:{KIND}[ \t]+)?({names})(?:[ \t]+{KIND})?[ \t]+(?:status|health|state)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static LOGS_OF: Pattern = Pattern::new("logs_of", || {
    let names = names();
    format!(
        r"^{VERB}{LINES}(?:(?:last|latest|recent)[ \t]+)?(?:logs?|log[ \t]+lines|log[ \t]+entries|journal)[ \t]+(?:of|for|from)[ \t]+(?:the[ \t]+)?({names})(?:[ \t]+{KIND})?{TAIL}$"
    )
});

static LOGS_SUFFIX: Pattern = Pattern::new("logs_suffix", || {
    let names = names();
    format!(
        r"^{VERB}{LINES}(?:(?:last|latest|recent)[ \t]+)?({names})(?:[ \t]+{KIND})?[ \t]+(?:logs?|log[ \t]+file|journal){TAIL}$"
    )
});

static SYSTEM_LOG: Pattern = Pattern::new("system_log", || {
    format!(
        r"^{VERB}{LINES}(?:(?:last|latest|recent)[ \t]+)?(syslog|system[ \t]+logs?|system[ \t]+journal|journal|messages|kernel[ \t]+log|logs?){TAIL}$"
    )
});

static CONTROL: Pattern = Pattern::new("control", || {
    let names = names();
    format!(
        r"^(restart|start|stop|reload|bounce|reboot|shutdown|shut[ \t]+down|kill|force[ \t]+stop|force-stop|hard[ \t]+stop)[ \t]+(?:the[ \t]+)?(?:{KIND}[ \t]+)?({names})(?:[ \t]+{KIND})?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static LIST: Pattern = Pattern::new("list", || {
    format!(
        r"^(?:(?:list|show|get|display|which|what)[ \t]+)?(?:me[ \t]+)?(?:all[ \t]+)?(?:of[ \t]+)?(?:the[ \t]+)?(?:running[ \t]+)?(services|units|daemons|docker[ \t]+containers|containers|resources|hosts|machines|servers|vms|virtual[ \t]+machines|lxcs?|cts|lxc[ \t]+containers|guests|(?:proxmox[ \t]+|pve[ \t]+)?nodes|inventory|everything)(?:[ \t]+(?:are[ \t]+there|are[ \t]+running|do[ \t]+you[ \t]+know|exist|do[ \t]+i[ \t]+have))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static RUNNING_ON: Pattern = Pattern::new("running_on", || {
    format!(r"^what(?:'s|s| is)[ \t]+running[ \t]+(?:on|at)[ \t]+({NAME})$")
});

static REMEMBER: Pattern = Pattern::new("remember", || {
    r"^(?:remember|note|keep[ \t]+in[ \t]+mind)(?:[ \t]+that)?[:,]?[ \t]+(.+)$".to_string()
});

static RECALL: Pattern = Pattern::new("recall", || {
    r"^(?:recall|what[ \t]+do[ \t]+you[ \t]+(?:know|remember)[ \t]+about|what[ \t]+did[ \t]+i[ \t]+tell[ \t]+you[ \t]+about|any[ \t]+notes[ \t]+(?:on|about))[:,]?[ \t]+(.+)$".to_string()
});

static EXPLAIN: Pattern = Pattern::new("explain", || {
    r"^explain(?:[ \t]+(?:the[ \t]+)?command)?[:,]?[ \t]+(.+)$".to_string()
});

static HELP: Pattern = Pattern::new("help", || {
    r"^(?:help|\?|what[ \t]+can[ \t]+you[ \t]+do|how[ \t]+do[ \t]+i[ \t]+use[ \t]+(?:you|this|warden))$".to_string()
});

/// Match the fast paths: the pattern's name and the intent. `original`
/// keeps the case for notes, filters and commands.
pub fn match_fast(original: &str, lower: &str) -> Option<(&'static str, Intent)> {
    if HELP.is_match(lower) {
        return Some((HELP.name, Intent::Help));
    }
    // Matched on the lowercase text (case-insensitive matching costs more
    // to compile); the captured text is taken from the original.
    let as_typed = |m: regex_lite::Match<'_>| typed(original, lower, m).trim().to_string();
    if let Some(m) = REMEMBER.captures(lower).and_then(|c| c.get(1)) {
        return Some((REMEMBER.name, Intent::Remember { note: as_typed(m) }));
    }
    if let Some(m) = RECALL.captures(lower).and_then(|c| c.get(1)) {
        return Some((RECALL.name, Intent::Recall { query: as_typed(m) }));
    }
    if let Some(m) = EXPLAIN.captures(lower).and_then(|c| c.get(1)) {
        let typed = as_typed(m);
        let command = crate::text::unquote(&typed);
        if crate::text::looks_like_command(command) {
            return Some((
                EXPLAIN.name,
                Intent::Explain {
                    command: command.to_string(),
                },
            ));
        }
    }
    if let Some(found) = super::fast_guests::match_guests(original, lower) {
        return Some(found);
    }
    if let Some(c) = DISK_ALL.captures(lower) {
        let intent = Intent::Metric {
            metric: Metric::DiskAll,
            on: name(c.get(1)),
        };
        return Some((DISK_ALL.name, intent));
    }
    if let Some(c) = METRIC.captures(lower) {
        let intent = Intent::Metric {
            metric: metric_word(&c[1]),
            on: name(c.get(2)),
        };
        return Some((METRIC.name, intent));
    }
    if let Some(c) = CONTROL.captures(lower) {
        let operation = ControlOp::parse(&c[1])?;
        let said = kind(c.get(2)).or(kind(c.get(4)));
        let on = name(c.get(5));
        let intent = each(&c[3], |name| Intent::Control {
            operation,
            subject: Subject::new(name, on.clone(), said),
        });
        return Some((CONTROL.name, intent));
    }
    if let Some(found) = super::fast_facts::match_facts(original, lower) {
        return Some(found);
    }
    for pattern in [&STATUS_IS, &STATUS_OF, &STATUS_SUFFIX] {
        if let Some(c) = pattern.captures(lower) {
            let said = kind(c.get(1)).or(kind(c.get(3)));
            let on = name(c.get(4));
            let intent = each(&c[2], |name| {
                Intent::Status(Subject::new(name, on.clone(), said))
            });
            return Some((pattern.name, intent));
        }
    }
    if let Some(c) = SYSTEM_LOG.captures(lower) {
        if let Some(tail) = tail(original, lower, c.get(3)) {
            let intent = Intent::Logs(LogsRequest {
                subject: None,
                on: tail.on,
                lines: lines(c.get(1)),
                since: tail.since,
                filter: tail.filter,
            });
            return Some((SYSTEM_LOG.name, intent));
        }
    }
    for pattern in [&LOGS_OF, &LOGS_SUFFIX] {
        let Some(c) = pattern.captures(lower) else {
            continue;
        };
        let Some(tail) = tail(original, lower, c.get(4)) else {
            continue;
        };
        let count = lines(c.get(1));
        let intent = each(&c[2], |subject| {
            let system = matches!(subject, "syslog" | "system" | "journal" | "messages");
            Intent::Logs(LogsRequest {
                subject: (!system).then(|| subject.to_string()),
                on: tail.on.clone(),
                lines: count,
                since: tail.since,
                filter: tail.filter.clone(),
            })
        });
        return Some((pattern.name, intent));
    }
    if let Some(c) = LIST.captures(lower) {
        let intent = Intent::List {
            what: list_word(&c[1]),
            on: name(c.get(2)),
        };
        return Some((LIST.name, intent));
    }
    if let Some(c) = RUNNING_ON.captures(lower) {
        let intent = Intent::List {
            what: ListWhat::Services,
            on: name(c.get(1)),
        };
        return Some((RUNNING_ON.name, intent));
    }
    None
}

/// The text of a match as typed (lowercasing keeps byte offsets for
/// ASCII; otherwise the lowercase text).
pub(super) fn typed<'t>(original: &'t str, lower: &'t str, m: regex_lite::Match<'t>) -> &'t str {
    original
        .get(m.start()..m.end())
        .filter(|_| original.len() == lower.len())
        .unwrap_or(m.as_str())
}

/// The modifiers at the end of a log request, parsed from the text as typed.
fn tail(original: &str, lower: &str, m: Option<regex_lite::Match<'_>>) -> Option<modifiers::Tail> {
    let text = m.map_or("", |m| typed(original, lower, m));
    modifiers::parse(text, &[Modifier::Host, Modifier::Since, Modifier::Filter])
}

/// The names of a list ("nginx and redis") in order, without `@` and "the".
pub(super) fn split_names(list: &str) -> Vec<String> {
    let separator = Regex::new(SEPARATOR).ok();
    let parts: Vec<&str> = match &separator {
        Some(regex) => regex.split(list).collect(),
        None => vec![list],
    };
    let mut names: Vec<String> = parts
        .iter()
        .map(|p| p.trim().trim_start_matches("the ").trim_start_matches('@'))
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    names.dedup();
    names
}

/// One intent per name; a single name is the intent itself.
pub(super) fn each(list: &str, make: impl Fn(&str) -> Intent) -> Intent {
    let mut intents: Vec<Intent> = split_names(list).iter().map(|n| make(n)).collect();
    match intents.len() {
        1 => intents.remove(0),
        _ => Intent::Each(intents),
    }
}

pub(super) fn name(m: Option<regex_lite::Match<'_>>) -> Option<String> {
    m.map(|m| m.as_str().trim_start_matches('@').to_string())
        .filter(|n| !n.is_empty())
}

pub(super) fn kind(m: Option<regex_lite::Match<'_>>) -> Option<SubjectKind> {
    m.and_then(|m| SubjectKind::parse(m.as_str()))
}

fn lines(m: Option<regex_lite::Match<'_>>) -> u32 {
    m.and_then(|m| m.as_str().parse::<u32>().ok())
        .map_or(DEFAULT_LOG_LINES, |n| n.clamp(1, MAX_LOG_LINES))
}

pub(super) fn metric_word(word: &str) -> Metric {
    let first = word.split_whitespace().next().unwrap_or(word);
    match first {
        "disk" | "disks" | "free" | "space" | "storage" | "filesystem" | "filesystems" => {
            Metric::Disk
        }
        "memory" | "mem" | "ram" | "swap" => Metric::Memory,
        "cpu" | "cpus" | "processor" => Metric::Cpu,
        "load" | "loadavg" => Metric::Load,
        "network" | "net" | "bandwidth" => Metric::Network,
        _ => Metric::All,
    }
}

fn list_word(phrase: &str) -> ListWhat {
    let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
    match phrase.as_str() {
        "services" | "units" | "daemons" => ListWhat::Services,
        "containers" | "docker containers" => ListWhat::Containers,
        "hosts" | "machines" | "servers" => ListWhat::Resources(Some(ResourceKind::Host)),
        "vms" | "virtual machines" => ListWhat::Resources(Some(ResourceKind::Vm)),
        "lxc" | "lxcs" | "cts" | "lxc containers" => ListWhat::Resources(Some(ResourceKind::Lxc)),
        "nodes" | "proxmox nodes" | "pve nodes" => ListWhat::Resources(Some(ResourceKind::Node)),
        "guests" => ListWhat::Guests,
        _ => ListWhat::Resources(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern that does not compile would silently never match.
    #[test]
    fn every_pattern_compiles() {
        for pattern in [
            &METRIC,
            &DISK_ALL,
            &STATUS_IS,
            &STATUS_OF,
            &STATUS_SUFFIX,
            &LOGS_OF,
            &LOGS_SUFFIX,
            &SYSTEM_LOG,
            &CONTROL,
            &LIST,
            &RUNNING_ON,
            &REMEMBER,
            &RECALL,
            &EXPLAIN,
            &HELP,
        ]
        .into_iter()
        .chain(super::super::fast_guests::patterns())
        {
            let source = (pattern.source)();
            assert!(Regex::new(&source).is_ok(), "{}: {source}", pattern.name);
        }
        assert!(Regex::new(SEPARATOR).is_ok());
    }

    #[test]
    fn name_lists() {
        assert_eq!(split_names("nginx"), ["nginx"]);
        assert_eq!(split_names("nginx and redis"), ["nginx", "redis"]);
        assert_eq!(split_names("a, b, and the c"), ["a", "b", "c"]);
        assert_eq!(split_names("a & @b"), ["a", "b"]);
        assert_eq!(split_names("android"), ["android"]);
    }
}
