//! Stage 1: anchored regular expressions for the phrasings operators use
//! most. Compiled once; matching is a few microseconds.

use std::sync::LazyLock;

use regex::Regex;
use warden_protocol::ResourceKind;

use super::intent::{
    ControlOp, DEFAULT_LOG_LINES, Intent, ListWhat, LogsRequest, MAX_LOG_LINES, parse_since,
};
use crate::executor::host_metrics::Metric;

/// A resource or service name as typed (with an optional `@`).
const NAME: &str = r"@?[a-z0-9_][a-z0-9_.\-:]*";

struct Patterns {
    metric: Regex,
    status_is: Regex,
    status_of: Regex,
    status_suffix: Regex,
    logs_of: Regex,
    logs_suffix: Regex,
    system_log: Regex,
    control: Regex,
    list: Regex,
    running_on: Regex,
    remember: Regex,
    recall: Regex,
    explain: Regex,
    help: Regex,
}

static PATTERNS: LazyLock<Option<Patterns>> = LazyLock::new(|| {
    let on = format!(
        r"(?:[ \t]+(?:on|at|in|of|for|from)[ \t]+(?:the[ \t]+)?(?:host[ \t]+|node[ \t]+)?({NAME}))?"
    );
    let lead = r"(?:(?:show|check|get|give|display|print|tell|what(?:'s|s| is| are)|how(?:'s| is| are| much)?)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?(?:current[ \t]+)?";
    let filter = r"(?:[ \t]+(?:with|containing|matching|mentioning|about|filtered[ \t]+by|that[ \t]+mention|for)[ \t]+(.+?))?";
    let since = r"(?:[ \t]+(?:since|from|in|over|for)[ \t]+((?:the[ \t]+)?(?:last|past)[ \t]+[^ \t]+(?:[ \t]+[^ \t]+)?|[0-9]+[ \t]*[a-z]+|today|yesterday))?";
    let lines = r"(?:(?:last|latest|recent|final)[ \t]+(?:([0-9]+)[ \t]+)?(?:lines?|entries|log[ \t]+lines|messages)[ \t]+(?:of|from|in)[ \t]+(?:the[ \t]+)?)?";
    let build = |pattern: String| Regex::new(&pattern).ok();
    Some(Patterns {
        metric: build(format!(
            r"^{lead}(disk|disks|disk[ \t]+space|free[ \t]+space|space|storage|filesystems?|memory|mem|ram|swap|cpu|cpus|processor|load|load[ \t]+average|loadavg|network|net|bandwidth)(?:[ \t]+(?:usage|use|space|utili[sz]ation|stats|status|average|left|free|used|consumption|pressure))?{on}$"
        ))?,
        status_is: build(format!(
            r"^(?:is|are)[ \t]+(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container|daemon|server|vm|lxc|guest|unit))?[ \t]+(?:still[ \t]+)?(?:running|up|active|alive|ok|okay|healthy|working|down|started|dead|stopped|failed|failing)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
        ))?,
        status_of: build(format!(
            r"^(?:(?:check|show|get|what(?:'s|s| is))[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?(?:status|health|state)[ \t]+(?:of[ \t]+|for[ \t]+)?(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
        ))?,
        status_suffix: build(format!(
            r"^(?:(?:check|show|get)[ \t]+)?(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?[ \t]+(?:status|health|state)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
        ))?,
        logs_of: build(format!(
            r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?{lines}(?:(?:last|latest|recent)[ \t]+)?(?:logs?|log[ \t]+lines|log[ \t]+entries|journal)[ \t]+(?:of|for|from)[ \t]+(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?{since}{filter}$"
        ))?,
        logs_suffix: build(format!(
            r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?{lines}(?:(?:last|latest|recent)[ \t]+)?({NAME})(?:[ \t]+(?:service|container))?[ \t]+(?:logs?|log[ \t]+file|journal)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?{since}{filter}$"
        ))?,
        system_log: build(format!(
            r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)[ \t]+)?(?:me[ \t]+)?(?:the[ \t]+)?{lines}(?:(?:last|latest|recent)[ \t]+)?(syslog|system[ \t]+logs?|system[ \t]+journal|journal|messages|kernel[ \t]+log|logs?)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?{since}{filter}$"
        ))?,
        control: build(format!(
            r"^(restart|start|stop|reload|bounce)[ \t]+(?:the[ \t]+)?({NAME})(?:[ \t]+(?:service|container|daemon|vm|lxc|guest|unit))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
        ))?,
        list: build(format!(
            r"^(?:(?:list|show|get|display|which|what)[ \t]+)?(?:me[ \t]+)?(?:all[ \t]+)?(?:of[ \t]+)?(?:the[ \t]+)?(?:running[ \t]+)?(services|units|daemons|docker[ \t]+containers|containers|resources|hosts|machines|servers|vms|virtual[ \t]+machines|lxcs?|lxc[ \t]+containers|guests|nodes|inventory|everything)(?:[ \t]+(?:are[ \t]+there|are[ \t]+running|do[ \t]+you[ \t]+know|exist|do[ \t]+i[ \t]+have))?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
        ))?,
        running_on: build(format!(
            r"^what(?:'s|s| is)[ \t]+running[ \t]+(?:on|at)[ \t]+({NAME})$"
        ))?,
        remember: Regex::new(r"(?i)^(?:remember|note|keep[ \t]+in[ \t]+mind)(?:[ \t]+that)?[:,]?[ \t]+(.+)$").ok()?,
        recall: Regex::new(
            r"(?i)^(?:recall|what[ \t]+do[ \t]+you[ \t]+(?:know|remember)[ \t]+about|what[ \t]+did[ \t]+i[ \t]+tell[ \t]+you[ \t]+about|any[ \t]+notes[ \t]+(?:on|about))[:,]?[ \t]+(.+)$",
        )
        .ok()?,
        explain: Regex::new(r"(?i)^explain(?:[ \t]+(?:the[ \t]+)?command)?[:,]?[ \t]+(.+)$").ok()?,
        help: Regex::new(r"(?i)^(?:help|\?|what[ \t]+can[ \t]+you[ \t]+do|how[ \t]+do[ \t]+i[ \t]+use[ \t]+(?:you|this|warden))$").ok()?,
    })
});

/// Match the fast paths; `original` keeps the case for notes and commands.
pub fn match_fast(original: &str, lower: &str) -> Option<Intent> {
    let p = PATTERNS.as_ref()?;
    if p.help.is_match(lower) {
        return Some(Intent::Help);
    }
    if let Some(c) = p.remember.captures(original) {
        return Some(Intent::Remember {
            note: c[1].trim().to_string(),
        });
    }
    if let Some(c) = p.recall.captures(original) {
        return Some(Intent::Recall {
            query: c[1].trim().to_string(),
        });
    }
    if let Some(c) = p.explain.captures(original) {
        let command = unquote(c[1].trim());
        if super::command_parser::looks_like_command(command) {
            return Some(Intent::Explain {
                command: command.to_string(),
            });
        }
    }
    if let Some(c) = p.metric.captures(lower) {
        return Some(Intent::Metric {
            metric: metric_word(&c[1]),
            on: name(c.get(2)),
        });
    }
    if let Some(c) = p.control.captures(lower) {
        return Some(Intent::Control {
            operation: ControlOp::parse(&c[1])?,
            subject: name(c.get(2))?,
            on: name(c.get(3)),
        });
    }
    for regex in [&p.status_is, &p.status_of, &p.status_suffix] {
        if let Some(c) = regex.captures(lower) {
            return Some(Intent::Status {
                subject: name(c.get(1))?,
                on: name(c.get(2)),
            });
        }
    }
    if let Some(c) = p.system_log.captures(lower) {
        return Some(Intent::Logs(LogsRequest {
            subject: None,
            on: name(c.get(3)),
            lines: lines(c.get(1)),
            since: c.get(4).and_then(|m| parse_since(m.as_str())),
            filter: filter(original, c.get(5)),
        }));
    }
    for regex in [&p.logs_of, &p.logs_suffix] {
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
    if let Some(c) = p.list.captures(lower) {
        return Some(Intent::List {
            what: list_word(&c[1]),
            on: name(c.get(2)),
        });
    }
    if let Some(c) = p.running_on.captures(lower) {
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
