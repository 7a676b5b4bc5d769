//! Log answers: the last lines of a log with the filter and window the
//! request gave, and a container's log lines in time order.

use warden_protocol::Resource;

use super::format::{block, capitalised, named};
use crate::router::intent::{LogsRequest, MAX_LOG_LINES};
use crate::router::recognise::since::Since;

pub fn log_answer(source: &str, host: &Resource, request: &LogsRequest, out: &str) -> String {
    let count = out.lines().count();
    let matching = request
        .filter
        .as_ref()
        .map(|f| format!(" matching \"{f}\""))
        .unwrap_or_default();
    let since = request
        .since
        .as_ref()
        .map(|s| format!(" {}", s.describe()))
        .unwrap_or_default();
    format!(
        "Last {}{matching} of {source} on {}{since}:\n{}",
        lines_word(count),
        named(host),
        block(out)
    )
}

/// The last lines of a log file inside the request's window, from a read
/// that printed the host's clock first (`log_window::dated_read`), `read`
/// lines long.
pub fn windowed_log_answer(
    source: &str,
    host: &Resource,
    request: &LogsRequest,
    since: Since,
    read: usize,
    stdout: &str,
) -> String {
    let Some(window) = super::log_window::lines_since(stdout, since) else {
        return format!(
            "The read of {source} on {} did not say the host's time, so the window ({}) could not be applied; nothing is shown rather than lines from outside it.",
            named(host),
            since.describe()
        );
    };
    if window.undated {
        return format!(
            "No line of the last {read} of {source} on {} carries a time Warden can read, so the window ({}) cannot be applied to it.",
            named(host),
            since.describe()
        );
    }
    if window.lines.is_empty() {
        let matching = request
            .filter
            .as_ref()
            .map(|f| format!(" matching \"{f}\""))
            .unwrap_or_default();
        return format!(
            "{} on {} has no entries{matching} {} (by the times its lines carry; its last {read} lines were searched).",
            capitalised(source),
            named(host),
            since.describe()
        );
    }
    let shown = &window.lines[window.lines.len().saturating_sub(request.lines as usize)..];
    let mut text = log_answer(source, host, request, &shown.join("\n"));
    if window.maybe_cut {
        text.push_str(&format!(
            "\n(The window may reach back further than the {read} lines read.)"
        ));
    }
    text
}

/// "1 line", "3 lines".
pub fn lines_word(count: usize) -> String {
    if count == 1 {
        "1 line".to_string()
    } else {
        format!("{count} lines")
    }
}

/// A container's log lines (`docker logs --timestamps`) in time order:
/// the last the request asked for, only those with its filter when it
/// gave one.
pub fn container_log_answer(container: &Resource, request: &LogsRequest, stdout: &str) -> String {
    let ordered = in_time_order(stdout);
    let selected: Vec<&String> = match &request.filter {
        Some(filter) => {
            let needle = filter.to_lowercase();
            ordered
                .iter()
                .filter(|l| l.to_lowercase().contains(&needle))
                .collect()
        }
        None => ordered.iter().collect(),
    };
    let start = selected.len().saturating_sub(request.lines as usize);
    let text = selected[start..]
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let window = match request.since {
        Some(since) => format!(" {}", since.describe()),
        None => String::new(),
    };
    if text.trim().is_empty() {
        return match &request.filter {
            Some(f) => format!(
                "No lines matching \"{f}\" in the {}log of {}{window}{}.",
                if ordered.len() >= MAX_LOG_LINES as usize {
                    format!("last {MAX_LOG_LINES} lines of the ")
                } else {
                    String::new()
                },
                named(container),
                if ordered.is_empty() {
                    " (it logged nothing)"
                } else {
                    ""
                }
            ),
            None => format!("{} has logged nothing{window}.", named(container)),
        };
    }
    let matching = request
        .filter
        .as_ref()
        .map(|f| format!(" matching \"{f}\""))
        .unwrap_or_default();
    format!(
        "Last {}{matching} of the log of {}{window} (stdout and stderr in time order, as the Docker engine timestamped them):\n{}",
        lines_word(selected.len() - start),
        named(container),
        block(&text)
    )
}

/// `docker logs --timestamps` lines (stdout and stderr merged) sorted by
/// their timestamps, shown to the second. A line without a timestamp (a
/// message from the docker CLI) keeps its place after the line before it.
pub fn in_time_order(output: &str) -> Vec<String> {
    let mut keyed: Vec<(String, String)> = Vec::new();
    let mut key = String::new();
    for line in output.lines() {
        let shown = match timestamp_of(line) {
            Some((sortable, shown, rest)) => {
                key = sortable;
                format!("{shown} {rest}")
            }
            None => line.to_string(),
        };
        keyed.push((key.clone(), shown));
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, line)| line).collect()
}

/// `2026-11-23T10:00:00.123456789Z rest` → (a key that sorts correctly,
/// `2026-11-23T10:00:00Z`, `rest`).
fn timestamp_of(line: &str) -> Option<(String, String, &str)> {
    let (stamp, rest) = line.split_once(' ').unwrap_or((line, ""));
    let body = stamp.strip_suffix('Z')?;
    let (seconds, fraction) = body.split_once('.').unwrap_or((body, ""));
    let well_formed = seconds.len() == 19
        && seconds.as_bytes().get(10) == Some(&b'T')
        && fraction.len() <= 9
        && fraction.chars().all(|c| c.is_ascii_digit());
    well_formed.then(|| {
        (
            format!("{seconds}.{fraction:0<9}"),
            format!("{seconds}Z"),
            rest,
        )
    })
}
