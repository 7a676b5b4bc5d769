//! Steps of the read-only routes: metrics, status, lists (logs are in
//! `logs.rs`, Proxmox guests and nodes in `guests.rs`; the answers are
//! worded in `render/`). Every command here is read-only by Warden's own
//! policy (a test checks), so the read tool runs it at every control level.

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::systemd::{SYSTEMD_RUNS, unit_candidates};
use crate::executor::commands::quote;
use crate::executor::host_metrics::Metric;
use crate::router::markers::{NO_PGREP, NO_SYSTEMCTL, PROCESSES_MARKER};
use crate::router::plan::{Call, Step, args};
use crate::router::render::status::{
    container_state, containers_table, describe_service, services_table,
};
use crate::router::render::{Res, block, clip_lines, failure, named};
use crate::router::resolve::has_systemd;

pub fn metric(host: &Resource, metric: Metric, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => {
            let name = match metric {
                Metric::All => Value::Null,
                Metric::Cpu => json!("cpu"),
                Metric::Memory => json!("memory"),
                Metric::Disk => json!("disk"),
                Metric::DiskAll => json!("disk_all"),
                Metric::Load => json!("load"),
                Metric::Network => json!("network"),
            };
            let mut arguments = json!({"target": host.id.to_string()});
            if !name.is_null() {
                arguments["metric"] = name;
            }
            Step::Calls(vec![Call::new("metrics", arguments)])
        }
        (_, [result, ..]) if Res(result).ok() => {
            Step::Answer(crate::router::render::metrics::metrics(host, Res(result)))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("read the metrics of {}", named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("No metrics came back from {}.", named(host))),
    }
}

pub fn host_status(host: &Resource, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "metrics",
            json!({"target": host.id.to_string()}),
        )]),
        (_, [result, ..]) if Res(result).ok() => Step::Answer(format!(
            "{} is up and answering.\n{}",
            named(host),
            crate::router::render::metrics::metrics(host, Res(result))
        )),
        (_, [result, ..]) => Step::Answer(failure(&format!("reach {}", named(host)), Res(result))),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}

pub fn container_status(container: &Resource, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "docker",
            args("inspect", container, json!({})),
        )]),
        (_, [result, ..]) if Res(result).ok() => {
            Step::Answer(container_state(container, Res(result).stdout()))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("inspect {}", named(container)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back about {}.", named(container))),
    }
}

/// `systemctl show` of the unit (and `NAMEd` for `ssh`/`sshd`), then the
/// processes whose name matches, so hosts without systemd still answer.
pub fn service_status_command(host: &Resource, service: &str) -> String {
    let mut parts = Vec::new();
    if has_systemd(host) != Some(false) {
        let units = unit_candidates(service)
            .iter()
            .map(|u| quote(u))
            .collect::<Vec<_>>()
            .join(" ");
        parts.push(format!(
            "if {SYSTEMD_RUNS}; then systemctl show --no-pager --property=Id,LoadState,ActiveState,SubState,MainPID,ActiveEnterTimestamp,Description -- {units} 2>/dev/null; else echo {NO_SYSTEMCTL}; fi"
        ));
    }
    let process = service.trim_end_matches(".service");
    // Minimal images (containers) may have no pgrep: say so, don't guess.
    parts.push(format!(
        "echo {PROCESSES_MARKER}; if command -v pgrep >/dev/null; then pgrep -a -- {} || true; else echo {NO_PGREP}; fi",
        quote(process)
    ));
    parts.join("; ")
}

pub fn service_status(host: &Resource, service: &str, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "read",
            args(
                "exec",
                host,
                json!({"command": service_status_command(host, service)}),
            ),
        )]),
        (_, [result, ..]) if Res(result).ran() => {
            Step::Answer(describe_service(host, service, Res(result).stdout()))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("check {service} on {}", named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}

pub fn list_containers(host: &Resource, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new("docker", args("list", host, json!({})))]),
        (_, [result, ..]) if Res(result).ok() => {
            Step::Answer(containers_table(host, Res(result).stdout()))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!(
                "list the containers on {} (is Docker installed and running?)",
                named(host)
            ),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}

pub fn list_services(host: &Resource, step: usize, last: &[Value]) -> Step {
    let reported = !crate::router::resolve::known_services(host).is_empty();
    match (step, last) {
        (0, _) if reported => {
            Step::Calls(vec![Call::new("discovery", args("get", host, json!({})))])
        }
        (0, _) => {
            let command = if has_systemd(host) == Some(false) {
                "ps -eo comm= | sort | uniq -c | sort -rn | head -n 60".to_string()
            } else {
                "systemctl list-units --type=service --no-pager --plain --no-legend".to_string()
            };
            Step::Calls(vec![Call::new(
                "read",
                args("exec", host, json!({"command": command})),
            )])
        }
        (_, [result, ..]) if Res(result).ok() && reported => {
            let services = Res(result).data()["resource"]["attributes"]["services"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            Step::Answer(services_table(host, &services))
        }
        (_, [result, ..]) if Res(result).ok() => Step::Answer(format!(
            "Services on {}:\n{}",
            named(host),
            block(&clip_lines(Res(result).stdout(), 80))
        )),
        (_, [result, ..]) => Step::Answer(failure(
            &format!("list the services on {}", named(host)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(host))),
    }
}
