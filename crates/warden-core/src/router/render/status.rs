//! Status answers: a service from its units and processes, a container
//! from `docker inspect`, the services a host reported.

use serde_json::Value;
use warden_protocol::Resource;

use super::format::{block, clip_lines, named};
use super::units::unit_blocks;
use crate::router::markers::{NO_PGREP, NO_SYSTEMCTL, PROCESSES_MARKER};
use crate::router::resolve::has_systemd;

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

/// "Yes: ssh is running on web1." with each loaded unit and the matching
/// processes; without a unit, what the processes say.
pub fn describe_service(host: &Resource, service: &str, stdout: &str) -> String {
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

/// The services `discovery` reported for a host, one line each.
pub fn services_table(host: &Resource, services: &[Value]) -> String {
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

/// The containers `docker list` returned (a JSON object a line), a line each.
pub fn containers_table(host: &Resource, stdout: &str) -> String {
    let rows: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if rows.is_empty() {
        return format!("There are no containers on {}.", named(host));
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
    lines.join("\n")
}
