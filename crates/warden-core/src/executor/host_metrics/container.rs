//! A container's own numbers, from the engine on its host: `docker stats
//! --no-stream` (CPU, memory against the container's limit, I/O, pids) and
//! `docker inspect` (state, configured limits, and on request the size of
//! its writable layer).

use serde_json::{Map, Value, json};

use super::{Metric, SEP, percent, round2};
use crate::executor::commands::quote;

/// The command for a container's metrics, run on its host.
pub fn container_command(container: &str, metric: Metric) -> String {
    let name = quote(container);
    let mut parts = vec![
        format!("echo {SEP}container-stats"),
        format!("docker stats --no-stream --format '{{{{json .}}}}' {name}"),
        format!("echo {SEP}container-limits"),
        format!(
            "docker inspect --format '{{{{.State.Status}}}} {{{{.HostConfig.Memory}}}} {{{{.HostConfig.NanoCpus}}}} {{{{.HostConfig.CpuQuota}}}} {{{{.HostConfig.CpuPeriod}}}}' {name}"
        ),
    ];
    if matches!(metric, Metric::Disk | Metric::DiskAll | Metric::All) {
        parts.push(format!("echo {SEP}container-size"));
        parts.push(format!(
            "docker inspect --size --format '{{{{.SizeRw}}}} {{{{.SizeRootFs}}}}' {name}"
        ));
    }
    parts.join("; ")
}

/// "1.5MiB", "7.63GiB", "1.2kB", "0B" → bytes.
fn size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let number: f64 = text[..split].parse().ok()?;
    let factor: f64 = match &text[split..] {
        "B" | "" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some((number * factor).round() as u64)
}

/// "1.2kB / 3.4MB" → (1200, 3400000).
fn pair(text: Option<&str>) -> Option<(u64, u64)> {
    let (a, b) = text?.split_once('/')?;
    Some((size(a)?, size(b)?))
}

fn percent_field(text: Option<&str>) -> Option<f64> {
    text?.trim().trim_end_matches('%').parse().ok()
}

/// Adds `container` to the parsed metrics when the output has its sections.
pub(super) fn parse(sections: &[(&str, Vec<&str>)], out: &mut Map<String, Value>) {
    let body = |name: &str| {
        sections
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, lines)| lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()))
    };
    let Some(mut stats_lines) = body("container-stats") else {
        return;
    };
    let mut container = Map::new();
    let stats: Value = stats_lines
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null);
    let field = |k: &str| stats[k].as_str();
    if let Some(name) = field("Name") {
        container.insert("name".into(), json!(name));
    }
    if let Some(cpu) = percent_field(field("CPUPerc")) {
        container.insert("cpu_percent".into(), json!(round2(cpu)));
    }
    if let Some((used, limit)) = pair(field("MemUsage")) {
        container.insert("memory_used_bytes".into(), json!(used));
        container.insert("memory_limit_bytes".into(), json!(limit));
        container.insert("memory_percent".into(), json!(percent(used, limit)));
    }
    if let Some((rx, tx)) = pair(field("NetIO")) {
        container.insert("net_rx_bytes".into(), json!(rx));
        container.insert("net_tx_bytes".into(), json!(tx));
    }
    if let Some((read, write)) = pair(field("BlockIO")) {
        container.insert("block_read_bytes".into(), json!(read));
        container.insert("block_write_bytes".into(), json!(write));
    }
    if let Some(pids) = field("PIDs").and_then(|p| p.parse::<u64>().ok()) {
        container.insert("pids".into(), json!(pids));
    }
    let limits: Vec<String> = body("container-limits")
        .and_then(|mut l| l.next())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    if let [state, memory, nano_cpus, quota, period, ..] = limits.as_slice() {
        container.insert("state".into(), json!(state));
        let memory: u64 = memory.parse().unwrap_or(0);
        // 0 means no limit: docker stats then shows the host's memory.
        container.insert("memory_limit_set".into(), json!(memory > 0));
        if memory > 0 {
            container.insert("memory_limit_configured_bytes".into(), json!(memory));
        }
        let nano: f64 = nano_cpus.parse().unwrap_or(0.0);
        let quota: f64 = quota.parse().unwrap_or(0.0);
        let period: f64 = period.parse().unwrap_or(0.0);
        let cores = if nano > 0.0 {
            Some(nano / 1e9)
        } else if quota > 0.0 && period > 0.0 {
            Some(quota / period)
        } else {
            None
        };
        container.insert("cpu_limit_cores".into(), json!(cores.map(round2)));
    }
    let size: Vec<u64> = body("container-size")
        .and_then(|mut l| l.next())
        .map(|l| {
            l.split_whitespace()
                .filter_map(|f| f.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    if let [rw, root, ..] = size.as_slice() {
        container.insert("size_rw_bytes".into(), json!(rw));
        container.insert("size_root_fs_bytes".into(), json!(root));
    }
    out.insert("container".into(), Value::Object(container));
}

#[cfg(test)]
mod tests {
    use super::super::parse as parse_all;
    use super::*;

    #[test]
    fn stats_and_limits() {
        let out = "\
@@warden:container-stats
{\"BlockIO\":\"4.1MB / 0B\",\"CPUPerc\":\"12.50%\",\"Container\":\"abc\",\"ID\":\"abc\",\"MemPerc\":\"50.00%\",\"MemUsage\":\"512MiB / 1GiB\",\"Name\":\"jellyfin\",\"NetIO\":\"1.2kB / 648B\",\"PIDs\":\"7\"}
@@warden:container-limits
running 1073741824 1500000000 0 0
@@warden:container-size
4096 123456789
";
        let v = parse_all(out);
        let c = &v["container"];
        assert_eq!(c["name"], "jellyfin");
        assert_eq!(c["state"], "running");
        assert_eq!(c["cpu_percent"], 12.5);
        assert_eq!(c["memory_used_bytes"], 512 * 1024 * 1024u64);
        assert_eq!(c["memory_limit_bytes"], 1024 * 1024 * 1024u64);
        assert_eq!(c["memory_percent"], 50.0);
        assert_eq!(c["memory_limit_set"], true);
        assert_eq!(c["memory_limit_configured_bytes"], 1073741824u64);
        assert_eq!(c["cpu_limit_cores"], 1.5);
        assert_eq!(c["net_rx_bytes"], 1200);
        assert_eq!(c["block_read_bytes"], 4_100_000);
        assert_eq!(c["pids"], 7);
        assert_eq!(c["size_rw_bytes"], 4096);
        // Nothing of the host: no /proc sections were read.
        assert!(v.get("memory").is_none(), "{v}");
    }

    #[test]
    fn no_limit_and_garbage() {
        let out = "@@warden:container-stats\n{\"MemUsage\":\"10MiB / 7.63GiB\",\"CPUPerc\":\"--\"}\n@@warden:container-limits\nexited 0 0 0 0\n";
        let c = &parse_all(out)["container"];
        assert_eq!(c["memory_limit_set"], false);
        assert_eq!(c["cpu_limit_cores"], Value::Null);
        assert_eq!(c["state"], "exited");
        assert!(c.get("cpu_percent").is_none());
        let c = &parse_all("@@warden:container-stats\nnot json\n")["container"];
        assert_eq!(c, &json!({}));
        assert_eq!(size("1.5MiB"), Some(1_572_864));
        assert_eq!(size("0B"), Some(0));
        assert_eq!(size("--"), None);
    }
}
