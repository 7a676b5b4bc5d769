//! "why did X exit": for a container, `docker inspect` (State.ExitCode,
//! OOMKilled, Error, FinishedAt, RestartCount) and its last log lines; for
//! a systemd unit, `systemctl show` (Result, ExecMainStatus, NRestarts)
//! and its last journal lines. The answer (`render/exit.rs`) states what
//! those say, no more.

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::systemd::{SYSTEMD_RUNS, unit_candidates};
use crate::executor::commands::quote;
use crate::router::markers::{JOURNAL_MARKER, NO_SYSTEMCTL};
use crate::router::plan::{Call, Step, args};
use crate::router::render::exit::{container_exit_answer, describe_unit_exit};
use crate::router::render::{Res, failure, named};

const LOG_LINES: u32 = 20;

pub fn container_exit(container: &Resource, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![
            Call::new("docker", args("inspect", container, json!({}))),
            Call::new("read", args("logs", container, json!({"lines": LOG_LINES}))),
        ]),
        (_, [inspect, logs, ..]) if Res(inspect).ok() => Step::Answer(container_exit_answer(
            container,
            Res(inspect).stdout(),
            Res(logs),
        )),
        (_, [inspect, ..]) => Step::Answer(failure(
            &format!("inspect {}", named(container)),
            Res(inspect),
        )),
        (_, []) => Step::Answer(format!("Nothing came back about {}.", named(container))),
    }
}

/// `systemctl show` of the unit and its last journal lines, in one read.
pub fn unit_exit_command(service: &str) -> String {
    let units = unit_candidates(service);
    let quoted = units.iter().map(|u| quote(u)).collect::<Vec<_>>().join(" ");
    let journal_units = units
        .iter()
        .map(|u| format!("-u {}", quote(u)))
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "if {SYSTEMD_RUNS}; then systemctl show --no-pager --property=Id,LoadState,ActiveState,SubState,Result,ExecMainCode,ExecMainStatus,ExecMainExitTimestamp,NRestarts,ActiveEnterTimestamp -- {quoted}; echo {JOURNAL_MARKER}; journalctl --no-pager -n {LOG_LINES} {journal_units} 2>&1; else echo {NO_SYSTEMCTL}; fi"
    )
}

pub fn unit_exit(host: &Resource, service: &str, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "read",
            args("exec", host, json!({"command": unit_exit_command(service)})),
        )]),
        (_, [result, ..]) if Res(result).ran() => {
            Step::Answer(describe_unit_exit(host, service, Res(result).stdout()))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("read the state of {service} on {}", named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}
