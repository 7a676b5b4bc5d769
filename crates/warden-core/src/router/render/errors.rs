//! "errors in the last hour" in words: the journal's entries of priority
//! `err` and worse, counted by source; or, on a host without a journal, the
//! lines of its system log file that say error (and that no time window
//! could be applied).

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

pub fn file_answer(host: &Resource, path: &str, out: &str) -> String {
    let lines = entries(out);
    if lines.is_empty() {
        return format!(
            "No lines saying error, crit, alert, emerg, panic or fatal in the last {FILE_WINDOW} lines of {path} on {} (it has no journal; a time window cannot be applied to the file).",
            named(host)
        );
    }
    let shown = &lines[lines.len().saturating_sub(SHOWN)..];
    format!(
        "{} lines saying error (or worse) in the last {FILE_WINDOW} lines of {path} on {} (it has no journal, so no time window was applied). The latest {}:\n{}",
        lines.len(),
        named(host),
        shown.len(),
        block(&shown.join("\n"))
    )
}
