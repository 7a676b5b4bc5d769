//! A `metrics` result in words: the host's disks, memory, CPU, load and
//! network, or a container's own numbers from its engine (with its limits,
//! never the host's `/proc`).

use serde_json::Value;
use warden_protocol::Resource;

use super::format::{block, bytes, clip_lines, named};
use super::result::Res;

/// The metrics section of a `metrics` result.
pub fn metrics(host: &Resource, res: Res<'_>) -> String {
    let m = &res.data()["metrics"];
    let mut parts = Vec::new();
    if let Some(container) = m.get("container").filter(|v| v.is_object()) {
        parts.push(self::container(host, container));
    }
    if let Some(disks) = m["disks"].as_array() {
        let mut lines = vec![format!("Disk usage on {}:", named(host))];
        if disks.is_empty() {
            lines.push("  (no local filesystems reported)".into());
        }
        let width = disks
            .iter()
            .filter_map(|d| d["mount"].as_str())
            .map(str::len)
            .max()
            .unwrap_or(1);
        for d in disks {
            let used = d["used_percent"].as_f64().unwrap_or(0.0);
            let warn = if used >= 90.0 { "  <- nearly full" } else { "" };
            lines.push(format!(
                "  {:width$}  {:>5.1}% used  {} of {}, {} free  ({}){warn}",
                d["mount"].as_str().unwrap_or("?"),
                used,
                bytes(d["used_bytes"].as_u64().unwrap_or(0)),
                bytes(d["size_bytes"].as_u64().unwrap_or(0)),
                bytes(d["available_bytes"].as_u64().unwrap_or(0)),
                d["filesystem"].as_str().unwrap_or("?"),
            ));
        }
        if let Some(hidden) = m["disks_hidden"].as_u64() {
            lines.push(format!(
                "  ({hidden} overlay and other per-container mounts hidden; ask for \"disk usage including containers\" to see them)"
            ));
        }
        parts.push(lines.join("\n"));
    }
    if let Some(mem) = m.get("memory").filter(|v| v.is_object()) {
        let mut line = format!(
            "Memory on {}: {:.1}% used ({} of {}, {} available)",
            named(host),
            mem["used_percent"].as_f64().unwrap_or(0.0),
            bytes(mem["used_bytes"].as_u64().unwrap_or(0)),
            bytes(mem["total_bytes"].as_u64().unwrap_or(0)),
            bytes(mem["available_bytes"].as_u64().unwrap_or(0)),
        );
        match mem["swap_total_bytes"].as_u64() {
            Some(0) | None => line.push_str("; no swap."),
            Some(total) => line.push_str(&format!(
                "; swap {:.1}% used ({} of {}).",
                mem["swap_used_percent"].as_f64().unwrap_or(0.0),
                bytes(mem["swap_used_bytes"].as_u64().unwrap_or(0)),
                bytes(total)
            )),
        }
        parts.push(line);
    }
    if let Some(cpu) = m.get("cpu").filter(|v| v.is_object()) {
        parts.push(format!(
            "CPU on {}: {:.1}% busy ({:.1}% waiting on I/O), sampled over {} ms{}.",
            named(host),
            cpu["used_percent"].as_f64().unwrap_or(0.0),
            cpu["iowait_percent"].as_f64().unwrap_or(0.0),
            cpu["sampled_ms"].as_u64().unwrap_or(0),
            cpu["cores"]
                .as_u64()
                .map(|c| format!(" on {c} cores"))
                .unwrap_or_default()
        ));
    }
    if let Some(load) = m.get("load").filter(|v| v.is_object()) {
        parts.push(format!(
            "Load average on {}: {} (1 min), {} (5 min), {} (15 min){}.",
            named(host),
            load["1m"],
            load["5m"],
            load["15m"],
            match (load["cores"].as_u64(), load["per_core_1m"].as_f64()) {
                (Some(cores), Some(per)) => format!(" on {cores} cores ({per:.2} per core)"),
                _ => String::new(),
            }
        ));
    }
    if let Some(interfaces) = m["network"].as_array() {
        let mut lines = vec![format!("Network on {} (totals since boot):", named(host))];
        for i in interfaces {
            lines.push(format!(
                "  {}: received {}, sent {}, errors {} in / {} out",
                i["interface"].as_str().unwrap_or("?"),
                bytes(i["rx_bytes"].as_u64().unwrap_or(0)),
                bytes(i["tx_bytes"].as_u64().unwrap_or(0)),
                i["rx_errors"],
                i["tx_errors"],
            ));
        }
        if interfaces.is_empty() {
            lines.push("  (no interfaces besides loopback)".into());
        }
        parts.push(lines.join("\n"));
    }
    if parts.is_empty() {
        return format!(
            "The metrics command ran on {} but printed nothing I could read:\n{}",
            named(host),
            block(&clip_lines(res.stdout(), 10))
        );
    }
    let mut text = parts.join("\n");
    if res.cached() {
        text.push_str("\n(from this session's earlier reading; ask for \"now\" to read again)");
    }
    text
}

/// A container's CPU, memory (against its own limit), I/O and size.
fn container(target: &Resource, c: &Value) -> String {
    let name = named(target);
    let mut lines = Vec::new();
    let state = c["state"].as_str().unwrap_or("running");
    let memory_limit = match c["memory_limit_configured_bytes"].as_u64() {
        Some(limit) => format!("a {} memory limit", bytes(limit)),
        None => "no memory limit".to_string(),
    };
    let cpu_limit = match c["cpu_limit_cores"].as_f64() {
        Some(cores) => format!("a limit of {cores} cores"),
        None => "no CPU limit".to_string(),
    };
    if state != "running" {
        // A stopped container uses nothing; its limits are still configured.
        return format!(
            "{name} is {state}, so it uses no CPU or memory now; it has {memory_limit} and {cpu_limit} (the Docker engine's numbers)."
        );
    }
    lines.push(format!(
        "{name}, from the Docker engine (the container's own numbers, not the host's):"
    ));
    match (
        c["memory_used_bytes"].as_u64(),
        c["memory_limit_bytes"].as_u64(),
    ) {
        (Some(used), Some(limit)) if c["memory_limit_set"].as_bool() == Some(true) => {
            lines.push(format!(
                "  memory: {} of its {} limit ({:.1}%)",
                bytes(used),
                bytes(limit),
                c["memory_percent"].as_f64().unwrap_or(0.0)
            ));
        }
        (Some(used), Some(limit)) => lines.push(format!(
            "  memory: {} used; no memory limit is set (it may use all of the host's {})",
            bytes(used),
            bytes(limit)
        )),
        _ => lines.push("  memory: the engine reported no memory figures".to_string()),
    }
    let cpu = c["cpu_percent"]
        .as_f64()
        .map(|p| format!("{p:.1}% (100% = one core)"))
        .unwrap_or_else(|| "not reported".to_string());
    let limit = match c["cpu_limit_cores"].as_f64() {
        Some(cores) => format!(", limited to {cores} cores"),
        None => ", no CPU limit".to_string(),
    };
    lines.push(format!("  cpu: {cpu}{limit}"));
    if let Some(pids) = c["pids"].as_u64() {
        lines.push(format!("  processes: {pids}"));
    }
    if let (Some(rx), Some(tx)) = (c["net_rx_bytes"].as_u64(), c["net_tx_bytes"].as_u64()) {
        lines.push(format!(
            "  network: received {}, sent {}",
            bytes(rx),
            bytes(tx)
        ));
    }
    if let (Some(read), Some(write)) = (
        c["block_read_bytes"].as_u64(),
        c["block_write_bytes"].as_u64(),
    ) {
        lines.push(format!(
            "  disk I/O: read {}, written {}",
            bytes(read),
            bytes(write)
        ));
    }
    if let Some(rw) = c["size_rw_bytes"].as_u64() {
        lines.push(format!(
            "  writable layer: {} (image and layer together: {})",
            bytes(rw),
            bytes(c["size_root_fs_bytes"].as_u64().unwrap_or(0))
        ));
    }
    lines.join("\n")
}
