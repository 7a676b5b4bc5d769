//! Facts about this machine, read from `/proc`, `/etc` and `/var/log`: cheap
//! file reads only, no commands. Parsers are pure and take the file's text.

use std::path::Path;

/// Where logs may be, in the order people look.
const LOG_FILES: [&str; 4] = [
    "/var/log/syslog",
    "/var/log/messages",
    "/var/log/kern.log",
    "/var/log/auth.log",
];

/// journald's persistent and volatile stores.
const JOURNAL_DIRS: [&str; 2] = ["/var/log/journal", "/run/log/journal"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFacts {
    /// `PRETTY_NAME` from `/etc/os-release`.
    pub os: Option<String>,
    pub kernel: Option<String>,
    pub cpus: Option<usize>,
    pub memory_bytes: Option<u64>,
    pub memory_available_bytes: Option<u64>,
    pub uptime_seconds: Option<u64>,
    /// Whether systemd is the init system (`/run/systemd/system` exists,
    /// the test `sd_booted()` uses).
    pub systemd: bool,
    /// Which of the classic log files exist.
    pub log_files: Vec<String>,
    /// Whether journald has stored anything (so `journalctl` will answer).
    pub journal_has_entries: bool,
}

impl HostFacts {
    pub fn gather() -> HostFacts {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let memory = read("/proc/meminfo")
            .map(|text| parse_meminfo(&text))
            .unwrap_or_default();
        HostFacts {
            os: read("/etc/os-release")
                .or_else(|| read("/usr/lib/os-release"))
                .and_then(|text| parse_os_release(&text)),
            kernel: read("/proc/sys/kernel/osrelease").map(|k| k.trim().to_string()),
            cpus: std::thread::available_parallelism().ok().map(usize::from),
            memory_bytes: memory.total_bytes,
            memory_available_bytes: memory.available_bytes,
            uptime_seconds: read("/proc/uptime").and_then(|text| parse_uptime(&text)),
            systemd: Path::new("/run/systemd/system").is_dir(),
            log_files: LOG_FILES
                .iter()
                .filter(|path| Path::new(path).is_file())
                .map(|path| path.to_string())
                .collect(),
            journal_has_entries: JOURNAL_DIRS
                .iter()
                .any(|dir| holds_a_file(Path::new(dir), 2)),
        }
    }
}

/// This machine's name: the kernel's hostname, else `/etc/hostname`, else
/// `localhost`; made fit for a resource id.
pub fn read_hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .map(|text| sanitize_hostname(&text))
        .find(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

/// A hostname as the host part of resource ids, which may hold no
/// whitespace, control characters or `:`: those become `-`.
pub fn sanitize_hostname(raw: &str) -> String {
    raw.trim()
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() || c == ':' {
                '-'
            } else {
                c
            }
        })
        .collect()
}

/// Whether `dir` holds a regular file within `depth` levels
/// (`/var/log/journal/<machine-id>/system.journal` is two).
fn holds_a_file(dir: &Path, depth: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| match entry.file_type() {
        Ok(kind) if kind.is_file() => true,
        Ok(kind) if kind.is_dir() && depth > 1 => holds_a_file(&entry.path(), depth - 1),
        Ok(_) | Err(_) => false,
    })
}

/// `PRETTY_NAME` from an os-release file, else `NAME VERSION`.
pub fn parse_os_release(text: &str) -> Option<String> {
    let value = |key: &str| {
        text.lines().find_map(|line| {
            let (k, v) = line.trim().split_once('=')?;
            (k == key).then(|| unquote_os_release_value(v))
        })
    };
    if let Some(pretty) = value("PRETTY_NAME").filter(|v| !v.is_empty()) {
        return Some(pretty);
    }
    match (value("NAME"), value("VERSION")) {
        (Some(name), Some(version)) => Some(format!("{name} {version}")),
        (Some(name), None) => Some(name),
        (None, _) => None,
    }
}

/// os-release values are shell-like: optionally quoted, with `\"`, `\\`,
/// `\$` and `` \` `` escapes.
fn unquote_os_release_value(raw: &str) -> String {
    let raw = raw.trim();
    let inner = ['"', '\'']
        .iter()
        .find_map(|q| raw.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)))
        .unwrap_or(raw);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('"' | '\\' | '$' | '`'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemInfo {
    pub total_bytes: Option<u64>,
    pub available_bytes: Option<u64>,
}

/// `MemTotal` and `MemAvailable` from `/proc/meminfo` (`MemTotal: 16318412 kB`).
pub fn parse_meminfo(text: &str) -> MemInfo {
    let bytes = |key: &str| {
        text.lines().find_map(|line| {
            let (k, rest) = line.split_once(':')?;
            if k.trim() != key {
                return None;
            }
            let mut words = rest.split_whitespace();
            let number: u64 = words.next()?.parse().ok()?;
            match words.next() {
                Some("kB") => number.checked_mul(1024),
                None => Some(number),
                Some(_) => None,
            }
        })
    };
    MemInfo {
        total_bytes: bytes("MemTotal"),
        available_bytes: bytes("MemAvailable"),
    }
}

/// Whole seconds since boot from `/proc/uptime` (`350735.47 1398693.00`).
pub fn parse_uptime(text: &str) -> Option<u64> {
    let seconds: f64 = text.split_whitespace().next()?.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then_some(seconds as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBIAN_OS_RELEASE: &str = r#"PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
"#;

    #[test]
    fn os_release_pretty_name() {
        assert_eq!(
            parse_os_release(DEBIAN_OS_RELEASE).as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        let alpine = "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME='Alpine Linux v3.19'\n";
        assert_eq!(
            parse_os_release(alpine).as_deref(),
            Some("Alpine Linux v3.19")
        );
        let escaped = "PRETTY_NAME=\"My \\\"special\\\" \\$OS\"\n";
        assert_eq!(
            parse_os_release(escaped).as_deref(),
            Some("My \"special\" $OS")
        );
    }

    #[test]
    fn os_release_without_pretty_name() {
        assert_eq!(
            parse_os_release("NAME=Foo\nVERSION=\"1.0 (x)\"\n").as_deref(),
            Some("Foo 1.0 (x)")
        );
        assert_eq!(parse_os_release("NAME=Foo\n").as_deref(), Some("Foo"));
        assert_eq!(parse_os_release("ID=foo\n"), None);
        assert_eq!(parse_os_release(""), None);
    }

    #[test]
    fn meminfo() {
        let text = "MemTotal:       16318412 kB\nMemFree:         1034568 kB\nMemAvailable:    9876544 kB\nHugePages_Total:       0\n";
        assert_eq!(
            parse_meminfo(text),
            MemInfo {
                total_bytes: Some(16_318_412 * 1024),
                available_bytes: Some(9_876_544 * 1024)
            }
        );
        // Old kernels have no MemAvailable.
        assert_eq!(
            parse_meminfo("MemTotal: 1024 kB\n"),
            MemInfo {
                total_bytes: Some(1024 * 1024),
                available_bytes: None
            }
        );
        assert_eq!(parse_meminfo("garbage"), MemInfo::default());
    }

    #[test]
    fn uptime() {
        assert_eq!(parse_uptime("350735.47 1398693.00\n"), Some(350_735));
        assert_eq!(parse_uptime("0.99 0.5"), Some(0));
        assert_eq!(parse_uptime(""), None);
        assert_eq!(parse_uptime("-1 0"), None);
        assert_eq!(parse_uptime("NaN 0"), None);
    }

    #[test]
    fn hostnames_fit_resource_ids() {
        assert_eq!(sanitize_hostname("web1\n"), "web1");
        assert_eq!(sanitize_hostname("my box:1\t"), "my-box-1");
        assert_eq!(sanitize_hostname("  \n"), "");
    }

    #[test]
    fn journal_detection_looks_two_levels_deep() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!holds_a_file(dir.path(), 2));
        let machine = dir.path().join("0123abcd");
        std::fs::create_dir(&machine).unwrap();
        assert!(!holds_a_file(dir.path(), 2));
        std::fs::write(machine.join("system.journal"), b"x").unwrap();
        assert!(holds_a_file(dir.path(), 2));
        assert!(!holds_a_file(dir.path(), 1));
        assert!(!holds_a_file(&dir.path().join("missing"), 2));
    }

    #[test]
    fn gathering_this_machine_works() {
        let facts = HostFacts::gather();
        assert!(facts.cpus.is_some_and(|n| n >= 1));
        assert!(facts.memory_bytes.is_some_and(|b| b > 0));
        assert!(facts.kernel.is_some());
        assert!(!read_hostname().is_empty());
    }
}
