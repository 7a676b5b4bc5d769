//! This machine's metrics (spec/patrol.md, the `host` and `node` rows):
//! a [`HostReading`] is what `/proc`, `/sys` and `statvfs` say now; two
//! readings make the rates ([`host_measurements`], pure). The
//! [`HostSampler`] keeps the previous reading, so each
//! [`HostSampler::sample`] gives every metric but the first (which has no
//! rates and no CPU share).

use std::path::{Path, PathBuf};
use std::time::Instant;

use warden_protocol::metrics::MetricName;

use super::Measurement;
use super::procfs::{
    CpuTimes, DiskCounters, Memory, NetCounters, parse_diskstats, parse_loadavg, parse_meminfo,
    parse_mounts, parse_net_dev, parse_stat,
};
use super::rules::{
    BlockDevice, clamp_percent, cpu_percent, is_measured_disk, is_measured_interface,
    network_rates, percent, rate, select_filesystems,
};
use crate::local_inventory::parse_uptime;

/// Where the kernel's files are (another root in tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPaths {
    pub proc: PathBuf,
    pub sys: PathBuf,
}

impl Default for HostPaths {
    fn default() -> Self {
        HostPaths {
            proc: PathBuf::from("/proc"),
            sys: PathBuf::from("/sys"),
        }
    }
}

/// A filesystem's usage now.
#[derive(Debug, Clone, PartialEq)]
pub struct FilesystemUsage {
    pub mount_point: String,
    pub used_percent: Option<f64>,
    /// `None` where the filesystem has no fixed inode count (btrfs, ZFS
    /// report zero).
    pub inodes_percent: Option<f64>,
}

/// `statvfs` numbers as `df` reads them: used of (used + available to
/// users), so the root-reserved blocks count as full, and inodes used of
/// all inodes.
pub fn filesystem_usage(
    mount_point: &str,
    blocks: u64,
    blocks_free: u64,
    blocks_available: u64,
    files: u64,
    files_free: u64,
) -> FilesystemUsage {
    let used = blocks.saturating_sub(blocks_free);
    FilesystemUsage {
        mount_point: mount_point.to_string(),
        used_percent: percent(used, used + blocks_available),
        inodes_percent: percent(files.saturating_sub(files_free), files),
    }
}

/// Everything read at one instant; what could not be read is absent.
#[derive(Debug, Clone, PartialEq)]
pub struct HostReading {
    pub at: Instant,
    /// The aggregate CPU times and the number of online processors.
    pub cpu: Option<(CpuTimes, usize)>,
    pub load1: Option<f64>,
    pub memory: Option<Memory>,
    pub uptime_seconds: Option<u64>,
    pub filesystems: Vec<FilesystemUsage>,
    /// Whole disks only (see [`is_measured_disk`]).
    pub disks: Vec<DiskCounters>,
    /// Without loopback and veth (see [`is_measured_interface`]).
    pub interfaces: Vec<NetCounters>,
}

/// The metrics of `now`, with rates and the CPU share from `before` when
/// there is one. Pure.
pub fn host_measurements(before: Option<&HostReading>, now: &HostReading) -> Vec<Measurement> {
    let mut out = Vec::new();
    let mut put = |metric, instance: Option<&str>, value: Option<f64>| {
        if let Some(value) = value.filter(|v| v.is_finite()) {
            out.push(Measurement {
                metric,
                instance: instance.map(str::to_string),
                value,
            });
        }
    };
    let seconds = before.map_or(0.0, |b| now.at.duration_since(b.at).as_secs_f64());
    if let (Some((was, _)), Some((is, _))) = (before.and_then(|b| b.cpu), now.cpu) {
        put(MetricName::CpuPercent, None, cpu_percent(was, is));
    }
    put(MetricName::Load1, None, now.load1);
    if let Some(memory) = now.memory {
        let used = memory.total.saturating_sub(memory.available);
        put(MetricName::MemoryPercent, None, percent(used, memory.total));
        put(MetricName::MemoryUsedBytes, None, Some(used as f64));
        let swapped = memory.swap_total.saturating_sub(memory.swap_free);
        // No swap at all: nothing is swapped.
        let swap = percent(swapped, memory.swap_total).unwrap_or(0.0);
        put(MetricName::SwapPercent, None, Some(clamp_percent(swap)));
    }
    for fs in &now.filesystems {
        let point = Some(fs.mount_point.as_str());
        put(MetricName::DiskUsedPercent, point, fs.used_percent);
        put(MetricName::DiskInodesPercent, point, fs.inodes_percent);
    }
    if let Some(before) = before {
        for disk in &now.disks {
            let Some(was) = before.disks.iter().find(|d| d.device == disk.device) else {
                continue;
            };
            let device = Some(disk.device.as_str());
            let read = rate(was.read_bytes, disk.read_bytes, seconds);
            put(MetricName::DiskReadBytesPerS, device, read);
            let written = rate(was.written_bytes, disk.written_bytes, seconds);
            put(MetricName::DiskWriteBytesPerS, device, written);
        }
        network_rates(&before.interfaces, &now.interfaces, seconds, &mut put);
    }
    put(
        MetricName::UptimeSeconds,
        None,
        now.uptime_seconds.map(|s| s as f64),
    );
    out
}

/// Reads this machine and keeps the previous reading for rates.
#[derive(Debug, Default)]
pub struct HostSampler {
    paths: HostPaths,
    previous: Option<HostReading>,
}

impl HostSampler {
    pub fn new() -> Self {
        HostSampler::default()
    }

    pub fn with_paths(paths: HostPaths) -> Self {
        HostSampler {
            paths,
            previous: None,
        }
    }

    /// Reads now and returns the metrics (rates from the previous reading).
    /// Never fails: a file that cannot be read leaves its metrics out.
    pub fn sample(&mut self) -> Vec<Measurement> {
        let now = read_host(&self.paths);
        let measured = host_measurements(self.previous.as_ref(), &now);
        self.previous = Some(now);
        measured
    }

    /// The last reading (its processors and memory size serve the
    /// containers' shares).
    pub fn last(&self) -> Option<&HostReading> {
        self.previous.as_ref()
    }
}

/// One reading of this machine. Blocking: file reads and `statvfs`.
pub fn read_host(paths: &HostPaths) -> HostReading {
    let read = |name: &str| std::fs::read_to_string(paths.proc.join(name)).ok();
    let at = Instant::now();
    let cpu = read("stat").and_then(|t| parse_stat(&t));
    let disks = read("diskstats")
        .map(|t| parse_diskstats(&t))
        .unwrap_or_default()
        .into_iter()
        .filter(|d| {
            let kind = block_device(&paths.sys, &d.device);
            is_measured_disk(
                &d.device,
                kind,
                d.read_bytes.saturating_add(d.written_bytes),
            )
        })
        .collect();
    let interfaces = read("net/dev")
        .map(|t| parse_net_dev(&t))
        .unwrap_or_default()
        .into_iter()
        .filter(|n| is_measured_interface(&n.interface))
        .collect();
    HostReading {
        at,
        cpu,
        load1: read("loadavg").and_then(|t| parse_loadavg(&t)),
        memory: read("meminfo").and_then(|t| parse_meminfo(&t)),
        uptime_seconds: read("uptime").and_then(|t| parse_uptime(&t)),
        filesystems: read("self/mounts")
            .map(|t| filesystems(&parse_mounts(&t)))
            .unwrap_or_default(),
        disks,
        interfaces,
    }
}

/// What `/sys/block` says of `device`.
fn block_device(sys: &Path, device: &str) -> BlockDevice {
    let block = sys.join("block");
    if !block.is_dir() {
        return BlockDevice::Unknown;
    }
    let entry = block.join(device);
    if !entry.exists() {
        BlockDevice::Partition
    } else if entry.join("device").exists() {
        BlockDevice::Disk
    } else {
        BlockDevice::Virtual
    }
}

/// The usage of each selected filesystem. A mount point that is a file (a
/// container's `/etc/hosts`) is no filesystem of its own.
fn filesystems(mounts: &[super::procfs::Mount]) -> Vec<FilesystemUsage> {
    select_filesystems(mounts)
        .iter()
        .filter(|m| Path::new(&m.mount_point).is_dir())
        .filter_map(|m| {
            let stat = rustix::fs::statvfs(m.mount_point.as_str()).ok()?;
            // A filesystem with no blocks is a pseudo one not in the list.
            (stat.f_blocks > 0).then(|| {
                filesystem_usage(
                    &m.mount_point,
                    stat.f_blocks,
                    stat.f_bfree,
                    stat.f_bavail,
                    stat.f_files,
                    stat.f_ffree,
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn reading(at: Instant, busy: u64, read: u64, rx: u64) -> HostReading {
        HostReading {
            at,
            cpu: Some((
                CpuTimes {
                    total: 1000 + busy,
                    idle: 1000,
                },
                2,
            )),
            load1: Some(0.5),
            memory: Some(Memory {
                total: 1000,
                available: 250,
                swap_total: 0,
                swap_free: 0,
            }),
            uptime_seconds: Some(3600),
            filesystems: vec![filesystem_usage("/", 100, 40, 30, 10, 9)],
            disks: vec![DiskCounters {
                device: "vda".into(),
                read_bytes: read,
                written_bytes: 0,
            }],
            interfaces: vec![NetCounters {
                interface: "eth0".into(),
                rx_bytes: rx,
                tx_bytes: 0,
            }],
        }
    }

    fn find(measured: &[Measurement], metric: MetricName) -> Option<(Option<&str>, f64)> {
        measured
            .iter()
            .find(|m| m.metric == metric)
            .map(|m| (m.instance.as_deref(), m.value))
    }

    #[test]
    fn the_first_reading_has_no_rates_the_second_has_all() {
        let start = Instant::now();
        let first = reading(start, 0, 0, 0);
        let measured = host_measurements(None, &first);
        assert_eq!(find(&measured, MetricName::CpuPercent), None);
        assert_eq!(find(&measured, MetricName::DiskReadBytesPerS), None);
        assert_eq!(
            find(&measured, MetricName::MemoryPercent),
            Some((None, 75.0))
        );
        assert_eq!(
            find(&measured, MetricName::MemoryUsedBytes),
            Some((None, 750.0))
        );
        assert_eq!(find(&measured, MetricName::SwapPercent), Some((None, 0.0)));
        // 60 used of 60 + 30 available.
        let (point, used) = find(&measured, MetricName::DiskUsedPercent).unwrap();
        assert_eq!(point, Some("/"));
        assert!((used - 66.666).abs() < 0.01, "{used}");
        assert_eq!(
            find(&measured, MetricName::DiskInodesPercent),
            Some((Some("/"), 10.0))
        );
        assert_eq!(
            find(&measured, MetricName::UptimeSeconds),
            Some((None, 3600.0))
        );

        let second = reading(start + Duration::from_secs(10), 1000, 5000, 20_000);
        let measured = host_measurements(Some(&first), &second);
        // 1000 busy ticks of 1000 total ticks more.
        assert_eq!(find(&measured, MetricName::CpuPercent), Some((None, 100.0)));
        assert_eq!(
            find(&measured, MetricName::DiskReadBytesPerS),
            Some((Some("vda"), 500.0))
        );
        assert_eq!(
            find(&measured, MetricName::NetRxBytesPerS),
            Some((Some("eth0"), 2000.0))
        );
        // Every metric carries an instance exactly when its name has one.
        for m in &measured {
            assert_eq!(m.instance.is_some(), m.metric.instance().is_some(), "{m:?}");
        }
    }

    #[test]
    fn counters_that_went_back_give_no_rate() {
        let start = Instant::now();
        let first = reading(start, 500, 9000, 9000);
        let second = reading(start + Duration::from_secs(10), 100, 10, 10);
        let measured = host_measurements(Some(&first), &second);
        assert_eq!(find(&measured, MetricName::CpuPercent), None);
        assert_eq!(find(&measured, MetricName::DiskReadBytesPerS), None);
        assert_eq!(find(&measured, MetricName::NetRxBytesPerS), None);
        assert!(find(&measured, MetricName::Load1).is_some());
    }

    #[test]
    fn filesystems_without_inode_counts() {
        let usage = filesystem_usage("/tank", 1000, 1000, 1000, 0, 0);
        assert_eq!(usage.used_percent, Some(0.0));
        assert_eq!(usage.inodes_percent, None);
    }
}
