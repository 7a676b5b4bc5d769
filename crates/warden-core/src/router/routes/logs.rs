//! Steps of the log routes: the system log (a file when the host has one,
//! else the journal), a service's journal (falling back to files under
//! /var/log named like it), a container's log. Filters run on the host
//! (`grep -F`, so the filter is text, not a pattern) except for containers,
//! whose recent lines are filtered as the answer is worded
//! (`render/logs.rs`).

use serde_json::{Value, json};
use warden_protocol::Resource;

use crate::executor::commands::quote;
use crate::router::intent::{LogsRequest, MAX_LOG_LINES};
use crate::router::plan::{Call, Step, args};
use crate::router::recognise::since::now_unix;
use crate::router::render::log_window::dated_read;
use crate::router::render::logs::{container_log_answer, log_answer, windowed_log_answer};
use crate::router::render::{Res, capitalised, failure, named};
use crate::router::resolve::{has_systemd, log_files};

/// How many journal entries a filtered search looks through.
const FILTER_WINDOW: u32 = 5000;
const SYSTEM_LOG_FILES: [&str; 2] = ["/var/log/syslog", "/var/log/messages"];
const FILES_MARKER: &str = "@@warden:files";
/// How many lines of a log file a windowed ("since") read looks through.
const FILE_READ: usize = 2000;

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

/// The read of a log file's lines: the last ones, or with a window the
/// host's clock and enough lines to find the window's entries in.
fn file_call(host: &Resource, path: &str, request: &LogsRequest) -> Value {
    match (&request.since, &request.filter) {
        (Some(_), filter) => args(
            "exec",
            host,
            json!({"command": dated_read(path, FILE_READ, filter.as_deref())}),
        ),
        (None, None) => args("tail", host, json!({"path": path, "lines": request.lines})),
        (None, Some(filter)) => args(
            "exec",
            host,
            json!({"command": format!("{} -- {} | tail -n {}", grep(filter), quote(path), request.lines)}),
        ),
    }
}

/// A log file's lines in words: windowed when the request gave a window.
fn file_answer(source: &str, host: &Resource, request: &LogsRequest, out: &str) -> String {
    match request.since {
        Some(since) => windowed_log_answer(source, host, request, since, FILE_READ, out),
        None => log_answer(source, host, request, out),
    }
}

pub fn system_logs(host: &Resource, request: &LogsRequest, step: usize, last: &[Value]) -> Step {
    // With a window, the journal when the host has one; a host without
    // systemd keeps its log in a file, windowed by the lines' times.
    let file = system_log_file(host)
        .filter(|_| request.since.is_none() || has_systemd(host) == Some(false));
    let source = file.clone().unwrap_or_else(|| "the journal".to_string());
    match (step, last) {
        (0, _) => {
            let call = match (&file, &request.filter) {
                (Some(path), _) if request.since.is_some() => file_call(host, path, request),
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
                return Step::Answer(capitalised(&text));
            }
            match &file {
                Some(_) => Step::Answer(file_answer(&source, host, request, out)),
                None => Step::Answer(log_answer(&source, host, request, out)),
            }
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("read {source} on {}", named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
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
                Some(path) => Step::Calls(vec![Call::new("read", file_call(host, &path, request))]),
                None => Step::Answer(format!(
                    "{} on {} has no entries for {service}{}, and no non-empty log file under /var/log is named like it.{}",
                    capitalised(&journal),
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
                    capitalised(&journal),
                    file_answer(&path, host, request, Res(result).stdout())
                )),
                [result, ..] => Step::Answer(failure(&format!("read {path}"), Res(result))),
                [] => Step::Answer(format!("Nothing came back from {}.", named(host))),
            }
        }
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
        (_, [result, ..]) if Res(result).ran() => Step::Answer(container_log_answer(
            container,
            request,
            Res(result).stdout(),
        )),
        (_, [result, ..]) => Step::Answer(failure(
            &format!("read the logs of {}", named(container)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back about {}.", named(container))),
    }
}
