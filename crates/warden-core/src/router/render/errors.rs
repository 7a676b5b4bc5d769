//! "errors in the last hour" in words: the journal's entries of priority
//! `err` and worse, counted by source; or, on a host without a journal, the
//! lines of its system log file that say error, inside the window by the
//! times they carry.

use warden_protocol::Resource;

use super::format::{block, named};
use crate::router::recognise::since::Since;

/// Most journal entries (or file lines) a search returns.
pub const MAX_ENTRIES: usize = 200;
/// How many of them the answer shows.
const SHOWN: usize = 30;
/// How many lines of a system log file are searched.
pub const FILE_WINDOW: usize = 5000;

fn entries(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("-- "))
        .collect()
}

/// `2026-11-23T10:00:00+0000 web1 nginx[612]: …` → `nginx`.
fn source_of(line: &str) -> Option<&str> {
    let ident = line.split_whitespace().nth(2)?;
    let ident = ident.trim_end_matches(':');
    let ident = ident.split('[').next().unwrap_or(ident);
    (!ident.is_empty()).then_some(ident)
}

pub fn journal_answer(host: &Resource, since: Since, out: &str) -> String {
    let lines = entries(out);
    if lines.is_empty() {
        return format!(
            "No errors (journal priority err or worse) on {} {}.",
            named(host),
            since.describe()
        );
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for source in lines.iter().filter_map(|l| source_of(l)) {
        match counts.iter_mut().find(|(s, _)| *s == source) {
            Some((_, n)) => *n += 1,
            None => counts.push((source, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let count = if lines.len() >= MAX_ENTRIES {
        format!("At least {MAX_ENTRIES}")
    } else {
        lines.len().to_string()
    };
    let sources = counts
        .iter()
        .take(6)
        .map(|(s, n)| format!("{s} ({n})"))
        .collect::<Vec<_>>()
        .join(", ");
    let shown = &lines[lines.len().saturating_sub(SHOWN)..];
    format!(
        "{count} error entr{} (journal priority err or worse) on {} {}; by source: {sources}.\n{}:\n{}",
        if lines.len() == 1 { "y" } else { "ies" },
        named(host),
        since.describe(),
        if shown.len() < lines.len() {
            format!("The latest {}", shown.len())
        } else {
            "Entries".to_string()
        },
        block(&shown.join("\n"))
    )
}

pub fn file_answer(host: &Resource, path: &str, since: Since, out: &str) -> String {
    let Some(window) = super::log_window::lines_since(out, since) else {
        return format!(
            "The search of {path} on {} did not say the host's time, so the window ({}) could not be applied; nothing is shown rather than lines from outside it.",
            named(host),
            since.describe()
        );
    };
    let lines: Vec<&str> = window
        .lines
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if window.undated {
        let any = out.lines().skip(1).any(|l| !l.trim().is_empty());
        return if any {
            format!(
                "{path} on {} has lines saying error (or worse), but none carries a time Warden can read, so the window ({}) cannot be applied (it has no journal).",
                named(host),
                since.describe()
            )
        } else {
            format!(
                "No lines saying error, crit, alert, emerg, panic or fatal in the last {FILE_WINDOW} lines of {path} on {} (it has no journal).",
                named(host)
            )
        };
    }
    if lines.is_empty() {
        return format!(
            "No lines saying error, crit, alert, emerg, panic or fatal in {path} on {} {} (it has no journal; by the times its lines carry, in its last {FILE_WINDOW} lines).",
            named(host),
            since.describe()
        );
    }
    let shown = &lines[lines.len().saturating_sub(SHOWN)..];
    let cut = if window.maybe_cut {
        format!(" The window may reach back further than the last {FILE_WINDOW} lines searched.")
    } else {
        String::new()
    };
    format!(
        "{} lines saying error (or worse) in {path} on {} {} (it has no journal; windowed by the times its lines carry).{cut} The latest {}:\n{}",
        lines.len(),
        named(host),
        since.describe(),
        shown.len(),
        block(&shown.join("\n"))
    )
}
