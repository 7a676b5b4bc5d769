//! Steps of the log routes: the system log (a file when the host has one,
//! else the journal), a service's journal (falling back to files under
//! /var/log named like it), a container's log. Filters run on the host
//! (`grep -F`, so the filter is text, not a pattern) except for containers,
//! whose recent lines are filtered here.

use serde_json::{Value, json};
use warden_protocol::Resource;

use crate::executor::commands::quote;
use crate::router::intent::{LogsRequest, MAX_LOG_LINES};
use crate::router::plan::{Call, Step, args};
use crate::router::recognise::since::now_unix;
use crate::router::render::{Res, block, failure, named};
use crate::router::resolve::{has_systemd, log_files};

/// How many journal entries a filtered search looks through.
const FILTER_WINDOW: u32 = 5000;
const SYSTEM_LOG_FILES: [&str; 2] = ["/var/log/syslog", "/var/log/messages"];
const FILES_MARKER: &str = "@@warden:files";

/// What the journal says when it has nothing.
fn is_empty_journal(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text == "-- No entries --"
}

fn grep(filter: &str) -> String {
    format!("grep -i -F -e {}", quote(filter))
}

fn since_flag(request: &LogsRequest) -> String {
    request
        .since
        .as_ref()
        .map(|s| format!(" --since {}", quote(&s.journal())))
        .unwrap_or_default()
}

/// Which file holds the system log, when the host said.
pub(super) fn system_log_file(host: &Resource) -> Option<String> {
    let files = log_files(host)?;
    SYSTEM_LOG_FILES
        .iter()
        .find(|f| files.iter().any(|x| x == *f))
        .map(|f| f.to_string())
}

pub fn system_logs(host: &Resource, request: &LogsRequest, step: usize, last: &[Value]) -> Step {
    let file = system_log_file(host).filter(|_| request.since.is_none());
    let source = file.clone().unwrap_or_else(|| "the journal".to_string());
    match (step, last) {
        (0, _) => {
            let call = match (&file, &request.filter) {
                (Some(path), None) => {
                    args("tail", host, json!({"path": path, "lines": request.lines}))
                }
                (Some(path), Some(filter)) => args(
                    "exec",
                    host,
                    json!({"command": format!("{} -- {} | tail -n {}", grep(filter), quote(path), request.lines)}),
                ),
                (None, None) => {
                    let mut a = args("logs", host, json!({"lines": request.lines}));
                    if let Some(since) = request.since {
                        a["since"] = json!(since.journal());
                    }
                    a
                }
                (None, Some(filter)) => args(
                    "exec",
                    host,
                    json!({"command": format!(
                        "journalctl --no-pager -n {FILTER_WINDOW}{} | {} | tail -n {}",
                        since_flag(request), grep(filter), request.lines
                    )}),
                ),
            };
            Step::Calls(vec![Call::new("read", call)])
        }
        (_, [result, ..]) if Res(result).ran() => {
            let out = Res(result).stdout();
            if is_empty_journal(out) {
                let mut text = match &request.filter {
                    Some(f) => format!("No lines matching \"{f}\" in {source} on {}", named(host)),
                    None => format!("{source} on {} has no entries", named(host)),
                };
                if let Some(since) = request.since {
                    text.push_str(&format!(" {}", since.describe()));
                }
                text.push('.');
                if file.is_none() && log_files(host).is_some_and(|f| f.is_empty()) {
                    text.push_str(" There is no /var/log/syslog or /var/log/messages either.");
                }
                if file.is_none() && has_systemd(host) == Some(false) {
                    text.push_str(" (This host does not run systemd, so journald may not be collecting anything.)");
                }
                return Step::Answer(capitalise(&text));
            }
            Step::Answer(log_answer(&source, host, request, out))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("read {source} on {}", named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}

fn log_answer(source: &str, host: &Resource, request: &LogsRequest, out: &str) -> String {
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

pub fn service_logs(
    host: &Resource,
    service: &str,
    request: &LogsRequest,
    step: usize,
    last: &[Value],
    all: &[Value],
) -> Step {
    let journal = "the journal".to_string();
    match step {
        0 => {
            let call = match &request.filter {
                None => {
                    let mut a = args(
                        "logs",
                        host,
                        json!({"service": service, "lines": request.lines}),
                    );
                    if let Some(since) = request.since {
                        a["since"] = json!(since.journal());
                    }
                    a
                }
                Some(filter) => args(
                    "exec",
                    host,
                    json!({"command": format!(
                        "journalctl -u {} --no-pager -n {FILTER_WINDOW}{} | {} | tail -n {}",
                        quote(service), since_flag(request), grep(filter), request.lines
                    )}),
                ),
            };
            Step::Calls(vec![Call::new("read", call)])
        }
        1 => match last {
            [result, ..] if Res(result).ran() && !is_empty_journal(Res(result).stdout()) => {
                Step::Answer(log_answer(
                    &format!("the journal of {service}"),
                    host,
                    request,
                    Res(result).stdout(),
                ))
            }
            [result, ..] if Res(result).ran() || Res(result).code() == Some("EXECUTION_FAILED") => {
                // Nothing in the journal: look for log files named after it.
                let pattern = format!("*{}*", service.trim_end_matches(".service"));
                Step::Calls(vec![Call::new(
                    "read",
                    args(
                        "exec",
                        host,
                        json!({"command": format!(
                            "echo {FILES_MARKER}; find /var/log -maxdepth 2 -type f -iname {} -size +0c -printf '%T@ %p\\n' 2>/dev/null | sort -rn | head -n 5",
                            quote(&pattern)
                        )}),
                    ),
                )])
            }
            [result, ..] => Step::Answer(failure(
                &format!("read {journal} on {}", named(host)),
                Res(result),
            )),
            [] => Step::Answer(format!("Nothing came back from {}.", named(host))),
        },
        2 => {
            let newest = last.first().and_then(|r| {
                Res(r)
                    .stdout()
                    .lines()
                    .filter(|l| !l.starts_with(FILES_MARKER))
                    .find_map(|l| l.split_once(' ').map(|(_, path)| path.trim().to_string()))
            });
            match newest {
                Some(path) => {
                    let call = match &request.filter {
                        None => args("tail", host, json!({"path": path, "lines": request.lines})),
                        Some(filter) => args(
                            "exec",
                            host,
                            json!({"command": format!("{} -- {} | tail -n {}", grep(filter), quote(&path), request.lines)}),
                        ),
                    };
                    Step::Calls(vec![Call::new("read", call)])
                }
                None => Step::Answer(format!(
                    "{} on {} has no entries for {service}{}, and no non-empty log file under /var/log is named like it.{}",
                    capitalise(&journal),
                    named(host),
                    request
                        .filter
                        .as_ref()
                        .map(|f| format!(" matching \"{f}\""))
                        .unwrap_or_default(),
                    if has_systemd(host) == Some(false) {
                        " (This host does not run systemd.)"
                    } else {
                        ""
                    }
                )),
            }
        }
        _ => {
            let path = all
                .get(1)
                .and_then(|r| {
                    Res(r)
                        .stdout()
                        .lines()
                        .filter(|l| !l.starts_with(FILES_MARKER))
                        .find_map(|l| l.split_once(' ').map(|(_, p)| p.trim().to_string()))
                })
                .unwrap_or_else(|| "the log file".to_string());
            match last {
                [result, ..] if Res(result).ran() => Step::Answer(format!(
                    "{} has no entries for {service}; its newest log file is {path}.\n{}",
                    capitalise(&journal),
                    log_answer(&path, host, request, Res(result).stdout())
                )),
                [result, ..] => Step::Answer(failure(&format!("read {path}"), Res(result))),
                [] => Step::Answer(format!("Nothing came back from {}.", named(host))),
            }
        }
    }
}

/// "1 line", "3 lines".
fn lines_word(count: usize) -> String {
    if count == 1 {
        "1 line".to_string()
    } else {
        format!("{count} lines")
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

pub fn container_logs(
    container: &Resource,
    request: &LogsRequest,
    step: usize,
    last: &[Value],
) -> Step {
    match (step, last) {
        (0, _) => {
            // A filter is applied here, to the most recent lines of the window.
            let lines = if request.filter.is_some() {
                MAX_LOG_LINES
            } else {
                request.lines
            };
            let mut a = args("logs", container, json!({"lines": lines}));
            if let Some(since) = request.since {
                a["since"] = json!(since.docker(now_unix()));
            }
            Step::Calls(vec![Call::new("read", a)])
        }
        (_, [result, ..]) if Res(result).ran() => {
            let ordered = in_time_order(Res(result).stdout());
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
                return Step::Answer(match &request.filter {
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
                });
            }
            let matching = request
                .filter
                .as_ref()
                .map(|f| format!(" matching \"{f}\""))
                .unwrap_or_default();
            Step::Answer(format!(
                "Last {}{matching} of the log of {}{window} (stdout and stderr in time order, as the Docker engine timestamped them):\n{}",
                lines_word(selected.len() - start),
                named(container),
                block(&text)
            ))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("read the logs of {}", named(container)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back about {}.", named(container))),
    }
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
