//! What a sampler measures and how numbers become metrics, free of IO:
//! which filesystems count as this machine's disks, which block devices
//! and interfaces get a series, and rates and percentages from counters.

use std::collections::BTreeMap;
use warden_protocol::metrics::MetricName;

use super::procfs::{CpuTimes, Mount};

/// Filesystems that hold no disk of their own: kernel interfaces, memory.
const PSEUDO: [&str; 29] = [
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "tmpfs",
    "ramfs",
    "cgroup",
    "cgroup2",
    "securityfs",
    "pstore",
    "debugfs",
    "tracefs",
    "bpf",
    "mqueue",
    "hugetlbfs",
    "configfs",
    "fusectl",
    "autofs",
    "binfmt_misc",
    "efivarfs",
    "squashfs",
    "nsfs",
    "rpc_pipefs",
    "selinuxfs",
    "nfsd",
    "fuse.lxcfs",
    "fuse.gvfsd-fuse",
    "fuse.portal",
    "iso9660",
];

/// Another machine's disk (it reports its own), and a mount whose server
/// is away would hang the sampler.
const NETWORK: [&str; 10] = [
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "ceph",
    "glusterfs",
    "fuse.sshfs",
    "fuse.rclone",
    "9p",
];

/// Where container runtimes mount one filesystem per container.
const RUNTIME_DIRS: [&str; 6] = [
    "/var/lib/docker/",
    "/var/lib/containers/",
    "/run/containerd/",
    "/run/docker/",
    "/var/lib/kubelet/pods/",
    "/run/k3s/containerd/",
];

/// Kernel trees: nothing mounted there is a disk people ask about.
const KERNEL_DIRS: [&str; 3] = ["/proc/", "/sys/", "/dev/"];

/// Whether `mount` is one of this machine's own filesystems: not a pseudo
/// or network filesystem, not a container's layer (an overlay root is this
/// system's own: Warden in a container), not under the kernel's trees.
pub fn is_own_filesystem(mount: &Mount) -> bool {
    let fs = mount.fs_type.as_str();
    let point = mount.mount_point.as_str();
    if PSEUDO.contains(&fs) || NETWORK.contains(&fs) {
        return false;
    }
    let overlay = matches!(fs, "overlay" | "fuse-overlayfs" | "shm" | "aufs");
    if overlay && point != "/" {
        return false;
    }
    !RUNTIME_DIRS
        .iter()
        .chain(KERNEL_DIRS.iter())
        .any(|dir| point.starts_with(dir))
}

/// The filesystems to measure, one series each: this machine's own (see
/// [`is_own_filesystem`]); a mount point mounted over keeps its last
/// mount; a device mounted at several places (bind mounts) counts once,
/// at its shortest mount point (`/` rather than `/var/lib/docker`).
pub fn select_filesystems(mounts: &[Mount]) -> Vec<Mount> {
    let mut by_point: BTreeMap<&str, &Mount> = BTreeMap::new();
    for mount in mounts.iter().filter(|m| is_own_filesystem(m)) {
        by_point.insert(&mount.mount_point, mount);
    }
    let mut by_device: BTreeMap<&str, &Mount> = BTreeMap::new();
    let mut kept = Vec::new();
    for mount in by_point.values() {
        if !mount.source.starts_with("/dev/") {
            // ZFS datasets, btrfs by label, …: each its own usage.
            kept.push((*mount).clone());
            continue;
        }
        let shorter = |old: &&Mount| old.mount_point.len() <= mount.mount_point.len();
        match by_device.get(mount.source.as_str()) {
            Some(old) if shorter(old) => {}
            Some(_) | None => {
                by_device.insert(&mount.source, mount);
            }
        }
    }
    kept.extend(by_device.into_values().cloned());
    kept.sort_by(|a, b| a.mount_point.cmp(&b.mount_point));
    kept
}

/// What `/sys/block` says of a device in `/proc/diskstats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockDevice {
    /// A whole disk with hardware (or a hypervisor's disk) behind it:
    /// `/sys/block/<name>/device` exists.
    Disk,
    /// A whole device with no hardware of its own: loop, device-mapper
    /// (LVM, crypt), md RAID, zram, ram. Its I/O is its disks' I/O.
    Virtual,
    /// A partition (not in `/sys/block`): its disk counts it already.
    Partition,
    /// `/sys/block` cannot be read: the name decides.
    Unknown,
}

/// Whether a device gets disk I/O series: whole disks only, so no byte is
/// counted twice (a partition, an LVM volume or a RAID array is also its
/// disks' I/O); a disk that never moved a byte since boot (an empty
/// CD-ROM drive) is left out.
pub fn is_measured_disk(name: &str, kind: BlockDevice, moved_bytes: u64) -> bool {
    let whole_disk = match kind {
        BlockDevice::Disk => true,
        BlockDevice::Virtual | BlockDevice::Partition => false,
        BlockDevice::Unknown => looks_like_a_whole_disk(name),
    };
    whole_disk && moved_bytes > 0
}

/// Without `/sys`: the usual names of whole disks (`sda`, `vdb`, `xvda`,
/// `nvme0n1`, `mmcblk0`), not their partitions (`sda1`, `nvme0n1p2`).
fn looks_like_a_whole_disk(name: &str) -> bool {
    let scsi_like = ["sd", "vd", "hd", "xvd"]
        .iter()
        .filter_map(|prefix| name.strip_prefix(prefix))
        .any(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_lowercase()));
    let numbered = |prefix: &str, part: char| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            !rest.is_empty()
                && !rest.contains(part)
                && rest.bytes().all(|b| b.is_ascii_alphanumeric())
        })
    };
    scsi_like || numbered("nvme", 'p') || numbered("mmcblk", 'p')
}

/// Whether an interface gets network series: not loopback, not the host
/// end of a container's veth pair (the container reports its own traffic,
/// and those names change with every container start).
pub fn is_measured_interface(name: &str) -> bool {
    name != "lo" && !name.starts_with("veth")
}

/// Per second, from two readings of a counter `seconds` apart; `None` when
/// the counter went back (a reset, a reboot, a new container) or no time
/// passed.
pub fn rate(before: u64, now: u64, seconds: f64) -> Option<f64> {
    (now >= before && seconds > 0.0).then(|| (now - before) as f64 / seconds)
}

/// Where a reading hands each value: (metric, instance, value).
pub type Put<'p> = dyn FnMut(MetricName, Option<&str>, Option<f64>) + 'p;

/// Receive and send rates of every interface present in both readings,
/// handed to `put` as (metric, interface, bytes/s).
pub fn network_rates(
    before: &[super::procfs::NetCounters],
    now: &[super::procfs::NetCounters],
    seconds: f64,
    put: &mut Put<'_>,
) {
    for nic in now {
        let Some(was) = before.iter().find(|n| n.interface == nic.interface) else {
            continue;
        };
        let name = Some(nic.interface.as_str());
        put(
            MetricName::NetRxBytesPerS,
            name,
            rate(was.rx_bytes, nic.rx_bytes, seconds),
        );
        put(
            MetricName::NetTxBytesPerS,
            name,
            rate(was.tx_bytes, nic.tx_bytes, seconds),
        );
    }
}

/// Busy share of all processors between two readings of `/proc/stat`.
pub fn cpu_percent(before: CpuTimes, now: CpuTimes) -> Option<f64> {
    let total = now.total.checked_sub(before.total)?;
    let idle = now.idle.checked_sub(before.idle)?;
    if total == 0 {
        return None;
    }
    Some(clamp_percent(
        total.saturating_sub(idle) as f64 * 100.0 / total as f64,
    ))
}

/// `part` of `whole` in percent; `None` when `whole` is zero.
pub fn percent(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| clamp_percent(part as f64 * 100.0 / whole as f64))
}

/// Percentages stay within 0–100 whatever rounding or a racing counter
/// did.
pub fn clamp_percent(value: f64) -> f64 {
    value.clamp(0.0, 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mount(source: &str, point: &str, fs: &str) -> Mount {
        Mount {
            source: source.into(),
            mount_point: point.into(),
            fs_type: fs.into(),
        }
    }

    #[test]
    fn own_filesystems() {
        let cases = [
            (mount("/dev/vda", "/", "ext4"), true),
            (mount("/dev/sdb1", "/srv/media", "xfs"), true),
            (mount("tank/data", "/tank/data", "zfs"), true),
            (mount("/dev/sdc1", "/mnt/pool", "btrfs"), true),
            (mount("mergerfs", "/mnt/storage", "fuse.mergerfs"), true),
            (mount("overlay", "/", "overlay"), true),
            (
                mount("overlay", "/var/lib/docker/overlay2/x/merged", "overlay"),
                false,
            ),
            (mount("overlay", "/srv/merged", "overlay"), false),
            (
                mount("/dev/vda", "/var/lib/docker/volumes/x", "ext4"),
                false,
            ),
            (mount("shm", "/run/containerd/x/shm", "tmpfs"), false),
            (mount("tmpfs", "/run", "tmpfs"), false),
            (mount("proc", "/proc", "proc"), false),
            (mount("cgroup2", "/sys/fs/cgroup", "cgroup2"), false),
            (mount("nas:/export", "/mnt/nas", "nfs4"), false),
            (mount("//nas/share", "/mnt/share", "cifs"), false),
            (mount("me@box:", "/mnt/box", "fuse.sshfs"), false),
            (mount("/dev/loop3", "/snap/core/1", "squashfs"), false),
            (mount("lxcfs", "/var/lib/lxcfs", "fuse.lxcfs"), false),
            (mount("/dev/vda", "/dev/termination-log", "ext4"), false),
        ];
        for (m, expected) in cases {
            assert_eq!(is_own_filesystem(&m), expected, "{m:?}");
        }
    }

    #[test]
    fn a_device_counts_once_and_an_overmount_wins() {
        let mounts = [
            mount("/dev/vda", "/var/lib/docker", "ext4"),
            mount("/dev/vda", "/", "ext4"),
            mount("/dev/vda", "/etc/hosts", "ext4"),
            mount("/dev/sdb1", "/srv", "ext4"),
            mount("/dev/sdc1", "/srv", "xfs"),
            mount("tank", "/tank", "zfs"),
            mount("tank/media", "/tank/media", "zfs"),
            mount("proc", "/proc", "proc"),
        ];
        let kept: Vec<(String, String)> = select_filesystems(&mounts)
            .into_iter()
            .map(|m| (m.source, m.mount_point))
            .collect();
        let expected: Vec<(String, String)> = [
            ("/dev/vda", "/"),
            ("/dev/sdc1", "/srv"),
            ("tank", "/tank"),
            ("tank/media", "/tank/media"),
        ]
        .iter()
        .map(|(s, p)| (s.to_string(), p.to_string()))
        .collect();
        assert_eq!(kept, expected);
    }

    #[test]
    fn whole_disks_only() {
        let cases = [
            ("vda", BlockDevice::Disk, 10, true),
            ("nvme0n1", BlockDevice::Disk, 10, true),
            ("sr0", BlockDevice::Disk, 0, false),
            ("vda1", BlockDevice::Partition, 10, false),
            ("loop0", BlockDevice::Virtual, 10, false),
            ("dm-0", BlockDevice::Virtual, 10, false),
            ("md127", BlockDevice::Virtual, 10, false),
            ("zram0", BlockDevice::Virtual, 10, false),
            ("sda", BlockDevice::Unknown, 10, true),
            ("xvdb", BlockDevice::Unknown, 10, true),
            ("sda1", BlockDevice::Unknown, 10, false),
            ("nvme0n1", BlockDevice::Unknown, 10, true),
            ("nvme0n1p2", BlockDevice::Unknown, 10, false),
            ("mmcblk0", BlockDevice::Unknown, 10, true),
            ("mmcblk0p1", BlockDevice::Unknown, 10, false),
            ("loop0", BlockDevice::Unknown, 10, false),
            ("dm-1", BlockDevice::Unknown, 10, false),
            ("md0", BlockDevice::Unknown, 10, false),
        ];
        for (name, kind, moved, expected) in cases {
            assert_eq!(
                is_measured_disk(name, kind, moved),
                expected,
                "{name} {kind:?}"
            );
        }
    }

    #[test]
    fn interfaces() {
        for (name, expected) in [
            ("eth0", true),
            ("enp3s0", true),
            ("docker0", true),
            ("vmbr0", true),
            ("wg0", true),
            ("lo", false),
            ("veth1a2b3c", false),
        ] {
            assert_eq!(is_measured_interface(name), expected, "{name}");
        }
    }

    #[test]
    fn rates_and_percentages() {
        assert_eq!(rate(100, 1100, 10.0), Some(100.0));
        assert_eq!(rate(100, 100, 10.0), Some(0.0));
        assert_eq!(rate(1100, 100, 10.0), None);
        assert_eq!(rate(100, 200, 0.0), None);
        let before = CpuTimes {
            total: 1000,
            idle: 800,
        };
        let now = CpuTimes {
            total: 1200,
            idle: 850,
        };
        assert_eq!(cpu_percent(before, now), Some(75.0));
        assert_eq!(cpu_percent(before, before), None);
        assert_eq!(cpu_percent(now, before), None);
        assert_eq!(percent(1, 4), Some(25.0));
        assert_eq!(percent(5, 4), Some(100.0));
        assert_eq!(percent(1, 0), None);
    }
}
