//! "errors in the last hour", host-wide: the journal's entries of priority
//! `err` and worse in the window; on a host without journald, the lines of
//! its system log file that say error, windowed by the times they carry
//! (the read prints the host's clock first; `render/log_window.rs`).

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::logs::system_log_file;
use crate::executor::commands::quote;
use crate::router::plan::{Call, Step, args};
use crate::router::recognise::since::Since;
use crate::router::render::errors::{FILE_WINDOW, MAX_ENTRIES, file_answer, journal_answer};
use crate::router::render::log_window::CLOCK_MARKER;
use crate::router::render::{Res, failure, named};
use crate::router::resolve::has_systemd;

const NO_JOURNAL: &str = "@@warden:no-journal";

fn journal_command(since: Since) -> String {
    format!(
        "if command -v journalctl >/dev/null; then journalctl --no-pager -q -o short-iso -p err --since {} -n {MAX_ENTRIES}; else echo {NO_JOURNAL}; fi",
        quote(&since.journal())
    )
}

fn file_command(path: &str) -> String {
    format!(
        "date {}; tail -n {FILE_WINDOW} -- {} | grep -i -E -e 'error|crit|emerg|alert|panic|fatal' | tail -n {MAX_ENTRIES}",
        quote(&format!("+{CLOCK_MARKER} %s %z")),
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
                file_answer(
                    host,
                    file.as_deref().unwrap_or("the system log"),
                    since,
                    out,
                )
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
