//! Stage 1, recognising: the request's text → an [`Intent`]. Three
//! recognisers, tried in order: regex fast paths for the common phrasings,
//! a parser for requests that are themselves shell commands, and keyword
//! heuristics for looser phrasings (trusted only without a model). The
//! parser runs before the heuristics because a literal command is
//! unambiguous, while keywords are a guess.
//!
//! - `intent`: what a request asks for ([`Intent`], [`Stage`], their parts).
//! - `fast`: the fast paths' patterns and matching (status, metrics, logs,
//!   control, lists, notes, help); `fast_facts` (host facts, errors,
//!   certificates, exits) and `fast_guests` (Proxmox history, snapshots)
//!   add theirs.
//! - `modifiers`: the end of a request ("on web1", "since 1h", "with
//!   \"timeout\"").
//! - `since`: a "since" window, for journalctl and the Docker Engine.
//! - `window`: a history window, as the Proxmox timeframe that covers it.
//! - `endpoint`: a TLS endpoint (`host:port`) named in a request.
//! - `command_parser`: a request that is itself a shell command.
//! - `heuristics`: a keyword guess for looser phrasings; `keywords` is its
//!   vocabulary and tells a mistyped keyword from a name.
//! - `suggest`: the nearest supported phrasings for what matched nothing.

mod command_parser;
mod endpoint;
mod fast;
mod fast_facts;
mod fast_guests;
mod heuristics;
pub mod intent;
mod keywords;
mod modifiers;
pub(super) mod since;
pub(super) mod suggest;
mod window;

use intent::{Intent, Recognised, Stage};

/// Recognise a request; `None` when no stage matched.
pub fn recognise(text: &str) -> Option<Recognised> {
    let typed = strip_politeness(text.trim());
    if typed.is_empty() {
        return None;
    }
    let stripped = strip_mentions(typed);
    let original = stripped.as_str();
    let lower = original.to_lowercase();
    if let Some((pattern, intent)) = fast::match_fast(original, &lower) {
        return Some(Recognised {
            stage: Stage::FastPath,
            intent,
            evidence: format!("the `{pattern}` pattern matched the whole request"),
        });
    }
    // A literal command ("systemctl status nginx", "$ df -h") is taken as
    // one before keyword guessing, which would read "status" as a question.
    // It reads the request as typed: `uptime @h2` aims `uptime` at h2.
    if let Some(intent) = command_parser::as_command(typed) {
        let (program, on) = match &intent {
            Intent::Run { command, on } => (
                command
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                on.as_deref(),
            ),
            _ => (String::new(), None),
        };
        let aimed = on
            .map(|on| format!(", aimed at `{on}`"))
            .unwrap_or_default();
        return Some(Recognised {
            stage: Stage::Parser,
            intent,
            evidence: format!(
                "it parses as a shell command{aimed}, and `{program}` is a program the command policy knows"
            ),
        });
    }
    heuristics::guess(original, &lower).map(|(intent, evidence)| Recognised {
        stage: Stage::Heuristic,
        intent,
        evidence,
    })
}

/// `@name` is a structured mention for the loop; the phrasings read the
/// name.
fn strip_mentions(text: &str) -> String {
    text.split_whitespace()
        .map(|w| w.strip_prefix('@').unwrap_or(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// "please", "can you", "warden," and trailing punctuation say nothing
/// about the request.
fn strip_politeness(text: &str) -> &str {
    let mut text = text.trim().trim_end_matches(['?', '!', '.', ' ']);
    loop {
        let lower = text.to_lowercase();
        let prefix = [
            "please ",
            "pls ",
            "warden, ",
            "warden ",
            "hey, ",
            "hey ",
            "can you ",
            "could you ",
            "would you ",
            "can u ",
            "i want to ",
            "i'd like to ",
            "i want you to ",
        ]
        .into_iter()
        .find(|p| lower.starts_with(p));
        match prefix {
            Some(p) => text = text[p.len()..].trim_start(),
            None => break,
        }
    }
    text.trim_end_matches(" please").trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn politeness_is_ignored() {
        assert_eq!(
            strip_politeness("Please can you restart nginx?"),
            "restart nginx"
        );
        assert_eq!(strip_politeness("warden, disk usage please"), "disk usage");
    }
}
