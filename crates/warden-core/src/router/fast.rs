//! Stage 1: anchored regular expressions for the phrasings operators use
//! most. Compiled once; matching is a few microseconds.

use std::sync::OnceLock;

use regex::Regex;
use warden_protocol::ResourceKind;

use super::intent::{
    ControlOp, DEFAULT_LOG_LINES, Intent, ListWhat, LogsRequest, MAX_LOG_LINES, parse_since,
};
use crate::executor::host_metrics::Metric;

/// A resource or service name as typed (with an optional `@`).
const NAME: &str = r"@?[a-z0-9_][a-z0-9_.\-:]*";

/// A regular expression compiled on first use: a request compiles only the
/// patterns tried before it matched, which keeps a one-shot `warden ask` fast.
struct Pattern {
    regex: OnceLock<Option<Regex>>,
    source: fn() -> String,
}

impl Pattern {
    const fn new(source: fn() -> String) -> Self {
        Pattern {
            regex: OnceLock::new(),
            source,
        }
    }

    fn captures<'t>(&self, text: &'t str) -> Option<regex::Captures<'t>> {
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
fn on() -> String {
    format!(
        r"(?:[ \t]+(?:on|at|in|of|for|from)[ \t]+(?:the[ \t]+)?(?:host[ \t]+|node[ \t]+)?({NAME}))?"
    )
}

const LEAD: &str = r"(?:(?:show|check|get|give|display|print|tell|what(?:'s|s| is| are)|how(?:'s| is| are| much)?)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?(?:current[ \t]+)?";
const FILTER: &str = r"(?:[ \t]+(?:with|containing|matching|mentioning|about|filtered[ \t]+by|that[ \t]+mention|for)[ \t]+(.+?))?";
const SINCE: &str = r"(?:[ \t]+(?:since|from|in|over|for)[ \t]+((?:the[ \t]+)?(?:last|past)[ \t]+[^ \t]+(?:[ \t]+[^ \t]+)?|[0-9]+[ \t]*[a-z]+|today|yesterday))?";
const LINES: &str = r"(?:(?:last|latest|recent|final)[ \t]+(?:([0-9]+)[ \t]+)?(?:lines?|entries|log[ \t]+lines|messages)[ \t]+(?:of|from|in)[ \t]+(?:the[ \t]+)?)?";

static METRIC: Pattern = Pattern::new(|| {
    let on = on();
    format!(
        r"^{LEAD}(disk|disks|disk[ \t]+space|free[ \t]+space|space|storage|filesystems?|memory|mem|ram|swap|cpu|cpus|processor|load|load[ \t]+average|loadavg|network|net|bandwidth)(?:[ \t]+(?:usage|use|space|utili[sz]ation|stats|status|average|left|free|used|consumption|pressure))?{on}$"
    )
});

static STATUS_IS: Pattern = Pattern::new(|| {
    format!(
        r"^(?:is|are)[ \t]+(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container|daemon|server|vm|lxc|guest|unit))?[ \t]+(?:still[ \t]+)?(?:running|up|active|alive|ok|okay|healthy|working|down|started|dead|stopped|failed|failing)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static STATUS_OF: Pattern = Pattern::new(|| {
    format!(
        r"^(?:(?:check|show|get|what(?:'s|s| is))[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?(?:status|health|state)[ \t]+(?:of[ \t]+|for[ \t]+)?(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static STATUS_SUFFIX: Pattern = Pattern::new(|| {
    format!(
        r"^(?:(?:check|show|get)[ \t]+)?(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?[ \t]+(?:status|health|state)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static LOGS_OF: Pattern = Pattern::new(|| {
    format!(
        r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?{LINES}(?:(?:last|latest|recent)[ \t]+)?(?:logs?|log[ \t]+lines|log[ \t]+entries|journal)[ \t]+(?:of|for|from)[ \t]+(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?{SINCE}{FILTER}$"
    )
});

static LOGS_SUFFIX: Pattern = Pattern::new(|| {
    format!(
        r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?{LINES}(?:(?:last|latest|recent)[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?[ \t]+(?:logs?|log[ \t]+file|journal)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?{SINCE}{FILTER}$"
    )
});

static SYSTEM_LOG: Pattern = Pattern::new(|| {
    format!(
        r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?{LINES}(?:(?:last|latest|recent)[ \t]+)?(syslog|system[ \t]+logs?|system[ \t]+journal|journal|messages|kernel[ \t]+log|logs?)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?{SINCE}{FILTER}$"
    )
});

static CONTROL: Pattern = Pattern::new(|| {
    format!(
        r"^(restart|start|stop|reload|bounce)[ \t]+(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container|daemon|vm|lxc|guest|unit))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static LIST: Pattern = Pattern::new(|| {
    format!(
        r"^(?:(?:list|show|get|display|which|what)[ \t]+)?(?:me[ \t]+)?(?:all[ \t]+)?(?:of[ \t]+)?(?:the[ \t]+)?(?:running[ \t]+)?(services|units|daemons|docker[ \t]+containers|containers|resources|hosts|machines|servers|vms|virtual[ \t]+machines|lxcs?|lxc[ \t]+containers|guests|nodes|inventory|everything)(?:[ \t]+(?:are[ \t]+there|are[ \t]+running|do[ \t]+you[ \t]+know|exist|do[ \t]+i[ \t]+have))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static RUNNING_ON: Pattern =
    Pattern::new(|| format!(r"^what(?:'s|s| is)[ \t]+running[ \t]+(?:on|at)[ \t]+({NAME})$"));

static REMEMBER: Pattern = Pattern::new(|| {
    r"^(?:remember|note|keep[ \t]+in[ \t]+mind)(?:[ \t]+that)?[:,]?[ \t]+(.+)$".to_string()
});

static RECALL: Pattern = Pattern::new(|| {
    r"^(?:recall|what[ \t]+do[ \t]+you[ \t]+(?:know|remember)[ \t]+about|what[ \t]+did[ \t]+i[ \t]+tell[ \t]+you[ \t]+about|any[ \t]+notes[ \t]+(?:on|about))[:,]?[ \t]+(.+)$".to_string()
});

static EXPLAIN: Pattern =
    Pattern::new(|| r"^explain(?:[ \t]+(?:the[ \t]+)?command)?[:,]?[ \t]+(.+)$".to_string());

static HELP: Pattern = Pattern::new(|| {
    r"^(?:help|\?|what[ \t]+can[ \t]+you[ \t]+do|how[ \t]+do[ \t]+i[ \t]+use[ \t]+(?:you|this|warden))$".to_string()
});

/// Match the fast paths; `original` keeps the case for notes and commands.
pub fn match_fast(original: &str, lower: &str) -> Option<Intent> {
    if HELP.is_match(lower) {
        return Some(Intent::Help);
    }
    // Matched on the lowercase text (case-insensitive matching costs more
    // to compile); the captured text is taken from the original.
    let as_typed = |m: regex::Match<'_>| {
        original
            .get(m.start()..m.end())
            .filter(|_| original.len() == lower.len())
            .unwrap_or(m.as_str())
            .trim()
            .to_string()
    };
    if let Some(m) = REMEMBER.captures(lower).and_then(|c| c.get(1)) {
        return Some(Intent::Remember { note: as_typed(m) });
    }
    if let Some(m) = RECALL.captures(lower).and_then(|c| c.get(1)) {
        return Some(Intent::Recall { query: as_typed(m) });
    }
    if let Some(m) = EXPLAIN.captures(lower).and_then(|c| c.get(1)) {
        let typed = as_typed(m);
        let command = unquote(&typed);
        if super::command_parser::looks_like_command(command) {
            return Some(Intent::Explain {
                command: command.to_string(),
            });
        }
    }
    if let Some(c) = METRIC.captures(lower) {
        return Some(Intent::Metric {
            metric: metric_word(&c[1]),
            on: name(c.get(2)),
        });
    }
    if let Some(c) = CONTROL.captures(lower) {
        return Some(Intent::Control {
            operation: ControlOp::parse(&c[1])?,
            subject: name(c.get(2))?,
            on: name(c.get(3)),
        });
    }
    for regex in [&STATUS_IS, &STATUS_OF, &STATUS_SUFFIX] {
        if let Some(c) = regex.captures(lower) {
            return Some(Intent::Status {
                subject: name(c.get(1))?,
                on: name(c.get(2)),
            });
        }
    }
    if let Some(c) = SYSTEM_LOG.captures(lower) {
        return Some(Intent::Logs(LogsRequest {
            subject: None,
            on: name(c.get(3)),
            lines: lines(c.get(1)),
            since: c.get(4).and_then(|m| parse_since(m.as_str())),
            filter: filter(original, c.get(5)),
        }));
    }
    for regex in [&LOGS_OF, &LOGS_SUFFIX] {
        if let Some(c) = regex.captures(lower) {
            let subject = name(c.get(2))?;
            let system = matches!(
                subject.as_str(),
                "syslog" | "system" | "journal" | "messages"
            );
            return Some(Intent::Logs(LogsRequest {
                subject: (!system).then_some(subject),
                on: name(c.get(3)),
                lines: lines(c.get(1)),
                since: c.get(4).and_then(|m| parse_since(m.as_str())),
                filter: filter(original, c.get(5)),
            }));
        }
    }
    if let Some(c) = LIST.captures(lower) {
        return Some(Intent::List {
            what: list_word(&c[1]),
            on: name(c.get(2)),
        });
    }
    if let Some(c) = RUNNING_ON.captures(lower) {
        return Some(Intent::List {
            what: ListWhat::Services,
            on: name(c.get(1)),
        });
    }
    None
}

fn name(m: Option<regex::Match<'_>>) -> Option<String> {
    m.map(|m| m.as_str().trim_start_matches('@').to_string())
        .filter(|n| !n.is_empty())
}

fn lines(m: Option<regex::Match<'_>>) -> u32 {
    m.and_then(|m| m.as_str().parse::<u32>().ok())
        .map_or(DEFAULT_LOG_LINES, |n| n.clamp(1, MAX_LOG_LINES))
}

/// The filter text in its original case, without quotes.
fn filter(original: &str, m: Option<regex::Match<'_>>) -> Option<String> {
    let m = m?;
    // Lowercasing keeps byte offsets for ASCII; fall back to the lowercase text.
    let text = original.get(m.start()..m.end()).unwrap_or(m.as_str());
    let text = unquote(text.trim());
    let text = text
        .strip_suffix(" in them")
        .or_else(|| text.strip_suffix(" in it"))
        .unwrap_or(text);
    (!text.is_empty()).then(|| text.to_string())
}

pub(super) fn unquote(text: &str) -> &str {
    for (open, close) in [('`', '`'), ('"', '"'), ('\'', '\''), ('“', '”')] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            return inner.trim();
        }
    }
    text
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
        "lxc" | "lxcs" | "lxc containers" => ListWhat::Resources(Some(ResourceKind::Lxc)),
        "nodes" => ListWhat::Resources(Some(ResourceKind::Node)),
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
        ] {
            let source = (pattern.source)();
            assert!(Regex::new(&source).is_ok(), "{source}");
        }
    }
}
