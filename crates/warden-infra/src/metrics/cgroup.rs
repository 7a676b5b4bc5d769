//! A container's counters read straight from the kernel, as the engine
//! itself reads them, without asking the engine: its control group (v2,
//! or v1's `cpuacct` and `memory` controllers) for CPU and memory, and the
//! network namespace of its main process (`/proc/<pid>/net/dev`) for
//! traffic. The parsers are pure; [`read_counters`] does the reading and
//! answers `None` whenever anything is missing or belongs to another
//! container, so the caller asks the engine instead.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::containers::ContainerCounters;
use super::procfs::parse_net_dev;

/// Where a process's control groups are, from `/proc/<pid>/cgroup`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessCgroups {
    /// The v2 (unified) group: the `0::/…` line.
    pub unified: Option<String>,
    /// v1 groups of the `cpuacct` and `memory` controllers.
    pub cpuacct: Option<String>,
    pub memory: Option<String>,
}

/// `/proc/<pid>/cgroup`: `hierarchy:controllers:path` per line.
pub fn parse_process_cgroups(text: &str) -> ProcessCgroups {
    let mut groups = ProcessCgroups::default();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(hierarchy), Some(controllers), Some(path)) =
            (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if hierarchy == "0" && controllers.is_empty() {
            groups.unified = Some(path.to_string());
            continue;
        }
        for controller in controllers.split(',') {
            match controller {
                "cpuacct" => groups.cpuacct = Some(path.to_string()),
                "memory" => groups.memory = Some(path.to_string()),
                _ => {}
            }
        }
    }
    groups
}

/// `usage_usec` of a v2 `cpu.stat`, in nanoseconds.
pub fn parse_cpu_stat_usage_ns(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("usage_usec "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|usec| usec.saturating_mul(1000))
}

/// One field of a `memory.stat` (`inactive_file`, v1's
/// `total_inactive_file`).
pub fn parse_stat_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(' ')?;
        (name == key).then(|| value.trim().parse().ok()).flatten()
    })
}

/// A memory limit file (`memory.max`, `memory.limit_in_bytes`); `None`
/// when there is no limit (`max`, or v1's page-rounded `i64::MAX`).
pub fn parse_limit(text: &str) -> Option<u64> {
    let value: u64 = text.trim().parse().ok()?;
    (value < 1 << 62).then_some(value)
}

/// A number alone in a file (`memory.current`, `cpuacct.usage`).
fn parse_number(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// Where control groups are mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupPaths {
    pub cgroup_root: PathBuf,
    pub proc: PathBuf,
}

impl Default for CgroupPaths {
    fn default() -> Self {
        CgroupPaths {
            cgroup_root: PathBuf::from("/sys/fs/cgroup"),
            proc: PathBuf::from("/proc"),
        }
    }
}

/// The counters of container `id` whose main process is `pid`, from the
/// kernel; `None` when its groups are out of sight (the agent in a
/// container of its own, another pid namespace) or the process is no
/// longer that container's (it restarted: the caller inspects again).
pub fn read_counters(paths: &CgroupPaths, id: &str, pid: u32) -> Option<ContainerCounters> {
    let at = Instant::now();
    let process = paths.proc.join(pid.to_string());
    let groups = parse_process_cgroups(&std::fs::read_to_string(process.join("cgroup")).ok()?);
    let read = |path: PathBuf| std::fs::read_to_string(path).ok();
    let (cpu_ns, memory_used, memory_limit) = match (&groups.memory, &groups.cpuacct) {
        (Some(memory), Some(cpuacct)) => {
            // v1 (or hybrid: v1 controllers beside an empty unified tree).
            if !memory.contains(id) || !cpuacct.contains(id) {
                return None;
            }
            let memory_dir = under(&paths.cgroup_root.join("memory"), memory);
            let cpu_dir = ["cpuacct", "cpu,cpuacct", "cpuacct,cpu"]
                .iter()
                .map(|name| under(&paths.cgroup_root.join(name), cpuacct))
                .find(|dir| dir.join("cpuacct.usage").is_file())?;
            let cpu = parse_number(&read(cpu_dir.join("cpuacct.usage"))?)?;
            let usage = parse_number(&read(memory_dir.join("memory.usage_in_bytes"))?)?;
            let inactive = read(memory_dir.join("memory.stat"))
                .and_then(|t| parse_stat_field(&t, "total_inactive_file"))
                .unwrap_or(0);
            let limit =
                read(memory_dir.join("memory.limit_in_bytes")).and_then(|t| parse_limit(&t));
            (cpu, usage.saturating_sub(inactive), limit)
        }
        _ => {
            let unified = groups.unified.as_deref()?;
            if !unified.contains(id) {
                return None;
            }
            let dir = under(&paths.cgroup_root, unified);
            let cpu = parse_cpu_stat_usage_ns(&read(dir.join("cpu.stat"))?)?;
            let usage = parse_number(&read(dir.join("memory.current"))?)?;
            let inactive = read(dir.join("memory.stat"))
                .and_then(|t| parse_stat_field(&t, "inactive_file"))
                .unwrap_or(0);
            let limit = read(dir.join("memory.max")).and_then(|t| parse_limit(&t));
            (cpu, usage.saturating_sub(inactive), limit)
        }
    };
    // The container's own network namespace, as its main process sees it.
    let networks = read(process.join("net/dev"))
        .map(|t| parse_net_dev(&t))
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.interface != "lo")
        .collect();
    Some(ContainerCounters {
        at,
        cpu_ns: Some(cpu_ns),
        memory_used: Some(memory_used),
        memory_limit,
        networks,
    })
}

/// `root` joined with a group path (`/system.slice/docker-….scope`).
fn under(root: &Path, group: &str) -> PathBuf {
    root.join(group.trim_start_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f";

    #[test]
    fn process_cgroups() {
        let v2 = format!("0::/system.slice/docker-{ID}.scope\n");
        let groups = parse_process_cgroups(&v2);
        assert_eq!(
            groups.unified.as_deref(),
            Some(format!("/system.slice/docker-{ID}.scope").as_str())
        );
        assert_eq!(groups.memory, None);
        let hybrid = format!(
            "12:pids:/docker/{ID}\n4:cpu,cpuacct:/docker/{ID}\n9:memory:/docker/{ID}\n\
             1:name=systemd:/docker/{ID}\n0::/docker/{ID}\n"
        );
        let groups = parse_process_cgroups(&hybrid);
        assert_eq!(
            groups.cpuacct.as_deref(),
            Some(format!("/docker/{ID}").as_str())
        );
        assert_eq!(
            groups.memory.as_deref(),
            Some(format!("/docker/{ID}").as_str())
        );
        assert!(groups.unified.is_some());
        assert_eq!(
            parse_process_cgroups("garbage\n"),
            ProcessCgroups::default()
        );
    }

    #[test]
    fn cgroup_files() {
        let cpu_stat = "usage_usec 8123456\nuser_usec 6000000\nsystem_usec 2123456\nnr_periods 0\n";
        assert_eq!(parse_cpu_stat_usage_ns(cpu_stat), Some(8_123_456_000));
        assert_eq!(parse_cpu_stat_usage_ns("user_usec 1\n"), None);
        let stat = "anon 1000\nfile 5000\ninactive_file 3000\nactive_file 2000\n";
        assert_eq!(parse_stat_field(stat, "inactive_file"), Some(3000));
        assert_eq!(parse_stat_field(stat, "file"), Some(5000));
        assert_eq!(parse_stat_field(stat, "total_inactive_file"), None);
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("536870912\n"), Some(536_870_912));
        assert_eq!(parse_limit("9223372036854771712\n"), None);
    }

    /// A v2 tree and a process in it, as files: the same reading the
    /// kernel's would give.
    #[test]
    fn a_v2_container_read_from_files() {
        let root = tempfile::tempdir().unwrap();
        let cgroup_root = root.path().join("cgroup");
        let proc = root.path().join("proc");
        let group = cgroup_root.join(format!("system.slice/docker-{ID}.scope"));
        std::fs::create_dir_all(&group).unwrap();
        std::fs::create_dir_all(proc.join("42/net")).unwrap();
        std::fs::write(
            proc.join("42/cgroup"),
            format!("0::/system.slice/docker-{ID}.scope\n"),
        )
        .unwrap();
        std::fs::write(
            proc.join("42/net/dev"),
            "Inter-| Receive | Transmit\n face |bytes packets|bytes\n    \
             lo: 10 1 0 0 0 0 0 0 10 1 0 0 0 0 0 0\n  \
             eth0: 5000 9 0 0 0 0 0 0 700 3 0 0 0 0 0 0\n",
        )
        .unwrap();
        std::fs::write(group.join("cpu.stat"), "usage_usec 2000\n").unwrap();
        std::fs::write(group.join("memory.current"), "10000\n").unwrap();
        std::fs::write(group.join("memory.stat"), "inactive_file 4000\n").unwrap();
        std::fs::write(group.join("memory.max"), "20000\n").unwrap();
        let paths = CgroupPaths {
            cgroup_root: cgroup_root.clone(),
            proc: proc.clone(),
        };
        let counters = read_counters(&paths, ID, 42).unwrap();
        assert_eq!(counters.cpu_ns, Some(2_000_000));
        assert_eq!(counters.memory_used, Some(6000));
        assert_eq!(counters.memory_limit, Some(20000));
        assert_eq!(counters.networks.len(), 1);
        assert_eq!(counters.networks[0].rx_bytes, 5000);
        // The process belongs to another container now: not this one's.
        assert_eq!(read_counters(&paths, "feedface", 42), None);
        // No such process.
        assert_eq!(read_counters(&paths, ID, 43), None);
    }
}
