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
const NAME: &str = r"@?[\w][\w.\-:]*";

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
    let on = format!(r"(?:\s+(?:on|at|in|of|for|from)\s+(?:the\s+)?(?:host\s+|node\s+)?({NAME}))?");
    let lead = r"(?:(?:show|check|get|give|display|print|tell|what(?:'s|s| is| are)|how(?:'s| is| are| much)?)\s+)?(?:me\s+)?(?:the\s+)?(?:current\s+)?";
    let filter = r"(?:\s+(?:with|containing|matching|mentioning|about|filtered\s+by|that\s+mention|for)\s+(.+?))?";
    let since = r"(?:\s+(?:since|from|in|over|for)\s+((?:the\s+)?(?:last|past)\s+\S+(?:\s+\S+)?|\d+\s*\w+|today|yesterday))?";
    let lines = r"(?:(?:last|latest|recent|final)\s+(?:(\d+)\s+)?(?:lines?|entries|log\s+lines|messages)\s+(?:of|from|in)\s+(?:the\s+)?)?";
    let build = |pattern: String| Regex::new(&pattern).ok();
    Some(Patterns {
        metric: build(format!(
            r"^{lead}(disk|disks|disk\s+space|free\s+space|space|storage|filesystems?|memory|mem|ram|swap|cpu|cpus|processor|load|load\s+average|loadavg|network|net|bandwidth)(?:\s+(?:usage|use|space|utili[sz]ation|stats|status|average|left|free|used|consumption|pressure))?{on}$"
        ))?,
        status_is: build(format!(
            r"^(?:is|are)\s+(?:the\s+)?({NAME})(?:\s+(?:service|container|daemon|server|vm|lxc|guest|unit))?\s+(?:still\s+)?(?:running|up|active|alive|ok|okay|healthy|working|down|started|dead|stopped|failed|failing)(?:\s+(?:on|at)\s+({NAME}))?$"
        ))?,
        status_of: build(format!(
            r"^(?:(?:check|show|get|what(?:'s|s| is))\s+)?(?:me\s+)?(?:the\s+)?(?:status|health|state)\s+(?:of\s+|for\s+)?(?:the\s+)?({NAME})(?:\s+(?:service|container))?(?:\s+(?:on|at)\s+({NAME}))?$"
        ))?,
        status_suffix: build(format!(
            r"^(?:(?:check|show|get)\s+)?(?:the\s+)?({NAME})(?:\s+(?:service|container))?\s+(?:status|health|state)(?:\s+(?:on|at)\s+({NAME}))?$"
        ))?,
        logs_of: build(format!(
            r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)\s+)?(?:me\s+)?(?:the\s+)?{lines}(?:(?:last|latest|recent)\s+)?(?:logs?|log\s+lines|log\s+entries|journal)\s+(?:of|for|from)\s+(?:the\s+)?({NAME})(?:\s+(?:service|container))?(?:\s+(?:on|at)\s+({NAME}))?{since}{filter}$"
        ))?,
        logs_suffix: build(format!(
            r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)\s+)?(?:me\s+)?(?:the\s+)?{lines}(?:(?:last|latest|recent)\s+)?({NAME})(?:\s+(?:service|container))?\s+(?:logs?|log\s+file|journal)(?:\s+(?:on|at)\s+({NAME}))?{since}{filter}$"
        ))?,
        system_log: build(format!(
            r"^(?:(?:show|get|tail|print|display|read|give|check|fetch|view)\s+)?(?:me\s+)?(?:the\s+)?{lines}(?:(?:last|latest|recent)\s+)?(syslog|system\s+logs?|system\s+journal|journal|messages|kernel\s+log|logs?)(?:\s+(?:on|at)\s+({NAME}))?{since}{filter}$"
        ))?,
        control: build(format!(
            r"^(restart|start|stop|reload|bounce)\s+(?:the\s+)?({NAME})(?:\s+(?:service|container|daemon|vm|lxc|guest|unit))?(?:\s+(?:on|at)\s+({NAME}))?$"
        ))?,
        list: build(format!(
            r"^(?:(?:list|show|get|display|which|what)\s+)?(?:me\s+)?(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:running\s+)?(services|units|daemons|docker\s+containers|containers|resources|hosts|machines|servers|vms|virtual\s+machines|lxcs?|lxc\s+containers|guests|nodes|inventory|everything)(?:\s+(?:are\s+there|are\s+running|do\s+you\s+know|exist|do\s+i\s+have))?(?:\s+(?:on|at)\s+({NAME}))?$"
        ))?,
        running_on: build(format!(
            r"^what(?:'s|s| is)\s+running\s+(?:on|at)\s+({NAME})$"
        ))?,
        remember: Regex::new(r"(?i)^(?:remember|note|keep\s+in\s+mind)(?:\s+that)?[:,]?\s+(.+)$").ok()?,
        recall: Regex::new(
            r"(?i)^(?:recall|what\s+do\s+you\s+(?:know|remember)\s+about|what\s+did\s+i\s+tell\s+you\s+about|any\s+notes\s+(?:on|about))[:,]?\s+(.+)$",
        )
        .ok()?,
        explain: Regex::new(r"(?i)^explain(?:\s+(?:the\s+)?command)?[:,]?\s+(.+)$").ok()?,
        help: Regex::new(r"(?i)^(?:help|\?|what\s+can\s+you\s+do|how\s+do\s+i\s+use\s+(?:you|this|warden))$").ok()?,
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
