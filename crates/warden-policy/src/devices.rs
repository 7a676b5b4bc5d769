//! Device files. Opening one can act on hardware (a watchdog arms when
//! opened), never end (`/dev/zero`, `trace_pipe`), consume data others need
//! (`/proc/kmsg`) or reach the network (bash's `/dev/tcp/HOST/PORT`). A read
//! may name `/dev/null` and the process's own streams; programs that only
//! look at a name (`ls -l /dev/sda`) may name any device, and disk tools may
//! open disks. Everything else is a write.

use crate::invocation::{Arg, ArgShape};
use crate::verdict::{Intent, Verdict};

/// Programs that only look at names (or at metadata through `stat`,
/// sysfs or the mount table): they may name any device.
const NAMES_ONLY: &[&str] = &[
    "echo", "printf", "test", "[", "[[", "basename", "dirname", "realpath", "readlink", "ls",
    "stat", "du", "df", "lsof", "fuser", "findmnt", "namei", "which", "type", "command", "udevadm",
    "lsblk", "lsscsi", "zramctl", "getfacl", "true", "false", ":", "lslocks", "findfs",
];

/// Programs that open disks to read them (never other devices).
const DISK_READERS: &[&str] = &[
    "blkid",
    "smartctl",
    "hdparm",
    "sdparm",
    "mdadm",
    "nvme",
    "fdisk",
    "sfdisk",
    "parted",
    "gdisk",
    "sgdisk",
    "blockdev",
    "lvs",
    "vgs",
    "pvs",
    "lvdisplay",
    "vgdisplay",
    "pvdisplay",
    "lvscan",
    "vgscan",
    "pvscan",
    "pvck",
    "zpool",
    "zdb",
    "tune2fs",
    "dumpe2fs",
    "xfs_info",
    "xfs_db",
    "wipefs",
    "cryptsetup",
    "dmsetup",
    "losetup",
    "multipath",
    "file",
    "btrfs",
    "partx",
    "kpartx",
    "e2label",
    "badblocks",
    "sg_inq",
    "sg_readcap",
    "sg_vpd",
    "isoinfo",
    "ceph-volume",
    "debugfs",
    "lsattr",
    "fatlabel",
    "ntfslabel",
    "ntfsinfo",
    "xfs_spaceman",
];

/// The null device and the process's own streams.
const HARMLESS: &[&str] = &[
    "/dev/null",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/fd/0",
    "/dev/fd/1",
    "/dev/fd/2",
];

/// Names of whole disks and partitions under `/dev`.
const DISK_PREFIXES: &[&str] = &[
    "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "zd", "rbd", "loop", "nbd", "sr", "sg",
    "bcache", "drbd", "nbd",
];

/// Directories under `/dev` that hold disks (LVM volumes are `/dev/VG/LV`).
const DISK_DIRS: &[&str] = &["disk", "mapper", "zvol", "md", "bsg", "block"];

/// Directories under `/dev` that hold other devices (never disks).
const NON_DISK_DIRS: &[&str] = &[
    "input",
    "snd",
    "dri",
    "bus",
    "cpu",
    "net",
    "pts",
    "shm",
    "mqueue",
    "hugepages",
    "char",
    "fd",
    "usb",
    "serial",
    "vfio",
    "dma_heap",
    "tcp",
    "udp",
    "v4l",
    "infiniband",
    "hidraw",
    "watchdog",
    "gpiochip",
    "ttyS",
    "tty",
    "ipmi",
    "kfd",
    "nvidia-caps",
    "vhost-net",
];

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    /// `/dev/null` or a standard stream.
    Harmless,
    /// A disk or partition.
    Disk,
    /// Any other device, or a file that acts like one (`/proc/kmsg`,
    /// `trace_pipe`, another process's descriptors or root).
    Other,
}

/// Does `path` (a literal file name) name a device, and which kind?
pub fn literal_kind(path: &str) -> Option<DeviceKind> {
    let path = path.trim();
    if HARMLESS.contains(&path) {
        return Some(DeviceKind::Harmless);
    }
    // A relative path is read as if from `/`: the working directory is
    // unknown, and `..` may climb there.
    let mut comps: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                comps.pop();
            }
            _ => comps.push(comp),
        }
    }
    kind_of(&comps)
}

/// The kind of device named by normalized components from `/`.
fn kind_of(comps: &[&str]) -> Option<DeviceKind> {
    match comps {
        ["dev", rest @ ..] if !rest.is_empty() => {
            let joined = format!("/dev/{}", rest.join("/"));
            if HARMLESS.contains(&joined.as_str()) {
                return Some(DeviceKind::Harmless);
            }
            Some(disk_or_other(rest))
        }
        ["proc", _, "root" | "cwd", rest @ ..] => kind_of(rest).or(Some(DeviceKind::Other)),
        ["proc", _, "task", _, "root" | "cwd", rest @ ..] => {
            kind_of(rest).or(Some(DeviceKind::Other))
        }
        ["proc", _, "fd" | "fdinfo", _, ..] | ["proc", "kmsg"] => Some(DeviceKind::Other),
        // Physical memory as files: terabytes long (`kcore`), or another
        // process's memory.
        [
            "proc",
            "kcore" | "kpagecount" | "kpageflags" | "kpagecgroup",
        ]
        | ["proc", _, "mem"]
        | ["proc", _, "task", _, "mem"] => Some(DeviceKind::Other),
        ["sys", "kernel", rest @ ..]
            if rest.last().is_some_and(|l| l.starts_with("trace_pipe")) =>
        {
            Some(DeviceKind::Other)
        }
        _ => None,
    }
}

fn disk_or_other(rest: &[&str]) -> DeviceKind {
    match rest {
        [name] if DISK_PREFIXES.iter().any(|p| name.starts_with(p)) => DeviceKind::Disk,
        [dir, ..] if DISK_DIRS.contains(dir) => DeviceKind::Disk,
        // `/dev/VG/LV`: two levels under a directory that is not a known
        // home of other devices.
        [dir, _lv] if !NON_DISK_DIRS.iter().any(|d| dir.starts_with(d)) => DeviceKind::Disk,
        _ => DeviceKind::Other,
    }
}

/// Could a glob pattern match a device path? Only the first components
/// matter: `/d?v/x`, `/*/watchdog`, `/[d]ev/*` can; `/var/log/*.log` cannot.
pub fn glob_may_name_device(pattern: &str) -> bool {
    let comps: Vec<&str> = pattern
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    // A leading `..` may climb to `/`; so may a relative pattern.
    let comps: Vec<&str> = comps.into_iter().skip_while(|c| *c == "..").collect();
    match comps.as_slice() {
        [first, _, ..] if glob_matches(first, "dev") => true,
        [first, _, third, ..] if glob_matches(first, "proc") => {
            ["root", "cwd", "fd", "fdinfo", "task"]
                .iter()
                .any(|n| glob_matches(third, n))
        }
        [first, second] if glob_matches(first, "proc") => glob_matches(second, "kmsg"),
        _ => false,
    }
}

/// fnmatch for one path component: `*`, `?`, `[…]` (with `!`/`^` and ranges).
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    if pattern.is_ascii() && name.is_ascii() {
        // Bytes are characters: no copy.
        return matches_from(pattern.as_bytes(), name.as_bytes());
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches_from(&p, &n)
}

fn matches_from<C: Copy + PartialEq + PartialOrd + From<u8>>(p: &[C], n: &[C]) -> bool {
    let [star, question, open, close, bang, caret, dash, backslash] =
        [b'*', b'?', b'[', b']', b'!', b'^', b'-', b'\\'].map(C::from);
    match p.first() {
        None => n.is_empty(),
        Some(&c) if c == star => (0..=n.len()).any(|i| matches_from(&p[1..], &n[i..])),
        Some(&c) if c == question => !n.is_empty() && matches_from(&p[1..], &n[1..]),
        Some(&c) if c == open => {
            let Some(close) = p.iter().skip(2).position(|&c| c == close).map(|i| i + 2) else {
                return n.first() == Some(&open) && matches_from(&p[1..], &n[1..]);
            };
            let Some(&c) = n.first() else {
                return false;
            };
            let class = &p[1..close];
            let (negated, class) = match class.first() {
                Some(&first) if first == bang || first == caret => (true, &class[1..]),
                _ => (false, class),
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == dash {
                    hit |= class[i] <= c && c <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == c;
                    i += 1;
                }
            }
            hit != negated && matches_from(&p[close + 1..], &n[1..])
        }
        Some(&c) if c == backslash && p.len() > 1 => {
            n.first() == Some(&p[1]) && matches_from(&p[2..], &n[1..])
        }
        Some(&c) => n.first() == Some(&c) && matches_from(&p[1..], &n[1..]),
    }
}

/// The parts of an argument that may be a file name: the word itself, a
/// value after `=`, `@` or `:`, and a value glued to a short option
/// (`-f/dev/x`).
fn candidates(text: &str) -> impl Iterator<Item = &str> {
    let after = |c: char| text.split_once(c).map(|(_, v)| v);
    let glued = (text.len() > 2 && text.starts_with('-') && !text.starts_with("--"))
        .then(|| text.get(2..))
        .flatten();
    [
        Some(text),
        after('='),
        after('@'),
        after(':').filter(|v| v.starts_with('/')),
        glued,
    ]
    .into_iter()
    .flatten()
}

/// Why a read-only verdict does not hold because an argument names a device
/// the program would open, if one does.
pub fn refusal(program: &str, args: &[Arg<'_>], verdict: &Verdict) -> Option<String> {
    let reads = match verdict {
        Verdict::Read | Verdict::Conditional(_) => true,
        Verdict::Interactive(iv) => iv.intent != Intent::WriteOrUnknown,
        Verdict::Write(..) | Verdict::Unknown(_) | Verdict::Wrap(_) | Verdict::Guarded(..) => false,
    };
    if !reads {
        return None;
    }
    // Most arguments name no device: look at them before the tables.
    args.iter().find_map(|arg| match arg_device(arg)? {
        (_, DeviceKind::Harmless) => None,
        _ if NAMES_ONLY.contains(&program) => None,
        (_, DeviceKind::Disk) if DISK_READERS.contains(&program) => None,
        (path, DeviceKind::Disk) if program == "dd" && dd_reads_blocks(args, arg, path) => None,
        (path, _) => Some(format!(
            "`{path}` is a device file: opening it can act on hardware or never end"
        )),
    })
}

/// `dd if=DISK bs=512 count=1`: the first blocks of a block device (its
/// partition table, boot sector or superblock), at most [`DD_DISK_BYTES`]
/// from its start. Further in lie files' contents, which a read of the raw
/// device would take past every protection of the file system; SCSI
/// generic devices (`/dev/sg0`, `/dev/bsg/…`) answer commands rather than
/// hold blocks.
fn dd_reads_blocks(args: &[Arg<'_>], arg: &Arg<'_>, path: &str) -> bool {
    let generic = path
        .rsplit('/')
        .next()
        .is_some_and(|name| name.starts_with("sg"))
        || path.contains("/bsg/");
    if generic || !arg.is_literal() || !arg.as_str().starts_with("if=") {
        return false;
    }
    let mut block: u64 = 512;
    let mut count: Option<u64> = None;
    for a in args {
        let Some((key, value)) = a.as_str().split_once('=') else {
            return false;
        };
        match key {
            "bs" | "ibs" => match dd_size(value) {
                // Either may decide the input block: count the larger.
                Some(size) => block = block.max(size),
                None => return false,
            },
            "count" => count = dd_size(value),
            "skip" | "iseek" if dd_size(value) != Some(0) => return false,
            _ => {}
        }
    }
    count
        .and_then(|c| c.checked_mul(block))
        .is_some_and(|bytes| bytes <= DD_DISK_BYTES)
}

/// How much of a disk `dd` may read: its first mebibyte.
const DD_DISK_BYTES: u64 = 1 << 20;

/// A dd size: digits with an optional multiplier (`512`, `4K`, `1M`,
/// `2b`, `1kB`).
fn dd_size(text: &str) -> Option<u64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let number: u64 = text.get(..digits)?.parse().ok()?;
    let unit: u64 = match text.get(digits..)? {
        "" | "c" => 1,
        "w" => 2,
        "b" => 512,
        "kB" => 1000,
        "K" | "KiB" => 1 << 10,
        "MB" => 1_000_000,
        "M" | "MiB" => 1 << 20,
        _ => return None,
    };
    number.checked_mul(unit)
}

/// Does the argument name a device that never reaches its end
/// (`/dev/zero`, `/dev/urandom`)?
pub fn never_ends(arg: &Arg<'_>) -> bool {
    matches!(
        literal_kind_name(&arg.text),
        Some("/dev/zero" | "/dev/urandom" | "/dev/random" | "/dev/full")
    )
}

fn literal_kind_name(text: &str) -> Option<&str> {
    let text = text.trim();
    text.starts_with("/dev/").then_some(text)
}

/// Does `text` contain `dev`, `proc` or `sys` (one pass, no searcher)?
pub(crate) fn may_name_device(text: &str) -> bool {
    text.as_bytes()
        .windows(3)
        .any(|w| matches!(w, b"dev" | b"pro" | b"sys"))
}

/// The device an argument names, if any: the path as written and its kind.
pub fn arg_device<'a>(arg: &'a Arg<'_>) -> Option<(&'a str, DeviceKind)> {
    let text: &str = &arg.text;
    if !may_name_device(text) {
        if arg.shape == ArgShape::Glob && text.contains(['*', '?', '[']) {
            return candidates(text)
                .find(|c| glob_may_name_device(c))
                .map(|c| (c, DeviceKind::Other));
        }
        return None;
    }
    for candidate in candidates(text) {
        if arg.shape == ArgShape::Glob && glob_may_name_device(candidate) {
            return Some((candidate, DeviceKind::Other));
        }
        if let Some(kind) = literal_kind(candidate) {
            return Some((candidate, kind));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        for p in ["/dev/null", "/dev/stdin", "/dev/fd/1"] {
            assert_eq!(literal_kind(p), Some(DeviceKind::Harmless), "{p}");
        }
        for p in [
            "/dev/sda",
            "/dev/sda1",
            "/dev/nvme0n1p2",
            "/dev/md0",
            "/dev/mapper/vg-root",
            "/dev/disk/by-id/ata-x",
            "/dev/pve/root",
            "/dev/vg0/data",
            "//dev//sda",
            "/./dev/../dev/sda",
        ] {
            assert_eq!(literal_kind(p), Some(DeviceKind::Disk), "{p}");
        }
        for p in [
            "/dev/watchdog",
            "/dev/watchdog0",
            "/dev/zero",
            "/dev/urandom",
            "/dev/tcp/10.0.0.1/80",
            "/dev/input/event0",
            "/dev/cpu/0/msr",
            "/dev/ttyUSB0",
            "/proc/kmsg",
            "/proc/kcore",
            "/proc/kpageflags",
            "/proc/1/mem",
            "/proc/self/task/7/mem",
            "/proc/self/fd/3",
            "/proc/1/root/dev/watchdog",
            "/proc/1/cwd/x",
            "/sys/kernel/debug/tracing/trace_pipe",
            "dev/watchdog",
            "../../dev/watchdog",
            "/tmp/../dev/watchdog",
        ] {
            assert!(
                matches!(literal_kind(p), Some(DeviceKind::Other)),
                "{p}: {:?}",
                literal_kind(p)
            );
        }
        for p in [
            "/dev",
            "/var/log/syslog",
            "/home/u/dev/x",
            "./notes",
            "/proc/cpuinfo",
        ] {
            assert_eq!(literal_kind(p), None, "{p}");
        }
    }

    #[test]
    fn globs() {
        for p in [
            "/d?v/watchdog",
            "/*/watchdog",
            "/[d]ev/*",
            "/dev/*",
            "*/watchdog",
            "/proc/*/fd/*",
        ] {
            assert!(glob_may_name_device(p), "{p}");
        }
        for p in ["/var/log/*.log", "*.log", "/etc/*", "/proc/*/status"] {
            assert!(!glob_may_name_device(p), "{p}");
        }
        assert!(glob_matches("[!a]ev", "dev"));
        assert!(!glob_matches("[!d]ev", "dev"));
        assert!(glob_matches("d[a-f]v", "dev"));
    }

    #[test]
    fn arguments() {
        let dd = Arg::literal("if=/dev/sda");
        assert_eq!(arg_device(&dd), Some(("/dev/sda", DeviceKind::Disk)));
        let glued = Arg::literal("-f/dev/watchdog");
        assert_eq!(
            arg_device(&glued),
            Some(("/dev/watchdog", DeviceKind::Other))
        );
        let url = Arg::literal("file:///dev/watchdog");
        assert!(matches!(arg_device(&url), Some((_, DeviceKind::Other))));
        let data = Arg::literal("@/dev/watchdog");
        assert!(arg_device(&data).is_some());
        assert_eq!(arg_device(&Arg::literal("http://h/dev/x")), None);
    }
}
