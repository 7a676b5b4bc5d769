//! Steps of the routes that change a Proxmox guest, through `WriteRoute`
//! (discover, check, write with approval, verify, answer from the
//! verification): power ("stop web" is a clean shutdown that stops it hard
//! after the timeout; "kill web" stops it at once), taking a snapshot, and
//! rolling back to one (refused when the guest has no such snapshot).

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::write_route::{Precheck, Verified, WriteRoute};
use crate::router::intent::ControlOp;
use crate::router::plan::{Call, Step, args};
use crate::router::recognise::suggest::distance;
use crate::router::render::snapshot_list::{current_parent, snapshot_names};
use crate::router::render::{Res, named};
use crate::tools::args::DEFAULT_SHUTDOWN_TIMEOUT_SECS;

/// How a request's operation is carried out on a guest, and what it should
/// leave behind.
struct Power {
    /// `control guest`'s operation.
    operation: &'static str,
    /// Extra arguments (a shutdown's patience).
    more: Value,
    /// The status the verification must show.
    expected: &'static str,
    /// What was done, for the answer.
    how: String,
}

impl Power {
    fn of(operation: ControlOp) -> Power {
        let timeout = DEFAULT_SHUTDOWN_TIMEOUT_SECS;
        let (name, more, expected, how) = match operation {
            ControlOp::Start => ("start", json!({}), "running", "started".to_string()),
            ControlOp::Stop => (
                "shutdown",
                json!({"timeout_secs": timeout, "on_timeout": "stop"}),
                "stopped",
                format!(
                    "shut down cleanly (a shutdown that stops it hard if it has not finished after {timeout} s)"
                ),
            ),
            ControlOp::Shutdown => (
                "shutdown",
                json!({"timeout_secs": timeout, "on_timeout": "leave_running"}),
                "stopped",
                format!(
                    "shut down cleanly (it would have been left running had it not finished within {timeout} s)"
                ),
            ),
            ControlOp::ForceStop => (
                "stop",
                json!({}),
                "stopped",
                "stopped at once, without a clean shutdown (like pulling the plug)".to_string(),
            ),
            ControlOp::Restart | ControlOp::Reboot | ControlOp::Reload => {
                ("reboot", json!({}), "running", "rebooted".to_string())
            }
        };
        Power {
            operation: name,
            more,
            expected,
            how,
        }
    }
}

/// The status a `query health` (or `query get`) result reports.
fn status_of(res: Res<'_>) -> &str {
    let data = res.data();
    data["status"]
        .as_str()
        .or_else(|| data["resource"]["status"].as_str())
        .unwrap_or("unknown")
}

/// What the write's result says beyond success: nothing sent, HA, the
/// task's exit status when it was not a plain OK.
fn task_notes(write: Res<'_>) -> Vec<String> {
    let data = write.data();
    let mut notes = Vec::new();
    match data["plan"]["route"].as_str() {
        Some("nothing_to_do") => notes.push(format!(
            "  nothing was sent: {}",
            data["plan"]["reason"]
                .as_str()
                .unwrap_or("it was already so")
        )),
        Some("through_ha") => notes.push("  carried out by the HA manager".to_string()),
        _ => {}
    }
    let task = &data["task"];
    let status = task["exit_status"].as_str().unwrap_or("OK");
    if !task.is_null() && status != "OK" {
        notes.push(format!("  task exit status: {status}"));
    }
    notes.extend(undo_note(write));
    notes
}

/// A shutdown the guest outlasted, which Proxmox ended by force (its task
/// still "succeeded"): never called clean.
fn forced_how(write: Res<'_>) -> Option<String> {
    let data = write.data();
    if data["forced"] != json!(true) {
        return None;
    }
    let timeout = data["operation"]["timeout"]["secs"]
        .as_u64()
        .unwrap_or(u64::from(DEFAULT_SHUTDOWN_TIMEOUT_SECS));
    let evidence = data["forced_evidence"]
        .as_str()
        .map(|e| format!(" ({e})"))
        .unwrap_or_default();
    Some(format!(
        "forced off, not shut down cleanly: it had not shut down after {timeout} s, so Proxmox stopped it hard{evidence}"
    ))
}

/// The snapshot "snapshot first" took before the change, and how to undo.
fn undo_note(write: Res<'_>) -> Option<String> {
    let taken = &write.data()["snapshot_before_change"];
    let name = taken["name"].as_str().filter(|n| !n.is_empty())?;
    Some(format!(
        "  snapshot `{name}` of {} was taken first: roll back to it to undo this",
        taken["guest"].as_str().unwrap_or("the guest")
    ))
}

pub fn guest_power(
    guest: &Resource,
    operation: ControlOp,
    step: usize,
    last: &[Value],
    all: &[Value],
) -> Step {
    let power = Power::of(operation);
    let describe = |verified: Verified<'_>| {
        let status = status_of(verified.first());
        let how = forced_how(verified.write).unwrap_or_else(|| power.how.clone());
        let mut lines = if status == power.expected {
            vec![format!(
                "Done: {} was {how}; Proxmox reports it {status}.",
                named(guest),
            )]
        } else {
            vec![format!(
                "{} was {how}, but Proxmox still reports it {status}, not {}. Ask for its status again in a moment.",
                named(guest),
                power.expected
            )]
        };
        lines.extend(task_notes(verified.write));
        lines.join("\n")
    };
    let state = |verified: Verified<'_>| {
        format!(
            "Proxmox reports {} {}.",
            guest.name,
            status_of(verified.first())
        )
    };
    let mut arguments = json!({"operation": power.operation});
    if let (Some(object), Some(more)) = (arguments.as_object_mut(), power.more.as_object()) {
        object.extend(more.clone());
    }
    WriteRoute {
        target: guest,
        action: format!("{} {}", operation.as_str(), named(guest)),
        precheck: None,
        write: Call::new("control", args("guest", guest, arguments)),
        verify: vec![Call::new("query", args("health", guest, json!({})))],
        describe: &describe,
        state: &state,
    }
    .step(step, last, all)
}

pub fn take_snapshot(
    guest: &Resource,
    name: &str,
    step: usize,
    last: &[Value],
    all: &[Value],
) -> Step {
    let describe = |verified: Verified<'_>| {
        let names = snapshot_names(verified.first().data());
        if names.iter().any(|n| n == name) {
            format!(
                "Done: snapshot `{name}` of {} was taken (disk and configuration, not memory); it has {} snapshot{} now. To undo later changes: \"roll back {} to {name}\".",
                named(guest),
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                guest.name
            )
        } else {
            format!(
                "The snapshot task for `{name}` of {} ended, but `{name}` is not in its snapshot list, so I cannot say it was taken.",
                named(guest)
            )
        }
    };
    let state = |verified: Verified<'_>| snapshots_line(guest, verified.first());
    WriteRoute {
        target: guest,
        action: format!("take snapshot `{name}` of {}", named(guest)),
        precheck: None,
        write: Call::new("snapshot", args("create", guest, json!({"name": name}))),
        verify: vec![Call::new("snapshot", args("list", guest, json!({})))],
        describe: &describe,
        state: &state,
    }
    .step(step, last, all)
}

/// "web has 2 snapshots: a, b."
fn snapshots_line(guest: &Resource, list: Res<'_>) -> String {
    let names = snapshot_names(list.data());
    match names.as_slice() {
        [] => format!("{} has no snapshots.", guest.name),
        names => format!(
            "{} has {} snapshot{}: {}.",
            guest.name,
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        ),
    }
}

/// Refuse a rollback to a snapshot the guest does not have, with the
/// nearest names it does have.
fn check_snapshot_exists(guest: &Resource, snapshot: &str, list: Res<'_>) -> Result<(), String> {
    let names = snapshot_names(list.data());
    if names.iter().any(|n| n == snapshot) {
        return Ok(());
    }
    if names.is_empty() {
        return Err(format!(
            "{} has no snapshots, so there is nothing to roll back to. Nothing was done.",
            named(guest)
        ));
    }
    let mut near: Vec<(usize, &str)> = names
        .iter()
        .map(|n| {
            (
                distance(&n.to_lowercase(), &snapshot.to_lowercase()),
                n.as_str(),
            )
        })
        .filter(|(d, n)| {
            *d <= 3
                || n.to_lowercase().contains(&snapshot.to_lowercase())
                || snapshot.to_lowercase().contains(&n.to_lowercase())
        })
        .collect();
    near.sort();
    let hint = match near.as_slice() {
        [] => String::new(),
        near => format!(
            " Did you mean {}?",
            near.iter()
                .take(3)
                .map(|(_, n)| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    };
    let shown: Vec<String> = names.iter().take(10).map(|n| format!("`{n}`")).collect();
    Err(format!(
        "{} has no snapshot called `{snapshot}`, so nothing was rolled back.{hint}\n  its snapshots, newest first: {}{}",
        named(guest),
        shown.join(", "),
        if names.len() > 10 { ", …" } else { "" }
    ))
}

pub fn rollback(
    guest: &Resource,
    snapshot: &str,
    step: usize,
    last: &[Value],
    all: &[Value],
) -> Step {
    let decide = |list: Res<'_>| check_snapshot_exists(guest, snapshot, list);
    let describe = |verified: Verified<'_>| {
        let status = status_of(verified.read(1));
        let current = current_parent(verified.first().data());
        let start = if status == "stopped" {
            format!(" Say \"start {}\" to start it.", guest.name)
        } else {
            String::new()
        };
        let undo = undo_note(verified.write)
            .map(|note| format!("\n{note}"))
            .unwrap_or_default();
        match current.as_deref() {
            Some(current) if current == snapshot => format!(
                "Done: {} was rolled back to `{snapshot}`: it now runs from that snapshot, and every change since it is gone. Proxmox reports it {status}.{start}{undo}",
                named(guest)
            ),
            Some(other) => format!(
                "The rollback of {} to `{snapshot}` ended, but it now runs from `{other}`, not `{snapshot}`. Proxmox reports it {status}.",
                named(guest)
            ),
            None => format!(
                "The rollback of {} to `{snapshot}` ended, but its snapshot list does not say which snapshot it runs from, so I cannot confirm it. Proxmox reports it {status}.",
                named(guest)
            ),
        }
    };
    let state = |verified: Verified<'_>| {
        format!(
            "{} Proxmox reports it {}.",
            snapshots_line(guest, verified.first()),
            status_of(verified.read(1))
        )
    };
    WriteRoute {
        target: guest,
        action: format!("roll {} back to `{snapshot}`", named(guest)),
        precheck: Some(Precheck {
            call: Call::new("snapshot", args("list", guest, json!({}))),
            decide: &decide,
        }),
        write: Call::new(
            "snapshot",
            args("rollback", guest, json!({"name": snapshot})),
        ),
        verify: vec![
            Call::new("snapshot", args("list", guest, json!({}))),
            Call::new("query", args("health", guest, json!({}))),
        ],
        describe: &describe,
        state: &state,
    }
    .step(step, last, all)
}
