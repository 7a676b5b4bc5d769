//! The concrete facts of one claiming clause, and whether the evidence
//! holds each: the numbers (with their units), the identifiers (versions,
//! addresses, times, dates, names with digits or dashes), the names of the
//! things a state or a list is about, the states themselves, and the
//! actions with the kind of call that could have done them.

use warden_protocol::ToolKind;

use super::evidence::Evidence;
use super::quantity::{Dimension, Quantity, quantities, same};
use super::vocab::{CHANGES, COMMON, DOWN, OBSERVATIONS, UP};
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
