//! Steps of the read-only Proxmox routes: a guest's status from the live
//! inventory copy, lists of guests and nodes, a node's or guest's history
//! (sparklines with min/avg/max/latest), and a guest's snapshots; the
//! answers are worded in `render/guests.rs`.

use serde_json::{Value, json};
use warden_protocol::{Resource, ResourceKind};

use crate::router::intent::Window;
use crate::router::plan::{Call, Step, args};
use crate::router::render::guests::{
    describe_guest, history_answer, resources_answer, snapshots_text,
};
use crate::router::render::{Res, failure, named};

pub fn guest_status(guest: &Resource, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new("query", args("get", guest, json!({})))]),
        (_, [result, ..]) if Res(result).ok() => {
            Step::Answer(describe_guest(guest, &Res(result).data()["resource"]))
        }
        (_, [result, ..]) => {
            Step::Answer(failure(&format!("look up {}", named(guest)), Res(result)))
        }
        (_, []) => Step::Answer(format!("Nothing came back about {}.", named(guest))),
    }
}

pub fn list_resources(kinds: &[ResourceKind], step: usize, last: &[Value]) -> Step {
    if step == 0 {
        let calls = match kinds {
            [] => vec![Call::new("query", json!({"action": "list"}))],
            kinds => kinds
                .iter()
                .map(|k| Call::new("query", json!({"action": "list", "kind": k.as_str()})))
                .collect(),
        };
        return Step::Calls(calls);
    }
    Step::Answer(resources_answer(kinds, last))
}

pub fn history(
    target: &Resource,
    metrics: &[&'static str],
    window: &Window,
    step: usize,
    last: &[Value],
) -> Step {
    if step == 0 {
        let call = |metric: Option<&str>| {
            let mut arguments =
                json!({"target": target.id.to_string(), "range": window.range.as_str()});
            if let Some(metric) = metric {
                arguments["metric"] = json!(metric);
            }
            Call::new("metrics", arguments)
        };
        let calls = match metrics {
            [] => vec![call(None)],
            names => names.iter().map(|m| call(Some(m))).collect(),
        };
        return Step::Calls(calls);
    }
    Step::Answer(history_answer(target, window, last))
}

pub fn list_snapshots(guest: &Resource, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new("snapshot", args("list", guest, json!({})))]),
        (_, [result, ..]) if Res(result).ok() => {
            Step::Answer(snapshots_text(guest, Res(result).data()))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("list the snapshots of {}", named(guest)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back about {}.", named(guest))),
    }
}
