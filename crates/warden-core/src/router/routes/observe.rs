//! Steps of the read-only routes: metrics, status, lists (logs are in
//! `logs.rs`, Proxmox guests and nodes in `guests.rs`). Every
//! command here is read-only by Warden's own policy (a test checks), so the
//! read tool runs it at every control level.

use serde_json::{Value, json};
use warden_protocol::Resource;

use crate::executor::commands::quote;
use crate::executor::host_metrics::Metric;
use crate::router::plan::{Call, Step, args};
use crate::router::render::{Res, block, clip_lines, failure, named};
use crate::router::resolve::has_systemd;

/// Whether systemd is the running init (what `sd_booted()` checks):
/// `systemctl` may be installed where systemd does not run (containers).
pub const SYSTEMD_RUNS: &str = "[ -d /run/systemd/system ]";
const PROCESSES_MARKER: &str = "@@warden:processes";
const NO_SYSTEMCTL: &str = "@@warden:no-systemctl";
const NO_PGREP: &str = "@@warden:no-pgrep";

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

/// A sentence about a container from `docker inspect` JSON.
pub fn container_state(container: &Resource, inspect: &str) -> String {
    let parsed: Value = serde_json::from_str(inspect).unwrap_or(Value::Null);
    let first = parsed.get(0).unwrap_or(&parsed);
    let state = &first["State"];
    let Some(status) = state["Status"].as_str() else {
        return format!(
            "docker inspect for {} returned nothing I could read:\n{}",
            named(container),
            block(&clip_lines(inspect, 10))
        );
    };
    let mut text = format!("{} is {status}", named(container));
    match status {
        "running" => {
            if let Some(started) = state["StartedAt"].as_str() {
                text.push_str(&format!(" since {started}"));
            }
        }
        _ => {
            if let Some(code) = state["ExitCode"].as_i64() {
                text.push_str(&format!(" (exit code {code}"));
                if let Some(finished) = state["FinishedAt"].as_str() {
                    text.push_str(&format!(", at {finished}"));
                }
                text.push(')');
            }
        }
    }
    if let Some(health) = state["Health"]["Status"].as_str() {
        text.push_str(&format!("; health check: {health}"));
    }
    if let Some(restarts) = first["RestartCount"].as_u64().filter(|n| *n > 0) {
        text.push_str(&format!("; restarted {restarts} times"));
    }
    if let Some(image) = first["Config"]["Image"].as_str() {
        text.push_str(&format!("; image {image}"));
    }
    text.push('.');
    text
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

pub fn unit_candidates(service: &str) -> Vec<String> {
    if service.ends_with(".service") {
        return vec![service.to_string()];
    }
    let mut units = vec![format!("{service}.service")];
    if !service.ends_with('d') {
        units.push(format!("{service}d.service"));
    }
    units
}

/// `systemctl show` output: one map per unit (blocks separated by blank lines).
pub fn unit_blocks(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    text.split("\n\n")
        .map(|block| {
            block
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect::<std::collections::BTreeMap<_, _>>()
        })
        .filter(|m| !m.is_empty())
        .collect()
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

fn describe_service(host: &Resource, service: &str, stdout: &str) -> String {
    let (units_text, processes) = stdout.split_once(PROCESSES_MARKER).unwrap_or((stdout, ""));
    let can_list_processes = !processes.contains(NO_PGREP);
    let processes: Vec<&str> = processes
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("@@warden:"))
        .collect();
    let loaded: Vec<_> = unit_blocks(units_text)
        .into_iter()
        .filter(|u| u.get("LoadState").is_some_and(|s| s == "loaded"))
        .collect();
    let systemd = has_systemd(host) != Some(false) && !units_text.contains(NO_SYSTEMCTL);
    let mut lines = Vec::new();
    let active = loaded
        .iter()
        .any(|u| u.get("ActiveState").is_some_and(|s| s == "active"));
    if !loaded.is_empty() {
        let verdict = if active { "Yes" } else { "No" };
        lines.push(format!(
            "{verdict}: {service} is {} on {}.",
            if active { "running" } else { "not running" },
            named(host)
        ));
        for unit in &loaded {
            let get = |k: &str| unit.get(k).map(String::as_str).unwrap_or("?");
            let mut line = format!(
                "  {}: {} ({})",
                get("Id"),
                get("ActiveState"),
                get("SubState")
            );
            if get("ActiveState") == "active" {
                if let Some(since) = unit.get("ActiveEnterTimestamp").filter(|s| !s.is_empty()) {
                    line.push_str(&format!(" since {since}"));
                }
                if let Some(pid) = unit.get("MainPID").filter(|p| p.as_str() != "0") {
                    line.push_str(&format!(", main PID {pid}"));
                }
            }
            if let Some(description) = unit.get("Description").filter(|d| !d.is_empty()) {
                line.push_str(&format!(" — {description}"));
            }
            lines.push(line);
        }
    } else {
        let running = !processes.is_empty();
        let why = if systemd {
            format!("there is no systemd unit called {service}")
        } else {
            format!(
                "{} does not run systemd, so there is no service manager to ask",
                named(host)
            )
        };
        let verdict = match (running, can_list_processes) {
            (true, _) => "Probably",
            (false, true) => "No",
            (false, false) => "Unknown",
        };
        let processes_said = match (running, can_list_processes) {
            (true, _) => format!(
                "but processes matching `{service}` are running on {}:",
                named(host)
            ),
            (false, true) => format!(
                "and no process matching `{service}` is running on {}.",
                named(host)
            ),
            (false, false) => format!(
                "and {} has no `pgrep`, so I could not list its processes.",
                named(host)
            ),
        };
        lines.push(format!("{verdict}: {why}; {processes_said}"));
    }
    if !processes.is_empty() {
        if !loaded.is_empty() {
            lines.push(format!("  processes matching `{service}`:"));
        }
        lines.extend(processes.iter().take(10).map(|p| format!("    {p}")));
        if processes.len() > 10 {
            lines.push(format!("    … and {} more", processes.len() - 10));
        }
    }
    lines.join("\n")
}

pub fn list_containers(host: &Resource, step: usize, last: &[Value]) -> Step {
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new("docker", args("list", host, json!({})))]),
        (_, [result, ..]) if Res(result).ok() => {
            let rows: Vec<Value> = Res(result)
                .stdout()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            if rows.is_empty() {
                return Step::Answer(format!("There are no containers on {}.", named(host)));
            }
            let mut lines = vec![format!("{} containers on {}:", rows.len(), named(host))];
            for c in &rows {
                lines.push(format!(
                    "  {}  {}  {}  ({})",
                    c["Names"].as_str().unwrap_or("?"),
                    c["State"].as_str().unwrap_or("?"),
                    c["Status"].as_str().unwrap_or(""),
                    c["Image"].as_str().unwrap_or("?"),
                ));
            }
            Step::Answer(lines.join("\n"))
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

fn services_table(host: &Resource, services: &[Value]) -> String {
    if services.is_empty() {
        return format!("{} reported no services.", named(host));
    }
    let source = host.attributes["services_source"].as_str().unwrap_or("");
    let header = if source == "processes" {
        format!(
            "{} does not run systemd; these daemons are running (from the process list):",
            named(host)
        )
    } else {
        format!("{} services on {}:", services.len(), named(host))
    };
    let mut lines = vec![header];
    for s in services.iter().take(100) {
        let name = s["name"].as_str().or_else(|| s.as_str()).unwrap_or("?");
        let state = match (s["active"].as_str(), s["sub"].as_str()) {
            (Some(active), Some(sub)) => format!("{active} ({sub})"),
            (Some(active), None) => active.to_string(),
            _ => String::new(),
        };
        let description = s["description"].as_str().unwrap_or("");
        lines.push(
            format!("  {name:<28} {state:<20} {description}")
                .trim_end()
                .to_string(),
        );
    }
    if services.len() > 100 {
        lines.push(format!("  … and {} more", services.len() - 100));
    }
    lines.join("\n")
}
