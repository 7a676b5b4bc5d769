//! The `metrics` tool: one bounded, read-only command per metric, run on the
//! target like any other read, and its output parsed into numbers the model
//! and the router can use without re-reading raw `/proc` text. The same
//! command works on any Linux host an agent reaches, so nothing here is
//! specific to this machine.
//!
//! A container's numbers come from the Docker engine on its host (`docker
//! stats`, `docker inspect`), never from `/proc` inside it: `/proc/meminfo`
//! there is the host's. Disk usage hides overlay and other per-container
//! mounts unless asked for all of them (`disk_all`).

use serde_json::{Map, Value, json};

mod container;
pub use container::container_command;

/// What the caller asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    All,
    Cpu,
    Memory,
    Disk,
    /// Disk usage including per-container (overlay) mounts.
    DiskAll,
    Load,
    Network,
}

impl Metric {
    /// `None` and unknown names mean everything (the reply says which were read).
    pub fn parse(name: Option<&str>) -> Metric {
        match name.map(|n| n.trim().to_ascii_lowercase()).as_deref() {
            Some("cpu" | "cpus" | "processor") => Metric::Cpu,
            Some("memory" | "mem" | "ram" | "swap") => Metric::Memory,
            Some("disk" | "disks" | "storage" | "filesystem" | "filesystems" | "df") => {
                Metric::Disk
            }
            Some("disk_all" | "all_disks" | "all_mounts" | "mounts") => Metric::DiskAll,
            Some("load" | "loadavg" | "load_average") => Metric::Load,
            Some("network" | "net" | "traffic" | "interfaces") => Metric::Network,
            _ => Metric::All,
        }
    }
}

/// Section separator in the command's output.
const SEP: &str = "@@warden:";

/// The command for `metric`. Each section starts with a marker line so the
/// parser never guesses which output is which.
pub fn command(metric: Metric) -> String {
    let load = format!("echo {SEP}load; cat /proc/loadavg; nproc");
    let memory = format!("echo {SEP}memory; cat /proc/meminfo");
    let df = "df -P -B1 -x tmpfs -x devtmpfs -x squashfs -x efivarfs 2>/dev/null";
    let disk = format!("echo {SEP}disk; {df}");
    // Two samples a quarter second apart: utilisation now, not since boot.
    let cpu =
        format!("echo {SEP}cpu; head -n 1 /proc/stat; sleep 0.25; head -n 1 /proc/stat; nproc");
    let network = format!("echo {SEP}network; cat /proc/net/dev");
    match metric {
        Metric::All => [load, memory, disk, cpu, network].join("; "),
        Metric::Cpu => [cpu, load].join("; "),
        Metric::Memory => memory,
        Metric::Disk => disk,
        Metric::DiskAll => format!("echo {SEP}disk-all; {df}"),
        Metric::Load => load,
        Metric::Network => network,
    }
}

/// Parse the command's output into `{load, memory, disks, cpu, network}`
/// (only the sections present).
pub fn parse(stdout: &str) -> Value {
    let mut out = Map::new();
    for (name, body) in sections(stdout) {
        let value = match name {
            "load" => load(&body),
            "memory" => memory(&body),
            "disk" => Some(disks(&body, Mounts::Host)),
            "disk-all" => Some(disks(&body, Mounts::All)),
            "cpu" => cpu(&body),
            "network" => Some(network(&body)),
            _ => None,
        };
        let Some(mut value) = value else {
            continue;
        };
        if name.starts_with("disk") {
            if let Some(hidden) = value.get_mut("hidden").map(Value::take) {
                out.insert("disks_hidden".to_string(), hidden);
            }
            out.insert("disks".to_string(), value["shown"].take());
        } else {
            out.insert(name.to_string(), value);
        }
    }
    container::parse(&sections(stdout), &mut out);
    Value::Object(out)
}

fn sections(stdout: &str) -> Vec<(&str, Vec<&str>)> {
    let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in stdout.lines() {
        match line.strip_prefix(SEP) {
            Some(name) => sections.push((name.trim(), Vec::new())),
            None => {
                if let Some((_, body)) = sections.last_mut() {
                    body.push(line);
                }
            }
        }
    }
    sections
}

fn load(lines: &[&str]) -> Option<Value> {
    let fields: Vec<f64> = lines
        .first()?
        .split_whitespace()
        .take(3)
        .filter_map(|f| f.parse().ok())
        .collect();
    let [one, five, fifteen] = fields.as_slice() else {
        return None;
    };
    let cores = lines.get(1).and_then(|l| l.trim().parse::<u64>().ok());
    let mut value = json!({"1m": one, "5m": five, "15m": fifteen});
    if let Some(cores) = cores {
        value["cores"] = json!(cores);
        value["per_core_1m"] = json!(round2(one / cores.max(1) as f64));
    }
    Some(value)
}

fn memory(lines: &[&str]) -> Option<Value> {
    let kib = |key: &str| -> Option<u64> {
        lines.iter().find_map(|l| {
            let rest = l.strip_prefix(key)?.strip_prefix(':')?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
    };
    let total = kib("MemTotal")? * 1024;
    // Kernels before 3.14 have no MemAvailable: free + buffers + cache.
    let available = kib("MemAvailable").map(|v| v * 1024).unwrap_or_else(|| {
        (kib("MemFree").unwrap_or(0) + kib("Buffers").unwrap_or(0) + kib("Cached").unwrap_or(0))
            * 1024
    });
    let used = total.saturating_sub(available);
    let swap_total = kib("SwapTotal").unwrap_or(0) * 1024;
    let swap_used = swap_total.saturating_sub(kib("SwapFree").unwrap_or(0) * 1024);
    Some(json!({
        "total_bytes": total,
        "available_bytes": available,
        "used_bytes": used,
        "used_percent": percent(used, total),
        "swap_total_bytes": swap_total,
        "swap_used_bytes": swap_used,
        "swap_used_percent": percent(swap_used, swap_total),
    }))
}

/// Which mounts a disk report shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mounts {
    /// The host's own filesystems: overlay and container-runtime mounts hidden.
    Host,
    All,
}

/// Mounts a container runtime made: one per container, not the host's disks.
fn per_container(filesystem: &str, mount: &str) -> bool {
    const RUNTIME_DIRS: [&str; 6] = [
        "/var/lib/docker/",
        "/var/lib/containers/",
        "/run/containerd/",
        "/run/docker/",
        "/var/lib/kubelet/pods/",
        "/run/k3s/containerd/",
    ];
    let overlay = matches!(filesystem, "overlay" | "fuse-overlayfs" | "shm");
    // A root on overlay is this system's own root (Warden in a container).
    overlay && mount != "/" || RUNTIME_DIRS.iter().any(|d| mount.starts_with(d))
}

/// `{shown: [...], hidden: N}`.
fn disks(lines: &[&str], mounts: Mounts) -> Value {
    let mut disks = Vec::new();
    let mut hidden = 0u64;
    for line in lines.iter().skip_while(|l| l.starts_with("Filesystem")) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // Filesystem 1-blocks Used Available Capacity Mounted-on (the mount
        // point may contain spaces: everything after the fifth field).
        if fields.len() < 6 {
            continue;
        }
        let (Ok(size), Ok(used), Ok(available)) = (
            fields[1].parse::<u64>(),
            fields[2].parse::<u64>(),
            fields[3].parse::<u64>(),
        ) else {
            continue;
        };
        if size == 0 {
            continue;
        }
        let mount = fields[5..].join(" ");
        if mounts == Mounts::Host && per_container(fields[0], &mount) {
            hidden += 1;
            continue;
        }
        disks.push(json!({
            "filesystem": fields[0],
            "mount": mount,
            "size_bytes": size,
            "used_bytes": used,
            "available_bytes": available,
            // What df shows: used of (used + available), root's reserve excluded.
            "used_percent": percent(used, used + available),
        }));
    }
    let mut value = json!({"shown": disks});
    if hidden > 0 {
        value["hidden"] = json!(hidden);
    }
    value
}

fn cpu(lines: &[&str]) -> Option<Value> {
    let samples: Vec<Vec<u64>> = lines
        .iter()
        .filter(|l| l.starts_with("cpu "))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .filter_map(|f| f.parse().ok())
                .collect()
        })
        .collect();
    let [first, second, ..] = samples.as_slice() else {
        return None;
    };
    // user nice system idle iowait irq softirq steal: idle = idle + iowait.
    let idle = |s: &[u64]| s.get(3).copied().unwrap_or(0) + s.get(4).copied().unwrap_or(0);
    let total = |s: &[u64]| s.iter().take(8).sum::<u64>();
    let busy_delta = (total(second) - idle(second)).saturating_sub(total(first) - idle(first));
    let total_delta = total(second).saturating_sub(total(first));
    let iowait_delta = second
        .get(4)
        .copied()
        .unwrap_or(0)
        .saturating_sub(first.get(4).copied().unwrap_or(0));
    let cores = lines
        .iter()
        .rev()
        .find_map(|l| l.trim().parse::<u64>().ok());
    let mut value = json!({
        "used_percent": percent(busy_delta, total_delta),
        "iowait_percent": percent(iowait_delta, total_delta),
        "sampled_ms": 250,
    });
    if let Some(cores) = cores {
        value["cores"] = json!(cores);
    }
    Some(value)
}

fn network(lines: &[&str]) -> Value {
    let mut interfaces = Vec::new();
    for line in lines {
        let Some((name, counters)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim();
        if name.is_empty() || name.contains('|') || name == "lo" {
            continue;
        }
        let counters: Vec<u64> = counters
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        if counters.len() < 16 {
            continue;
        }
        interfaces.push(json!({
            "interface": name,
            "rx_bytes": counters[0],
            "rx_errors": counters[2],
            "tx_bytes": counters[8],
            "tx_errors": counters[10],
        }));
    }
    Value::Array(interfaces)
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    round2(part as f64 * 100.0 / whole as f64)
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
@@warden:load
0.52 0.58 0.59 2/411 12345
4
@@warden:memory
MemTotal:        8000000 kB
MemFree:         1000000 kB
MemAvailable:    6000000 kB
Buffers:          100000 kB
Cached:          2000000 kB
SwapTotal:       1000000 kB
SwapFree:         750000 kB
@@warden:disk
Filesystem         1-blocks        Used   Available Capacity Mounted on
/dev/vda1      100000000000 60000000000 40000000000      60% /
/dev/vdb1       50000000000 49000000000  1000000000      98% /srv/media library
@@warden:cpu
cpu  100 0 100 700 100 0 0 0 0 0
cpu  160 0 140 750 150 0 0 0 0 0
4
@@warden:network
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
  eth0: 123456    100    1    0    0     0          0         0   654321     200    0    0    0     0       0          0
";

    #[test]
    fn every_section_is_parsed() {
        let v = parse(SAMPLE);
        assert_eq!(v["load"]["1m"], 0.52);
        assert_eq!(v["load"]["cores"], 4);
        assert_eq!(v["load"]["per_core_1m"], 0.13);
        assert_eq!(v["memory"]["total_bytes"], 8_192_000_000u64);
        assert_eq!(v["memory"]["used_percent"], 25.0);
        assert_eq!(v["memory"]["swap_used_percent"], 25.0);
        assert_eq!(v["disks"][0]["mount"], "/");
        assert_eq!(v["disks"][0]["used_percent"], 60.0);
        assert_eq!(v["disks"][1]["mount"], "/srv/media library");
        assert_eq!(v["disks"][1]["used_percent"], 98.0);
        // busy 60+40 of 60+40+50+50 jiffies; iowait 50 of 200.
        assert_eq!(v["cpu"]["used_percent"], 50.0);
        assert_eq!(v["cpu"]["iowait_percent"], 25.0);
        assert_eq!(v["network"][0]["interface"], "eth0");
        assert_eq!(v["network"][0]["tx_bytes"], 654321);
    }

    #[test]
    fn garbage_and_missing_sections_do_not_panic() {
        assert_eq!(parse(""), json!({}));
        let v = parse("@@warden:memory\nnothing here\n@@warden:cpu\ncpu x y\n@@warden:load\n\n");
        assert_eq!(v, json!({}));
        let v = parse("@@warden:disk\nFilesystem\n/dev/x 0 0 0 0% /\n");
        assert_eq!(v["disks"], json!([]));
    }

    #[test]
    fn every_metric_command_is_a_bounded_read() {
        for metric in [
            Metric::All,
            Metric::Cpu,
            Metric::Memory,
            Metric::Disk,
            Metric::DiskAll,
            Metric::Load,
            Metric::Network,
        ] {
            let c = warden_policy::classify(&command(metric));
            assert!(c.read_allowed(), "{metric:?}: {}", c.reason);
            let c = warden_policy::classify(&container_command("abc123", metric));
            assert!(c.read_allowed(), "container {metric:?}: {}", c.reason);
        }
        assert_eq!(Metric::parse(Some("RAM")), Metric::Memory);
        assert_eq!(Metric::parse(Some("whatever")), Metric::All);
        assert_eq!(Metric::parse(None), Metric::All);
    }

    #[test]
    fn container_mounts_are_hidden_unless_asked() {
        let df = "Filesystem 1-blocks Used Available Capacity Mounted on
/dev/vda1 100 50 50 50% /
overlay 100 50 50 50% /var/lib/docker/overlay2/abc/merged
/dev/vdb1 100 10 90 10% /var/lib/docker/volumes/x
/dev/vdc1 100 10 90 10% /srv
";
        let mounts = |v: &Value| -> Vec<String> {
            v["disks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["mount"].as_str().unwrap().to_string())
                .collect()
        };
        let v = parse(&format!("{SEP}disk\n{df}"));
        assert_eq!(mounts(&v), ["/", "/srv"]);
        assert_eq!(v["disks_hidden"], 2);
        let v = parse(&format!("{SEP}disk-all\n{df}"));
        assert_eq!(mounts(&v).len(), 4);
        assert!(v.get("disks_hidden").is_none());
        // A root on overlay is this system's own (Warden in a container).
        let v = parse(&format!("{SEP}disk\noverlay 100 50 50 50% /\n"));
        assert_eq!(mounts(&v), ["/"]);
        assert_eq!(Metric::parse(Some("disk_all")), Metric::DiskAll);
    }

    #[test]
    fn this_machine_parses() {
        // The real /proc of the test machine, read directly (no shell).
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        if meminfo.is_empty() {
            return;
        }
        let v = parse(&format!("{SEP}memory\n{meminfo}"));
        assert!(v["memory"]["total_bytes"].as_u64().unwrap() > 0);
    }
}
