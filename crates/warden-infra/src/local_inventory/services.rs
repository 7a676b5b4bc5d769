//! Which services this machine runs: from systemd when it is the init
//! system, else (containers, minimal systems) guessed from the process list.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// One systemd service as `systemctl list-units` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemdService {
    /// Without `.service` (`ssh`, `getty@tty1`).
    pub name: String,
    /// `loaded`, `not-found`, `masked`, …
    pub load: String,
    /// `active`, `inactive`, `failed`, …
    pub active: String,
    /// `running`, `exited`, `dead`, …
    pub sub: String,
    pub description: String,
}

impl SystemdService {
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "load": self.load,
            "active": self.active,
            "sub": self.sub,
            "description": self.description,
        })
    }
}

/// Parses `systemctl list-units --type=service --all --plain --no-legend
/// --no-pager`: `UNIT LOAD ACTIVE SUB DESCRIPTION…` per line. Some versions
/// prefix failed or missing units with a `●` marker even with `--plain`;
/// lines that do not fit (headers, legends, blank) are skipped.
pub fn parse_systemctl_units(output: &str) -> Vec<SystemdService> {
    output
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace().peekable();
            if words
                .peek()
                .is_some_and(|w| *w == "●" || *w == "*" || *w == "○")
            {
                words.next();
            }
            let unit = words.next()?;
            let name = unit.strip_suffix(".service")?;
            let (load, active, sub) = (words.next()?, words.next()?, words.next()?);
            let description: Vec<&str> = words.collect();
            Some(SystemdService {
                name: name.to_string(),
                load: load.to_string(),
                active: active.to_string(),
                sub: sub.to_string(),
                description: description.join(" "),
            })
        })
        .collect()
}

/// The fields of `/proc/<pid>/stat` that daemon detection uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessStat {
    pub pid: u32,
    /// The executable's name, at most 15 bytes (the kernel's `comm`).
    pub comm: String,
    pub ppid: u32,
    /// The controlling terminal; 0 for none.
    pub tty: i64,
}

/// Parses `/proc/<pid>/stat`: `pid (comm) state ppid pgrp session tty_nr …`.
/// `comm` may itself hold spaces and parentheses, so it ends at the *last* `)`.
pub fn parse_proc_stat(text: &str) -> Option<ProcessStat> {
    let (head, rest) = text.rsplit_once(')')?;
    let (pid, comm) = head.split_once(" (")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // fields: [state, ppid, pgrp, session, tty_nr, …]
    Some(ProcessStat {
        pid: pid.trim().parse().ok()?,
        comm: comm.to_string(),
        ppid: fields.get(1)?.parse().ok()?,
        tty: fields.get(4)?.parse().ok()?,
    })
}

/// Daemons worth reporting wherever they run, by their `comm` (15 bytes max).
const KNOWN_DAEMONS: &[&str] = &[
    "sshd",
    "nginx",
    "apache2",
    "httpd",
    "caddy",
    "traefik",
    "haproxy",
    "dockerd",
    "containerd",
    "podman",
    "postgres",
    "postmaster",
    "mysqld",
    "mariadbd",
    "mongod",
    "redis-server",
    "valkey-server",
    "memcached",
    "cron",
    "crond",
    "atd",
    "rsyslogd",
    "syslog-ng",
    "systemd-journal",
    "named",
    "unbound",
    "dnsmasq",
    "pihole-FTL",
    "smbd",
    "nmbd",
    "nfsd",
    "rpcbind",
    "avahi-daemon",
    "chronyd",
    "ntpd",
    "node_exporter",
    "prometheus",
    "grafana",
    "grafana-server",
    "influxd",
    "jellyfin",
    "k3s-server",
    "k3s-agent",
    "kubelet",
    "etcd",
    "pveproxy",
    "pvedaemon",
    "pvestatd",
    "zed",
    "smartd",
    "fail2ban-server",
    "dovecot",
    "exim4",
    "vsftpd",
    "openvpn",
    "tailscaled",
    "cloudflared",
    "minio",
];

/// Daemons whose `comm` carries a version (`php-fpm8.2`).
const KNOWN_DAEMON_PREFIXES: &[&str] = &["php-fpm"];

/// Whether a process looks like a daemon: no controlling terminal, and
/// either a well-known daemon name, or the classic shape of one (a child of
/// init whose name ends in `d`, like `sshd` or `dockerd`). Kernel threads
/// (children of `kthreadd`, pid 2) never count.
pub fn looks_like_daemon(process: &ProcessStat) -> bool {
    if process.tty != 0 || process.pid == 2 || process.ppid == 2 {
        return false;
    }
    let name = process.comm.as_str();
    KNOWN_DAEMONS.contains(&name)
        || KNOWN_DAEMON_PREFIXES.iter().any(|p| name.starts_with(p))
        || (process.ppid == 1 && name.len() > 1 && name.ends_with('d'))
}

/// The daemons among `processes`, by name, with how many processes each has
/// (`postgres` runs several), sorted by name.
pub fn daemons_by_name(processes: &[ProcessStat]) -> BTreeMap<String, usize> {
    let mut daemons = BTreeMap::new();
    for process in processes.iter().filter(|p| looks_like_daemon(p)) {
        *daemons.entry(process.comm.clone()).or_insert(0) += 1;
    }
    daemons
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded on Debian 12 (systemd 252), with `--plain`.
    const UNITS_PLAIN: &str = "\
apparmor.service                  loaded    active   exited  Load AppArmor profiles
cron.service                       loaded    active   running Regular background program processing daemon
docker.service                     loaded    active   running Docker Application Container Engine
getty@tty1.service                 loaded    active   running Getty on tty1
nginx.service                      loaded    failed   failed  A high performance web server and a reverse proxy server
plymouth-quit-wait.service         not-found inactive dead    plymouth-quit-wait.service
ssh.service                        loaded    active   running OpenBSD Secure Shell server
";

    /// Recorded on Ubuntu 22.04 (systemd 249): the `●` marker stays on failed
    /// and not-found units even with `--plain`.
    const UNITS_WITH_MARKERS: &str = "\
  accounts-daemon.service          loaded    active   running Accounts Service
● auditd.service                   not-found inactive dead    auditd.service
● postgresql@14-main.service       loaded    failed   failed  PostgreSQL Cluster 14-main
  systemd-journald.service         loaded    active   running Journal Service
";

    #[test]
    fn systemctl_plain_output() {
        let units = parse_systemctl_units(UNITS_PLAIN);
        assert_eq!(units.len(), 7);
        assert_eq!(
            units[1],
            SystemdService {
                name: "cron".into(),
                load: "loaded".into(),
                active: "active".into(),
                sub: "running".into(),
                description: "Regular background program processing daemon".into(),
            }
        );
        assert_eq!(units[3].name, "getty@tty1");
        assert_eq!(
            (units[4].active.as_str(), units[4].sub.as_str()),
            ("failed", "failed")
        );
        assert_eq!(units[5].load, "not-found");
        assert_eq!(units[5].description, "plymouth-quit-wait.service");
    }

    #[test]
    fn systemctl_output_with_markers() {
        let units = parse_systemctl_units(UNITS_WITH_MARKERS);
        let names: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "accounts-daemon",
                "auditd",
                "postgresql@14-main",
                "systemd-journald"
            ]
        );
        assert_eq!(units[2].active, "failed");
        assert_eq!(units[2].description, "PostgreSQL Cluster 14-main");
    }

    #[test]
    fn systemctl_noise_is_skipped() {
        let noisy = "UNIT LOAD ACTIVE SUB DESCRIPTION\n\n\
            foo.socket loaded active listening Foo Socket\n\
            short.service loaded\n\
            7 loaded units listed.\n";
        assert_eq!(parse_systemctl_units(noisy), Vec::new());
        assert_eq!(parse_systemctl_units(""), Vec::new());
    }

    #[test]
    fn proc_stat_lines() {
        let stat = "1418 (dockerd) S 1 1418 1418 0 -1 4194560 12345 0 0 0 100 50 0 0 20 0 12 0";
        assert_eq!(
            parse_proc_stat(stat),
            Some(ProcessStat {
                pid: 1418,
                comm: "dockerd".into(),
                ppid: 1,
                tty: 0
            })
        );
        // A comm with spaces and parentheses.
        let odd = "77 (my (odd) daemon) S 1 77 77 34816 77 0";
        let parsed = parse_proc_stat(odd).unwrap();
        assert_eq!(parsed.comm, "my (odd) daemon");
        assert_eq!(parsed.tty, 34816);
        assert_eq!(parse_proc_stat("garbage"), None);
        assert_eq!(parse_proc_stat("12 (x) S"), None);
    }

    fn process(pid: u32, comm: &str, ppid: u32, tty: i64) -> ProcessStat {
        ProcessStat {
            pid,
            comm: comm.into(),
            ppid,
            tty,
        }
    }

    #[test]
    fn daemons_are_told_from_other_processes() {
        let processes = [
            process(1, "systemd", 0, 0),
            process(2, "kthreadd", 0, 0),
            process(15, "kworker/0:1d", 2, 0),
            process(400, "sshd", 1, 0),
            process(500, "postgres", 1, 0),
            process(501, "postgres", 500, 0),
            process(502, "postgres", 500, 0),
            process(600, "php-fpm8.2", 1, 0),
            process(700, "myappd", 1, 0),
            process(800, "bash", 400, 34816),
            process(801, "vim", 800, 34816),
            process(900, "sleep", 1, 0),
            process(901, "nginx", 1, 34817),
        ];
        let daemons = daemons_by_name(&processes);
        let expected: BTreeMap<String, usize> = [
            ("myappd", 1),
            ("php-fpm8.2", 1),
            ("postgres", 3),
            ("sshd", 1),
        ]
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
        assert_eq!(daemons, expected);
    }
}
