//! Steps of the routes that change services, containers and notes
//! (through `WriteRoute`: discover, check the write can work, write,
//! verify, answer from the verification), and of plain command runs;
//! guests are in `guest_writes.rs`. "Done" only when the verification
//! read shows the intended state; otherwise the answer says what it showed.

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::systemd::{SYSTEMD_RUNS, unit_candidates};
use super::write_route::{Precheck, Verified, WriteRoute};
use crate::executor::commands::quote;
use crate::router::intent::ControlOp;
use crate::router::markers::{NO_SYSTEMCTL, UNIT_CHECK};
use crate::router::plan::{Call, Step, args};
use crate::router::recognise::suggest::distance;
use crate::router::render::exit::exit_code_words;
use crate::router::render::status::container_state;
use crate::router::render::units::{exited_again, unit_blocks, unit_state};
use crate::router::render::{Res, block, failure, named};
use crate::router::resolve::known_services;

/// Is there a systemd unit for `service`? Run before proposing a change.
fn unit_check_command(service: &str) -> String {
    let units = unit_candidates(service)
        .iter()
        .map(|u| quote(u))
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "echo {UNIT_CHECK}; if {SYSTEMD_RUNS}; then systemctl show --no-pager --property=Id,LoadState,ActiveState,SubState -- {units}; else echo {NO_SYSTEMCTL}; fi"
    )
}

/// The unit the check found loaded (`ssh` may be `sshd.service`).
fn loaded_unit(stdout: &str, service: &str) -> Option<String> {
    unit_blocks(stdout)
        .into_iter()
        .find(|u| u.get("LoadState").is_some_and(|s| s == "loaded"))
        .map(|u| {
            u.get("Id")
                .cloned()
                .unwrap_or_else(|| unit_candidates(service).remove(0))
        })
}

/// Services the host reported whose names are close to `service`.
fn similar_services(host: &Resource, service: &str) -> Vec<String> {
    let mut close: Vec<(usize, String)> = known_services(host)
        .into_iter()
        .map(|s| (distance(&s.to_lowercase(), &service.to_lowercase()), s))
        .filter(|(d, s)| *d <= 2 || s.contains(service) || service.contains(s.as_str()))
        .collect();
    close.sort();
    close.into_iter().take(3).map(|(_, s)| s).collect()
}

pub fn service_control(
    host: &Resource,
    service: &str,
    operation: ControlOp,
    step: usize,
    last: &[Value],
    all: &[Value],
) -> Step {
    let found = all
        .get(1)
        .and_then(|r| loaded_unit(Res(r).stdout(), service));
    let unit = found
        .clone()
        .unwrap_or_else(|| unit_candidates(service).remove(0));
    // As typed when that is the unit; the real unit when it is another
    // (`ssh` → `sshd.service`).
    let name = if unit == format!("{service}.service") || unit == service {
        service.to_string()
    } else {
        unit.trim_end_matches(".service").to_string()
    };
    let decide = |res: Res<'_>| -> Result<(), String> {
        if res.stdout().contains(NO_SYSTEMCTL) {
            return Err(format!(
                "I can't {} {service} on {}: it does not run systemd, so there is no service manager to do it with. Nothing was done.",
                operation.as_str(),
                named(host)
            ));
        }
        if loaded_unit(res.stdout(), service).is_some() {
            return Ok(());
        }
        let similar = similar_services(host, service);
        let hint = if similar.is_empty() {
            String::new()
        } else {
            format!(" Did you mean {}?", similar.join(", "))
        };
        Err(format!(
            "There is no service called {service} on {} (systemd has no unit {}), so I did not {} anything.{hint}",
            named(host),
            unit_candidates(service).join(" or "),
            operation.as_str()
        ))
    };
    let state = |verified: Verified<'_>| match unit_blocks(verified.first().stdout()).first() {
        Some(u) => unit_state(u),
        None => format!("the state of {unit} could not be read back"),
    };
    let describe = |verified: Verified<'_>| {
        let units = unit_blocks(verified.first().stdout());
        let Some(u) = units.first() else {
            return format!(
                "The {} of {name} on {} ran, but its state could not be read back, so I cannot say it worked.",
                operation.as_str(),
                named(host)
            );
        };
        let get = |k: &str| u.get(k).map(String::as_str).unwrap_or("");
        let verdict = match operation {
            ControlOp::Stop if get("ActiveState") == "inactive" => {
                format!("Done: {name} was stopped on {}.", named(host))
            }
            ControlOp::Stop => format!(
                "The stop of {name} on {} ran, but it is still {}.",
                named(host),
                get("ActiveState")
            ),
            _ if get("ActiveState") == "active" => {
                format!("Done: {name} was {} on {}.", operation.past(), named(host))
            }
            _ => format!(
                "{name} was {} on {}, but {}.",
                operation.past(),
                named(host),
                exited_again(u)
            ),
        };
        format!("{verdict}\n  now: {}", unit_state(u))
    };
    let action = format!("{} {name} on {}", operation.as_str(), named(host));
    WriteRoute {
        target: host,
        action,
        precheck: Some(Precheck {
            call: Call::new(
                "read",
                args(
                    "exec",
                    host,
                    json!({"command": unit_check_command(service)}),
                ),
            ),
            decide: &decide,
        }),
        write: Call::new(
            "control",
            args(
                "service",
                host,
                json!({"service": name, "operation": operation.as_str()}),
            ),
        ),
        verify: vec![Call::new(
            "read",
            args(
                "exec",
                host,
                json!({"command": format!(
                    "systemctl show --no-pager --property=Id,ActiveState,SubState,Result,ExecMainCode,ExecMainStatus,NRestarts,ActiveEnterTimestamp -- {}",
                    quote(&unit)
                )}),
            ),
        )],
        describe: &describe,
        state: &state,
    }
    .step(step, last, all)
}

pub fn container_control(
    container: &Resource,
    operation: ControlOp,
    step: usize,
    last: &[Value],
    all: &[Value],
) -> Step {
    let describe = |verified: Verified<'_>| {
        let res = verified.first();
        let parsed: Value = serde_json::from_str(res.stdout()).unwrap_or(Value::Null);
        let state = &parsed.get(0).unwrap_or(&parsed)["State"];
        let status = state["Status"].as_str().unwrap_or("");
        let code = state["ExitCode"].as_i64().unwrap_or(0);
        let now = container_state(container, res.stdout());
        let verdict = match (operation, status) {
            (ControlOp::Stop, "exited" | "created") => {
                format!("Done: {} was stopped.", named(container))
            }
            (ControlOp::Stop, _) => {
                format!("The stop of {} ran, but it is {status}.", named(container))
            }
            (_, "running") => format!("Done: {} was {}.", named(container), operation.past()),
            (_, "restarting") => format!(
                "{} was {}, but it exited again with code {} and Docker is restarting it.",
                named(container),
                operation.past(),
                exit_code_words(code)
            ),
            (_, "exited" | "dead") => format!(
                "{} was {}, but it exited again with code {}.",
                named(container),
                operation.past(),
                exit_code_words(code)
            ),
            (_, other) => format!(
                "{} was {}, but it is {} now, not running.",
                named(container),
                operation.past(),
                if other.is_empty() {
                    "in an unknown state"
                } else {
                    other
                }
            ),
        };
        format!("{verdict}\n  now: {now}")
    };
    let state = |verified: Verified<'_>| container_state(container, verified.first().stdout());
    WriteRoute {
        target: container,
        action: format!("{} {}", operation.as_str(), named(container)),
        precheck: None,
        write: Call::new(
            "docker",
            args(
                "control",
                container,
                json!({"operation": operation.as_str()}),
            ),
        ),
        verify: vec![Call::new("docker", args("inspect", container, json!({})))],
        describe: &describe,
        state: &state,
    }
    .step(step, last, all)
}

pub fn remember(host: &Resource, note: &str, step: usize, last: &[Value], all: &[Value]) -> Step {
    let found = |res: Res<'_>| {
        res.data()["notes"]
            .as_array()
            .is_some_and(|n| n.iter().any(|x| x.as_str() == Some(note)))
    };
    let describe = |verified: Verified<'_>| {
        if found(verified.first()) {
            format!("Noted: \"{note}\".")
        } else {
            format!("I tried to note \"{note}\", but reading it back did not find it.")
        }
    };
    let state = |verified: Verified<'_>| {
        if found(verified.first()) {
            "the note is there".to_string()
        } else {
            "the note is not there".to_string()
        }
    };
    WriteRoute {
        target: host,
        action: format!("remember \"{note}\""),
        precheck: None,
        write: Call::new("knowledge", json!({"action": "remember", "note": note})),
        verify: vec![Call::new(
            "knowledge",
            json!({"action": "recall", "query": note}),
        )],
        describe: &describe,
        state: &state,
    }
    .step(step, last, all)
}

pub fn recall(query: &str, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "knowledge",
            json!({"action": "recall", "query": query}),
        )]),
        (_, [result, ..]) if Res(result).ok() => {
            let notes: Vec<&str> = Res(result).data()["notes"]
                .as_array()
                .map(|n| n.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if notes.is_empty() {
                Step::Answer(format!("I have no notes about \"{query}\"."))
            } else {
                Step::Answer(format!(
                    "Notes about \"{query}\":\n{}",
                    notes
                        .iter()
                        .map(|n| format!("  - {n}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                ))
            }
        }
        (_, [result, ..]) => Step::Answer(failure("recall notes", Res(result))),
        (_, []) => Step::Answer("Nothing came back from the notes.".to_string()),
    }
}

pub fn run_read(host: &Resource, command: &str, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "read",
            args("exec", host, json!({"command": command})),
        )]),
        (_, [result, ..]) if Res(result).ran() => {
            let res = Res(result);
            let mut text = format!(
                "`{command}` on {} (exit status {}):\n{}",
                named(host),
                res.exit_code().unwrap_or(0),
                block(res.stdout())
            );
            if !res.stderr().trim().is_empty() {
                text.push_str(&format!("\nstderr:\n{}", block(res.stderr())));
            }
            Step::Answer(text)
        }
        (_, [result, ..]) => Step::Answer(failure(&format!("run `{command}`"), Res(result))),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}
