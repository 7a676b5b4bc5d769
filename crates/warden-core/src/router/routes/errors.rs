//! "errors in the last hour", host-wide: the journal's entries of priority
//! `err` and worse in the window; on a host without journald, the lines of
//! its system log file that say error (the file has no reliable time
//! stamps to window on, and the answer says so).

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::logs::system_log_file;
use crate::executor::commands::quote;
use crate::router::plan::{Call, Step, args};
use crate::router::recognise::since::{Since, TimeUnit};
use crate::router::render::{Res, block, failure, named};
use crate::router::resolve::has_systemd;

const NO_JOURNAL: &str = "@@warden:no-journal";
const MAX_ENTRIES: usize = 200;
const SHOWN: usize = 30;
const FILE_WINDOW: usize = 5000;

/// The window when the request names none.
pub const DEFAULT_WINDOW: Since = Since::Ago {
    amount: 1,
    unit: TimeUnit::Day,
};

fn journal_command(since: Since) -> String {
    format!(
        "if command -v journalctl >/dev/null; then journalctl --no-pager -q -o short-iso -p err --since {} -n {MAX_ENTRIES}; else echo {NO_JOURNAL}; fi",
        quote(&since.journal())
    )
}

fn file_command(path: &str) -> String {
    format!(
        "tail -n {FILE_WINDOW} -- {} | grep -i -E -e 'error|crit|emerg|alert|panic|fatal' | tail -n {MAX_ENTRIES}",
        quote(path)
    )
}

fn exec(host: &Resource, command: String) -> Step {
    Step::Calls(vec![Call::new(
        "read",
        args("exec", host, json!({"command": command})),
    )])
}

pub fn recent_errors(host: &Resource, since: Since, step: usize, last: &[Value]) -> Step {
    let file = system_log_file(host);
    let journal_less = has_systemd(host) == Some(false);
    match (step, last) {
        (0, _) => match (&file, journal_less) {
            (Some(path), true) => exec(host, file_command(path)),
            _ => exec(host, journal_command(since)),
        },
        (_, [result, ..]) if Res(result).ran() => {
            let out = Res(result).stdout();
            let from_file = step == 1 && journal_less && file.is_some() || step == 2;
            if out.contains(NO_JOURNAL) {
                return match &file {
                    Some(path) if step == 1 => exec(host, file_command(path)),
                    _ => Step::Answer(format!(
                        "{} has no journal (`journalctl` is missing) and reported no /var/log/syslog or /var/log/messages, so there is no system log to search for errors.",
                        named(host)
                    )),
                };
            }
            Step::Answer(if from_file {
                file_answer(host, file.as_deref().unwrap_or("the system log"), out)
            } else {
                journal_answer(host, since, out)
            })
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("search the logs of {} for errors", named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}

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

fn journal_answer(host: &Resource, since: Since, out: &str) -> String {
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

fn file_answer(host: &Resource, path: &str, out: &str) -> String {
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
