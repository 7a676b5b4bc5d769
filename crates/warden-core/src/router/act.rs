//! Steps of the routes that change things: discover the target, propose
//! the write (the executor asks for approval at the `controlled` level),
//! verify with a read, then answer. Also notes and plain command runs.

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::intent::ControlOp;
use super::observe::{container_state, unit_blocks};
use super::plan::{Call, Step, args};
use super::render::{Res, block, failure, named, not_done};
use crate::executor::commands::quote;

/// discover → write → verify → answer, shared by every control route.
struct WriteRoute<'r> {
    target: &'r Resource,
    /// "restart nginx on web1".
    action: String,
    write: Call,
    verify: Call,
    /// The answer from the verification result.
    describe: &'r dyn Fn(Res<'_>) -> String,
}

impl WriteRoute<'_> {
    fn step(&self, step: usize, last: &[Value]) -> Step {
        let first = last.first().map(Res);
        match step {
            0 => Step::Calls(vec![Call::new(
                "query",
                args("get", self.target, json!({})),
            )]),
            1 => match first {
                Some(res) if res.ok() => Step::Calls(vec![self.write.clone()]),
                Some(res) => Step::Answer(failure(&format!("find {}", named(self.target)), res)),
                None => Step::Answer(format!("Could not find {}.", named(self.target))),
            },
            2 => match first {
                Some(res) if res.ok() => Step::Calls(vec![self.verify.clone()]),
                Some(res) => Step::Answer(not_done(&self.action, res)),
                None => Step::Answer(format!("Nothing came back for {}.", self.action)),
            },
            _ => match first {
                Some(res) if res.ok() || res.ran() => Step::Answer((self.describe)(res)),
                Some(res) => Step::Answer(format!(
                    "Done: {} ran, but checking the result failed: {} ({}).",
                    self.action,
                    res.message(),
                    res.code().unwrap_or("?")
                )),
                None => Step::Answer(format!("Done: {} ran; nothing confirmed it.", self.action)),
            },
        }
    }
}

pub fn service_control(
    host: &Resource,
    service: &str,
    operation: ControlOp,
    step: usize,
    last: &[Value],
) -> Step {
    let unit = if service.ends_with(".service") {
        service.to_string()
    } else {
        format!("{service}.service")
    };
    let describe = |res: Res<'_>| {
        let units = unit_blocks(res.stdout());
        let Some(unit) = units.first() else {
            return format!(
                "Done: {service} was {} on {}; its state could not be read back.",
                operation.past(),
                named(host)
            );
        };
        let get = |k: &str| unit.get(k).map(String::as_str).unwrap_or("?");
        let healthy = match operation {
            ControlOp::Stop => get("ActiveState") == "inactive",
            ControlOp::Start | ControlOp::Restart | ControlOp::Reload => {
                get("ActiveState") == "active"
            }
        };
        let mut text = if healthy {
            format!(
                "Done: {service} was {} on {}.",
                operation.past(),
                named(host)
            )
        } else {
            format!(
                "The {} of {service} on {} ran, but the unit is not in the expected state.",
                operation.as_str(),
                named(host)
            )
        };
        text.push_str(&format!(
            "\n  now: {} ({}), result {}",
            get("ActiveState"),
            get("SubState"),
            get("Result")
        ));
        if let Some(since) = unit.get("ActiveEnterTimestamp").filter(|s| !s.is_empty()) {
            text.push_str(&format!(", since {since}"));
        }
        text
    };
    WriteRoute {
        target: host,
        action: format!("{} {service} on {}", operation.as_str(), named(host)),
        write: Call::new(
            "control",
            args(
                "service",
                host,
                json!({"service": service, "operation": operation.as_str()}),
            ),
        ),
        verify: Call::new(
            "read",
            args(
                "exec",
                host,
                json!({"command": format!(
                    "systemctl show --no-pager --property=Id,ActiveState,SubState,Result,ActiveEnterTimestamp -- {}",
                    quote(&unit)
                )}),
            ),
        ),
        describe: &describe,
    }
    .step(step, last)
}

pub fn container_control(
    container: &Resource,
    operation: ControlOp,
    step: usize,
    last: &[Value],
) -> Step {
    let describe = |res: Res<'_>| {
        format!(
            "Done: {} was {}. Now: {}",
            named(container),
            operation.past(),
            container_state(container, res.stdout())
        )
    };
    WriteRoute {
        target: container,
        action: format!("{} {}", operation.as_str(), named(container)),
        write: Call::new(
            "docker",
            args(
                "control",
                container,
                json!({"operation": operation.as_str()}),
            ),
        ),
        verify: Call::new("docker", args("inspect", container, json!({}))),
        describe: &describe,
    }
    .step(step, last)
}

pub fn guest_control(guest: &Resource, operation: ControlOp, step: usize, last: &[Value]) -> Step {
    // A clean shutdown, not a power cut: the approval shows the command.
    let guest_operation = match operation {
        ControlOp::Start => "start",
        ControlOp::Stop => "shutdown",
        ControlOp::Restart => "reboot",
        ControlOp::Reload => "reboot",
    };
    let describe = |res: Res<'_>| {
        let status = res.data()["resource"]["status"]
            .as_str()
            .unwrap_or("unknown");
        format!(
            "Done: {} ({}) got `{guest_operation}`. Its inventory status is now: {status} (it may take a moment to change).",
            named(guest),
            guest.id.kind.label()
        )
    };
    WriteRoute {
        target: guest,
        action: format!("{guest_operation} {}", named(guest)),
        write: Call::new(
            "control",
            args("guest", guest, json!({"operation": guest_operation})),
        ),
        verify: Call::new("query", args("get", guest, json!({}))),
        describe: &describe,
    }
    .step(step, last)
}

pub fn remember(host: &Resource, note: &str, step: usize, last: &[Value]) -> Step {
    let describe = |res: Res<'_>| {
        let found = res.data()["notes"]
            .as_array()
            .is_some_and(|n| n.iter().any(|x| x.as_str() == Some(note)));
        if found {
            format!("Noted: \"{note}\".")
        } else {
            format!("I tried to note \"{note}\", but reading it back did not find it.")
        }
    };
    WriteRoute {
        target: host,
        action: format!("remember \"{note}\""),
        write: Call::new("knowledge", json!({"action": "remember", "note": note})),
        verify: Call::new("knowledge", json!({"action": "recall", "query": note})),
        describe: &describe,
    }
    .step(step, last)
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
