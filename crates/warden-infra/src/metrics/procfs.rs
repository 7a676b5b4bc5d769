//! The Linux files a sampler reads, parsed: `/proc/stat`, `/proc/loadavg`,
//! `/proc/meminfo`, `/proc/self/mounts`, `/proc/diskstats`,
//! `/proc/net/dev`. Pure: each parser takes the file's text; a line it
//! cannot read is skipped, never an error (kernels add columns).

use std::collections::BTreeMap;

/// The aggregate `cpu` line of `/proc/stat`, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    /// Every state (user, nice, system, idle, iowait, irq, softirq, steal).
    /// `guest` and `guest_nice` are already inside `user` and `nice`.
    pub total: u64,
    /// Not busy: idle and iowait.
    pub idle: u64,
}

/// `/proc/stat`: the aggregate `cpu` line and how many `cpuN` lines follow
/// (the online processors).
pub fn parse_stat(text: &str) -> Option<(CpuTimes, usize)> {
    let mut times = None;
    let mut cpus = 0;
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        match fields.next() {
            Some("cpu") => {
                let values: Vec<u64> = fields.take(8).filter_map(|v| v.parse().ok()).collect();
                // user nice system idle iowait irq softirq steal (the last
                // three appeared over time; at least four are always there).
                if values.len() < 4 {
                    return None;
                }
                let idle = values[3] + values.get(4).copied().unwrap_or(0);
                times = Some(CpuTimes {
                    total: values.iter().sum(),
                    idle,
                });
            }
            Some(name) if name.starts_with("cpu") => cpus += 1,
            Some(_) | None => {}
        }
    }
    times.map(|t| (t, cpus.max(1)))
}

/// `/proc/loadavg`: the one-minute load average.
pub fn parse_loadavg(text: &str) -> Option<f64> {
    let load: f64 = text.split_whitespace().next()?.parse().ok()?;
    (load.is_finite() && load >= 0.0).then_some(load)
}

/// The fields of `/proc/meminfo` a sampler needs, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Memory {
    pub total: u64,
    /// `MemAvailable` (kernels before 3.14: free + buffers + cached).
    pub available: u64,
    pub swap_total: u64,
    pub swap_free: u64,
}

/// `/proc/meminfo`; `None` without `MemTotal`.
pub fn parse_meminfo(text: &str) -> Option<Memory> {
    let mut fields = BTreeMap::new();
    for line in text.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(Ok(value)) = words.next().map(str::parse::<u64>) else {
            continue;
        };
        let bytes = match words.next() {
            Some("kB") => value.saturating_mul(1024),
            Some(_) | None => value,
        };
        fields.insert(key.trim(), bytes);
    }
    let get = |key: &str| fields.get(key).copied();
    let total = get("MemTotal")?;
    let available = get("MemAvailable").unwrap_or_else(|| {
        get("MemFree").unwrap_or(0) + get("Buffers").unwrap_or(0) + get("Cached").unwrap_or(0)
    });
    Some(Memory {
        total,
        available: available.min(total),
        swap_total: get("SwapTotal").unwrap_or(0),
        swap_free: get("SwapFree").unwrap_or(0),
    })
}

/// One line of `/proc/self/mounts`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// What is mounted: `/dev/sda1`, `tank/data`, `overlay`.
    pub source: String,
    pub mount_point: String,
    pub fs_type: String,
}

/// `/proc/self/mounts`, with the kernel's octal escapes (`\040` for a
/// space) undone.
pub fn parse_mounts(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let source = unescape(fields.next()?);
            let mount_point = unescape(fields.next()?);
            let fs_type = unescape(fields.next()?);
            Some(Mount {
                source,
                mount_point,
                fs_type,
            })
        })
        .collect()
}

/// `\ooo` octal escapes, as the kernel writes spaces, tabs, newlines and
/// backslashes in mount fields.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|digits| bytes[i] == b'\\' && digits.iter().all(|d| (b'0'..=b'7').contains(d)))
            .map(|d| (d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
        match octal {
            Some(byte) => {
                out.push(byte);
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Bytes read and written by one block device since boot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskCounters {
    pub device: String,
    pub read_bytes: u64,
    pub written_bytes: u64,
}

/// `/proc/diskstats`: sectors there are always 512 bytes, whatever the
/// device's own sector size.
pub fn parse_diskstats(text: &str) -> Vec<DiskCounters> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // major minor name reads merged sectors_read ms writes merged
            // sectors_written …
            let device = fields.get(2)?;
            let read: u64 = fields.get(5)?.parse().ok()?;
            let written: u64 = fields.get(9)?.parse().ok()?;
            Some(DiskCounters {
                device: device.to_string(),
                read_bytes: read.saturating_mul(512),
                written_bytes: written.saturating_mul(512),
            })
        })
        .collect()
}

/// Bytes received and sent by one network interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetCounters {
    pub interface: String,
    pub rx_bytes: u64,
    pub tx_bytes: u64,
}

/// `/proc/net/dev` (also `/proc/<pid>/net/dev`: a container's own).
pub fn parse_net_dev(text: &str) -> Vec<NetCounters> {
    text.lines()
        .filter_map(|line| {
            // `  eth0: 123 …` (old kernels glue the name to the first
            // number: `eth0:123`).
            let (name, rest) = line.split_once(':')?;
            let fields: Vec<u64> = rest
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .ok()?;
            Some(NetCounters {
                interface: name.trim().to_string(),
                rx_bytes: *fields.first()?,
                tx_bytes: *fields.get(8)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Total ticks, idle ticks, processors.
    type Expected = Option<(u64, u64, usize)>;

    #[test]
    fn proc_stat() {
        let cases: [(&str, Expected); 5] = [
            (
                "cpu  715543 42618 127968 1442748 18889 0 1919 831 0 0\n\
                 cpu0 349951 4170 52584 761208 7555 0 210 410 0 0\n\
                 cpu1 365591 38447 75383 681540 11333 0 1709 420 0 0\nintr 1 2\nctxt 9\n",
                Some((
                    715543 + 42618 + 127968 + 1442748 + 18889 + 1919 + 831,
                    1442748 + 18889,
                    2,
                )),
            ),
            // An old kernel: four states, one processor.
            ("cpu 10 0 5 85\ncpu0 10 0 5 85\n", Some((100, 85, 1))),
            // No per-processor lines: still one processor.
            ("cpu 10 0 5 85 0\n", Some((100, 85, 1))),
            ("intr 1 2 3\n", None),
            ("cpu 1 2\n", None),
        ];
        for (text, expected) in cases {
            let got = parse_stat(text).map(|(t, n)| (t.total, t.idle, n));
            assert_eq!(got, expected, "{text}");
        }
    }

    #[test]
    fn loadavg() {
        assert_eq!(parse_loadavg("1.13 0.84 1.06 2/113 15861\n"), Some(1.13));
        assert_eq!(parse_loadavg(""), None);
        assert_eq!(parse_loadavg("nan 1 1"), None);
    }

    #[test]
    fn meminfo() {
        let text = "MemTotal:       16318436 kB\nMemFree:         1016436 kB\n\
                    MemAvailable:    9120000 kB\nBuffers:          200000 kB\n\
                    Cached:          7000000 kB\nSwapTotal:       2097148 kB\n\
                    SwapFree:        1048574 kB\nHugePages_Total:       0\n";
        assert_eq!(
            parse_meminfo(text),
            Some(Memory {
                total: 16318436 * 1024,
                available: 9120000 * 1024,
                swap_total: 2097148 * 1024,
                swap_free: 1048574 * 1024,
            })
        );
        // Before 3.14: no MemAvailable; no swap at all.
        let old = "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 250 kB\n";
        let memory = parse_meminfo(old).unwrap();
        assert_eq!(memory.available, 400 * 1024);
        assert_eq!((memory.swap_total, memory.swap_free), (0, 0));
        assert_eq!(parse_meminfo("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn mounts() {
        let text = "/dev/vda / ext4 rw,relatime 0 0\n\
                    proc /proc proc rw 0 0\n\
                    /dev/sdb1 /mnt/my\\040disk ext4 rw 0 0\n\
                    tank/data /tank/data zfs rw,xattr 0 0\n\
                    broken\n";
        let mounts = parse_mounts(text);
        assert_eq!(mounts.len(), 4);
        assert_eq!(mounts[0].mount_point, "/");
        assert_eq!(mounts[1].fs_type, "proc");
        assert_eq!(mounts[2].mount_point, "/mnt/my disk");
        assert_eq!(mounts[3].source, "tank/data");
        assert_eq!(unescape("a\\134b\\011c\\9"), "a\\b\tc\\9");
    }

    #[test]
    fn diskstats() {
        let text = "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n \
                    254       0 vda 1665185 38086 104752474 6554134 14598104 449763 597505856 16884872 0 446884 23524395\n \
                    8       1 sda1 10 0 8 0 2 0 4 0 0 0 0\n\
                    short line\n";
        assert_eq!(
            parse_diskstats(text),
            vec![
                DiskCounters {
                    device: "loop0".into(),
                    read_bytes: 0,
                    written_bytes: 0
                },
                DiskCounters {
                    device: "vda".into(),
                    read_bytes: 104752474 * 512,
                    written_bytes: 597505856 * 512
                },
                DiskCounters {
                    device: "sda1".into(),
                    read_bytes: 8 * 512,
                    written_bytes: 4 * 512
                },
            ]
        );
    }

    #[test]
    fn net_dev() {
        let text = "Inter-|   Receive                                                |  Transmit\n \
            face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    \
            lo: 471404815  306694    0    0    0     0          0         0 471404815  306694    0    0    0     0       0          0\n  \
            eth0: 360742542   18513    0    0    0     0          0         0  1367201   15240    0    0    0     0       0          0\n\
            eth1:100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n";
        assert_eq!(
            parse_net_dev(text),
            vec![
                NetCounters {
                    interface: "lo".into(),
                    rx_bytes: 471404815,
                    tx_bytes: 471404815
                },
                NetCounters {
                    interface: "eth0".into(),
                    rx_bytes: 360742542,
                    tx_bytes: 1367201
                },
                NetCounters {
                    interface: "eth1".into(),
                    rx_bytes: 100,
                    tx_bytes: 200
                },
            ]
        );
    }
}
