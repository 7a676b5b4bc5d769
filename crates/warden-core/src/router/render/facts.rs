//! Host facts in words, from the output of the one command each runs
//! (`routes/facts.rs`): top processes, listening ports, sessions, kernel
//! and OS, failed units; pending updates are worded by `updates`.

use warden_protocol::Resource;

use super::format::{block, bytes, clip_lines, named};
use crate::router::intent::{Fact, ProcessOrder};
use crate::router::markers::{NO_SS, NO_SYSTEMCTL, OS_MARKER};

/// How many processes the top list shows.
pub const TOP_COUNT: usize = 10;

/// The answer from the output of the fact's command.
pub fn answer(fact: Fact, host: &Resource, stdout: &str) -> String {
    match fact {
        Fact::TopProcesses(order) => top_processes(host, order, stdout),
        Fact::Ports { port } => ports(host, port, stdout),
        Fact::Sessions => sessions(host, stdout),
        Fact::Kernel => kernel(host, stdout),
        Fact::Updates => super::updates::answer(host, stdout),
        Fact::FailedUnits => failed_units(host, stdout),
    }
}

fn top_processes(host: &Resource, order: ProcessOrder, stdout: &str) -> String {
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("PID"))
        .skip(1)
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() >= 6)
        .take(TOP_COUNT)
        .collect();
    if rows.is_empty() {
        return format!(
            "`ps` on {} printed no processes I could read:\n{}",
            named(host),
            block(&clip_lines(stdout, 10))
        );
    }
    let by = match order {
        ProcessOrder::Cpu => "CPU (average over each process's lifetime, as ps reports it)",
        ProcessOrder::Memory => "memory (resident set size)",
    };
    let mut lines = vec![
        format!("Top {} processes by {by} on {}:", rows.len(), named(host)),
        format!(
            "  {:>7}  {:<12} {:>6} {:>6} {:>10}  COMMAND",
            "PID", "USER", "CPU%", "MEM%", "RSS"
        ),
    ];
    for f in rows {
        let rss = f[4]
            .parse::<u64>()
            .map(|kib| bytes(kib * 1024))
            .unwrap_or_else(|_| f[4].to_string());
        lines.push(format!(
            "  {:>7}  {:<12} {:>6} {:>6} {:>10}  {}",
            f[0],
            f[1],
            f[2],
            f[3],
            rss,
            f[5..].join(" ")
        ));
    }
    lines.join("\n")
}

/// One listening socket from `ss -tulnp`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Listener {
    port: u16,
    protocol: String,
    address: String,
    processes: String,
}

fn parse_ss(stdout: &str) -> Vec<Listener> {
    let mut out: Vec<Listener> = stdout
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            // Netid State Recv-Q Send-Q Local:Port Peer:Port [Process]
            if f.len() < 5 || !matches!(f[0], "tcp" | "udp") {
                return None;
            }
            let (address, port) = f[4].rsplit_once(':')?;
            let rest = f.get(6..).map(|p| p.join(" ")).unwrap_or_default();
            // users:(("sshd",pid=612,fd=3),("sshd",pid=613,fd=3))
            let mut processes: Vec<&str> = rest
                .split("(\"")
                .skip(1)
                .filter_map(|p| p.split('"').next())
                .collect();
            processes.dedup();
            Some(Listener {
                port: port.parse().ok()?,
                protocol: f[0].to_string(),
                address: address.to_string(),
                processes: processes.join(", "),
            })
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn ports(host: &Resource, port: Option<u16>, stdout: &str) -> String {
    if stdout.contains(NO_SS) {
        let raw: String = stdout
            .lines()
            .filter(|l| !l.starts_with("@@warden:"))
            .collect::<Vec<_>>()
            .join("\n");
        return format!(
            "{} has no `ss`; `netstat -tulnp` says:\n{}",
            named(host),
            block(&clip_lines(&raw, 60))
        );
    }
    let all = parse_ss(stdout);
    let listeners: Vec<&Listener> = all
        .iter()
        .filter(|l| port.is_none_or(|p| l.port == p))
        .collect();
    if listeners.is_empty() {
        return match port {
            Some(p) => format!("Nothing is listening on port {p} on {}.", named(host)),
            None => format!("No listening TCP or UDP sockets on {}.", named(host)),
        };
    }
    let mut lines = vec![match port {
        Some(p) => format!("Listening on port {p} on {}:", named(host)),
        None => format!(
            "{} listening socket{} on {} (from ss):",
            listeners.len(),
            if listeners.len() == 1 { "" } else { "s" },
            named(host)
        ),
    }];
    for l in listeners.iter().take(80) {
        let who = if l.processes.is_empty() {
            String::new()
        } else {
            format!("  ({})", l.processes)
        };
        lines.push(format!(
            "  {:>5}/{:<3}  {}{who}",
            l.port, l.protocol, l.address
        ));
    }
    if all.iter().any(|l| l.processes.is_empty()) {
        lines.push(
            "  (sockets without a process name belong to processes Warden may not inspect as this user)"
                .to_string(),
        );
    }
    lines.join("\n")
}

fn sessions(host: &Resource, stdout: &str) -> String {
    let rows: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    if rows.is_empty() {
        return format!(
            "Nobody is logged in on {} (according to `who`).",
            named(host)
        );
    }
    let mut users: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.split_whitespace().next())
        .collect();
    users.sort_unstable();
    users.dedup();
    let mut lines = vec![format!(
        "{} session{} on {} ({}):",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        named(host),
        users.join(", ")
    )];
    lines.extend(rows.iter().take(40).map(|r| format!("  {}", r.trim())));
    lines.join("\n")
}

fn kernel(host: &Resource, stdout: &str) -> String {
    let (uname, os) = stdout.split_once(OS_MARKER).unwrap_or((stdout, ""));
    let fields: Vec<&str> = uname.split_whitespace().collect();
    let mut text = match fields.as_slice() {
        [name, release, version @ .., machine] if !version.is_empty() => format!(
            "{} runs {name} {release} ({}) on {machine}",
            named(host),
            version.join(" ")
        ),
        _ => format!("`uname` on {} says: {}", named(host), uname.trim()),
    };
    let pretty = os.lines().find_map(|l| {
        l.strip_prefix("PRETTY_NAME=")
            .map(|v| v.trim_matches('"').to_string())
    });
    match pretty {
        Some(os) => text.push_str(&format!("; the OS is {os}.")),
        None => text.push('.'),
    }
    text
}

fn failed_units(host: &Resource, stdout: &str) -> String {
    if stdout.contains(NO_SYSTEMCTL) {
        return format!(
            "{} does not run systemd, so there are no units that could have failed.",
            named(host)
        );
    }
    let units: Vec<(&str, String)> = stdout
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // UNIT LOAD ACTIVE SUB DESCRIPTION…
            (f.len() >= 4).then(|| (f[0], f[4..].join(" ")))
        })
        .collect();
    if units.is_empty() {
        return format!("No failed units on {}.", named(host));
    }
    let mut lines = vec![format!(
        "{} failed unit{} on {}:",
        units.len(),
        if units.len() == 1 { "" } else { "s" },
        named(host)
    )];
    for (unit, description) in &units {
        lines.push(format!("  {unit}  {description}").trim_end().to_string());
    }
    if let Some((first, _)) = units.first() {
        lines.push(format!(
            "Ask \"why did {} exit\" for its exit status and last log lines.",
            first.trim_end_matches(".service")
        ));
    }
    lines.join("\n")
}
