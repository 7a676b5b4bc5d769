//! The concrete facts of one claiming clause, and whether the evidence
//! holds each: the numbers (with their units), the identifiers (versions,
//! addresses, times, dates, names with digits or dashes), the names of the
//! things a state or a list is about, the states themselves, and the
//! actions with the kind of call that could have done them.

use warden_protocol::ToolKind;

use super::evidence::Evidence;
use super::quantity::{Dimension, Quantity, quantities, same};
use crate::agent::phantom::{Claim, ClaimKind};

/// What one claiming clause states, ready to be checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub claim: Claim,
    quantities: Vec<Quantity>,
    /// Identifiers and names, lower case.
    tokens: Vec<String>,
    /// State words, each with the words that show it.
    states: Vec<&'static [&'static str]>,
    action: Option<Action>,
}

#[derive(Debug, Clone, PartialEq)]
enum Action {
    /// A change: a successful write asking for one of these families.
    Change(Vec<&'static [&'static str]>),
    /// Something looked at: any successful call.
    Observation,
}

/// Answer words (by prefix) of a change, and what a call that made it asks.
const CHANGES: &[(&[&str], &[&str])] = &[
    (
        &[
            "restart",
            "reboot",
            "bounc",
            "power-cycl",
            "kicked",
            "cycled",
        ],
        &["restart", "reboot", "reset", "power", "cycle"],
    ),
    (&["reload"], &["reload", "restart", "hup"]),
    (
        &[
            "stop",
            "shut",
            "halt",
            "powered off",
            "kill",
            "terminat",
            "paus",
            "suspend",
            "took down",
            "taken down",
            "brought down",
            "drain",
            "cordon",
            "evict",
        ],
        &[
            "stop",
            "shutdown",
            "halt",
            "poweroff",
            "kill",
            "terminate",
            "pause",
            "suspend",
            "down",
            "drain",
            "cordon",
            "evict",
        ],
    ),
    (
        &[
            "start",
            "boot",
            "resum",
            "spun up",
            "brought up",
            "powered on",
            "unpaus",
        ],
        &["start", "boot", "resume", "up", "poweron", "unpause"],
    ),
    (&["snapshot"], &["snapshot"]),
    (
        &[
            "delet",
            "remov",
            "purg",
            "prun",
            "clean",
            "clear",
            "free",
            "wip",
            "destroy",
            "uninstall",
            "truncat",
            "vacuum",
            "flush",
            "rotat",
            "reclaim",
        ],
        &[
            "rm",
            "remove",
            "delete",
            "purge",
            "prune",
            "clean",
            "clear",
            "destroy",
            "uninstall",
            "truncate",
            "vacuum",
            "flush",
            "rotate",
            "logrotate",
            "autoremove",
            "wipe",
            "drop",
        ],
    ),
    (
        &[
            "install", "updat", "upgrad", "patch", "bump", "downgrad", "pull",
        ],
        &[
            "install", "update", "upgrade", "patch", "apt", "dnf", "yum", "apk", "pull", "pip",
            "npm",
        ],
    ),
    (
        &[
            "creat",
            "added",
            "provision",
            "set up",
            "deploy",
            "rolled out",
        ],
        &[
            "create", "add", "append", "insert", "new", "mk", "deploy", "apply", "up", "run",
            "write", "tee",
        ],
    ),
    (
        &[
            "chang", "modif", "edit", "replac", "correct", "fix", "appli", "adjust", "tuned",
            "raised", "lowered", "increas", "decreas", "rewr", "append", "insert", "comment",
            "configur", "enabl", "disabl", "mask", "lock", "chown", "chmod", "renam",
        ],
        &[
            "write", "replace", "edit", "append", "insert", "set", "sed", "tee", "apply", "patch",
            "config", "enable", "disable", "mask", "unmask", "lock", "chown", "chmod", "resize",
            "update", "echo", "mv",
        ],
    ),
    (&["mount", "remount", "unmount"], &["mount", "umount"]),
    (&["migrat", "moved"], &["migrate", "mv", "move"]),
    (
        &["restor", "rolled back", "revert", "recover"],
        &["rollback", "restore", "revert", "checkout"],
    ),
    (
        &["scal", "resiz", "extend", "shrunk", "allocat"],
        &["scale", "resize", "extend", "lvextend", "replicas", "set"],
    ),
    (&["renew"], &["renew", "certbot", "acme"]),
    (
        &["backed up", "back up", "backup"],
        &["backup", "vzdump", "snapshot", "borg", "restic", "rsync"],
    ),
    (
        &["ban", "block", "allowlist", "whitelist", "opened", "closed"],
        &[
            "ban", "block", "deny", "allow", "ufw", "iptables", "nft", "firewall", "drop",
            "accept", "open", "close",
        ],
    ),
];

/// Words of looking, not changing: any successful call shows them.
const OBSERVATIONS: &[&str] = &[
    "check",
    "look",
    "verif",
    "confirm",
    "inspect",
    "examin",
    "notic",
    "observ",
    "test",
    "ping",
    "quer",
    "measur",
    "review",
    "scann",
    "read",
    "ran ",
    "found",
    "saw",
    "went through",
    "can see",
    "see ",
    "logs show",
    "output",
    "result",
    "geprüft",
    "vérifié",
    "comprob",
    "revis",
    "verifiqu",
];

/// State words by what they show, so that "running" is found as "active"
/// or "Up 3 hours", and "not running" as "inactive (dead)".
const UP: &[&str] = &[
    "running",
    "active",
    "up",
    "online",
    "started",
    "healthy",
    "ok",
    "listening",
    "reachable",
    "serving",
    "ready",
    "working",
    "open",
    "responding",
    "answers",
    "alive",
    "connected",
    "enabled",
    "loaded",
    "green",
    "in quorum",
    "in sync",
    "success",
    "succeeded",
    "passed",
    "200",
    "läuft",
    "aktiv",
    "actif",
    "active",
    "activo",
    "funcionando",
];
const DOWN: &[&str] = &[
    "stopped",
    "inactive",
    "down",
    "offline",
    "dead",
    "exited",
    "failed",
    "failing",
    "unreachable",
    "unhealthy",
    "crashed",
    "closed",
    "disabled",
    "degraded",
    "faulted",
    "error",
    "refused",
    "timeout",
    "timed out",
    "missing",
    "not running",
    "notready",
    "red",
    "broken",
    "stuck",
    "crashloopbackoff",
    "oomkilled",
    "killed",
    "gestoppt",
    "inaktiv",
    "arrêté",
    "detenido",
    "caído",
];

/// Words of a clause that are no names: articles, pronouns, the common
/// nouns of infrastructure, adverbs of time.
const COMMON: &str = "the|a|an|it|its|it's|they|this|that|these|those|everything|all|both|each|every|service|services|container|containers|vm|vms|disk|disks|pool|pools|node|nodes|host|hosts|server|servers|system|cluster|database|db|process|processes|job|jobs|backup|backups|network|interface|site|website|app|application|instance|pod|pods|deployment|machine|guest|guests|port|ports|cpu|memory|ram|swap|load|usage|space|storage|volume|volumes|root|filesystem|partition|queue|mail|log|logs|journal|output|result|config|configuration|file|files|certificate|cert|key|user|users|connection|connections|web|ui|api|dns|firewall|rule|other|one|two|three|four|five|main|primary|secondary|new|old|last|latest|current|first|second|your|my|our|their|his|her|now|still|also|already|again|currently|total|average|free|used|available|nightly|daily|weekly|local|remote|public|private|internal|external|default|entire|whole|some|most|many|few|update|updates|upgrade|restart|reboot|scrub|check|checks|test|tests|state|status|health|version|kernel|package|packages|image|images|snapshot|snapshots|task|tasks|error|errors|warning|warnings|request|requests|response|traffic|temperature|latency|uptime|time|date|there|here|which|what|nothing|none|and|or|but|so|of|on|in|at|to|for|with|from|by|is|are|was|were|be|been|has|have|had|not|no|yes|just|only|back|fully|completely|almost|nearly|mostly|again|i|we|you|he|she|me|us|der|die|das|le|la|les|el|los|las|un|une|ein|eine|code|quote|done|all|set|see|here's|thing|things|everything's|whole|lxc|ct|qemu|docker|systemd|linux|home|media|data|shares|share|everyone|people|anyone|nobody";

/// The facts of `claim`.
pub fn fact_of(claim: &Claim) -> Fact {
    let clause = claim.clause.as_str();
    let mut tokens: Vec<String> = Vec::new();
    for token in identifiers(clause)
        .into_iter()
        .chain(names(clause, claim.kind))
    {
        if !tokens.contains(&token) {
            tokens.push(token);
        }
    }
    // "It is still stopped": a participle after a copula that persists is
    // a state, not a change made.
    let kind = match claim.kind {
        ClaimKind::Action if persists(clause) => ClaimKind::LiveState,
        kind => kind,
    };
    let states = match kind {
        ClaimKind::LiveState => states_of(clause),
        ClaimKind::Action | ClaimKind::ToolOutput | ClaimKind::LiveValue => Vec::new(),
    };
    let action = match kind {
        ClaimKind::Action => Some(action_of(clause)),
        ClaimKind::ToolOutput => Some(Action::Observation),
        ClaimKind::LiveState | ClaimKind::LiveValue => None,
    };
    Fact {
        claim: claim.clone(),
        quantities: quantities(clause),
        tokens,
        states,
        action,
    }
}

impl Fact {
    /// Whether the fact has anything to look up (an action, a number, a
    /// name, a state).
    pub fn has_anchors(&self) -> bool {
        self.action.is_some()
            || !self.quantities.is_empty()
            || !self.tokens.is_empty()
            || !self.states.is_empty()
    }

    /// What of this fact the evidence does not hold, in words (empty:
    /// all of it is there).
    pub fn missing(&self, evidence: &Evidence, known: &[Quantity]) -> Vec<String> {
        let mut missing = Vec::new();
        match &self.action {
            Some(Action::Change(families)) => {
                let done = if families.is_empty() {
                    evidence.succeeded(Some(ToolKind::Write), &[])
                } else {
                    families
                        .iter()
                        .any(|stems| evidence.succeeded(Some(ToolKind::Write), stems))
                };
                if !done {
                    missing.push("no successful change this turn did that".to_string());
                }
            }
            Some(Action::Observation) if !evidence.succeeded(None, &[]) => {
                missing.push("no tool call succeeded this turn".to_string());
            }
            Some(Action::Observation) | None => {}
        }
        for quantity in &self.quantities {
            // A bare number may be part of an id there (`lxc:pve1:141`).
            let as_id =
                quantity.dimension == Dimension::Plain && evidence.mentions(&show(quantity));
            if !as_id && !known.iter().any(|seen| same(quantity, seen)) {
                missing.push(format!("the number {}", show(quantity)));
            }
        }
        for token in &self.tokens {
            if !evidence.mentions(token) {
                missing.push(format!("`{token}`"));
            }
        }
        for family in &self.states {
            if !family.iter().any(|word| evidence.mentions(word)) {
                missing.push(format!("the state ({})", family.first().unwrap_or(&"?")));
            }
        }
        missing
    }
}

fn persists(clause: &str) -> bool {
    [
        "is still ",
        "are still ",
        "was still ",
        "were still ",
        "remains ",
        "remain ",
        "stays ",
        "stay ",
        "ist noch ",
        "sind noch ",
        "est toujours ",
        "sont toujours ",
        "sigue ",
        "siguen ",
    ]
    .iter()
    .any(|p| clause.contains(p))
}

fn show(quantity: &Quantity) -> String {
    let decimals = (-quantity.ulp.log10()).round().max(0.0);
    format!("{:.*}", decimals as usize, quantity.number)
}

fn action_of(clause: &str) -> Action {
    let families: Vec<&'static [&'static str]> = CHANGES
        .iter()
        .filter(|(words, _)| {
            words.iter().any(|w| {
                clause
                    .match_indices(w)
                    .any(|(at, _)| !clause[..at].ends_with(|c: char| c.is_alphabetic()))
            })
        })
        .map(|(_, stems)| *stems)
        .collect();
    if families.is_empty() && OBSERVATIONS.iter().any(|w| clause.contains(w)) {
        return Action::Observation;
    }
    Action::Change(families)
}

/// Tokens that identify something whatever the sentence: versions,
/// addresses, times, dates, paths, names with digits or inner dashes.
fn identifiers(clause: &str) -> Vec<String> {
    clause
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '"' | '!' | '?')
        })
        .map(|word| word.trim_matches(|c: char| matches!(c, '.' | ':' | '\'' | '*' | '`')))
        .filter(|word| !word.is_empty())
        .filter(|word| {
            let digit = word.chars().any(|c| c.is_ascii_digit());
            let alpha = word.chars().any(char::is_alphabetic);
            let inner = word.contains(['-', '_', '.', ':', '/']);
            let number_only = word
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '%'))
                && word.matches('.').count() <= 1;
            let ordinal = word.len() <= 4
                && (word.ends_with("st")
                    || word.ends_with("nd")
                    || word.ends_with("rd")
                    || word.ends_with("th"))
                && word.starts_with(|c: char| c.is_ascii_digit());
            let unit = digit && alpha && quantities(word).len() == 1;
            let path = word.starts_with('/') && word.len() > 1;
            ((digit && (alpha || inner) && !number_only) || path) && !ordinal && !unit
        })
        .map(str::to_string)
        .collect()
}

/// The names a state, a value or a list is about: the words before the
/// verb that are no common words, and the items of a list.
fn names(clause: &str, kind: ClaimKind) -> Vec<String> {
    let mut found = Vec::new();
    let name = |word: &str| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_');
        (word.len() >= 3
            && word.chars().any(char::is_alphabetic)
            && !COMMON.split('|').any(|c| c == word))
        .then(|| word.to_string())
    };
    if let Some((label, items)) = clause.split_once(": ") {
        if label.split_whitespace().count() <= 5 {
            let items = items
                .split([',', '&', ';'])
                .flat_map(|i| i.split(" and "))
                .flat_map(|i| i.split(" und "))
                .flat_map(|i| i.split(" et "))
                .flat_map(|i| i.split(" y "));
            for item in items {
                if let Some(first) = item.split_whitespace().next().and_then(name) {
                    found.push(first);
                }
            }
            return found;
        }
    }
    if matches!(kind, ClaimKind::LiveState | ClaimKind::LiveValue) {
        let words: Vec<&str> = clause.split_whitespace().collect();
        let verb = words.iter().position(|w| {
            matches!(
                *w,
                "is" | "are"
                    | "was"
                    | "were"
                    | "has"
                    | "have"
                    | "runs"
                    | "holds"
                    | "uses"
                    | "answers"
                    | "responds"
                    | "listens"
                    | "looks"
                    | "seems"
                    | "remains"
                    | "ist"
                    | "sind"
                    | "läuft"
                    | "est"
                    | "sont"
                    | "está"
                    | "están"
            )
        });
        if let Some(verb) = verb {
            found.extend(
                words[verb.saturating_sub(3)..verb]
                    .iter()
                    .filter_map(|w| name(w)),
            );
        }
    }
    found
}

/// The state words of a clause, each as the family that shows it
/// (negated: the opposite family).
fn states_of(clause: &str) -> Vec<&'static [&'static str]> {
    let negated = [
        " not ",
        "n't ",
        " no longer ",
        " nicht ",
        " pas ",
        " no está",
    ]
    .iter()
    .any(|n| clause.contains(n));
    let mut families = Vec::new();
    let padded = format!(" {} ", clause.trim_end_matches(['.', '!']));
    let has = |word: &str| super::evidence::contains_token(&padded, word);
    let up = UP
        .iter()
        .any(|w| has(w) && !w.chars().all(|c| c.is_ascii_digit()));
    let down = DOWN.iter().any(|w| has(w));
    match (up, down, negated) {
        (true, false, false) | (false, true, true) => families.push(UP),
        (false, true, false) | (true, false, true) => families.push(DOWN),
        (true, true, _) => {
            families.push(UP);
            families.push(DOWN);
        }
        (false, false, _) => {}
    }
    families
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(kind: ClaimKind, clause: &str) -> Fact {
        fact_of(&Claim {
            kind,
            clause: clause.to_string(),
        })
    }

    #[test]
    fn identifiers_are_versions_addresses_and_names_with_digits() {
        let f = fact(
            ClaimKind::LiveValue,
            "web1 runs kernel 6.8.12-4-pve and answers on 10.0.0.5 since 09:42.",
        );
        assert_eq!(f.tokens, vec!["web1", "6.8.12-4-pve", "10.0.0.5", "09:42"]);
        assert!(f.quantities.is_empty());
    }

    #[test]
    fn list_items_are_names() {
        let f = fact(
            ClaimKind::LiveState,
            "running containers: jellyfin, sonarr and traefik.",
        );
        assert_eq!(f.tokens, vec!["jellyfin", "sonarr", "traefik"]);
    }

    #[test]
    fn actions_know_their_family() {
        let f = fact(
            ClaimKind::Action,
            "reloaded haproxy with the new backend list.",
        );
        assert_eq!(f.action, Some(Action::Change(vec![CHANGES[1].1])));
        let f = fact(ClaimKind::Action, "i checked the logs");
        assert_eq!(f.action, Some(Action::Observation));
    }
}
