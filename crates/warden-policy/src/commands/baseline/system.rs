//! Baseline: processes, services, the journal, the kernel log, time, packages, users.
//! Family tables registered later refine these entries.

use super::super::Rule;
use super::super::common::{always_read, high_write, medium_write};
use super::super::follow::{FollowSpec, rewrite, strip_follow};
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("ps", always_read),
    ("pgrep", always_read),
    ("pidof", always_read),
    ("free", always_read),
    ("uptime", always_read),
    ("w", always_read),
    ("who", always_read),
    ("whoami", always_read),
    ("id", always_read),
    ("groups", always_read),
    ("last", always_read),
    ("lscpu", always_read),
    ("lspci", always_read),
    ("lsusb", always_read),
    ("lsmod", always_read),
    ("nproc", always_read),
    ("uname", always_read),
    ("arch", always_read),
    ("sensors", always_read),
    ("getent", always_read),
    ("hostnamectl", status_only),
    ("timedatectl", status_only),
    ("resolvectl", status_only),
    ("date", date),
    ("top", top),
    ("htop", monitor),
    ("atop", monitor),
    ("iotop", monitor),
    ("btop", monitor),
    ("systemctl", systemctl),
    ("journalctl", journalctl),
    ("hostname", hostname),
    ("dmesg", dmesg),
    ("lsof", always_read),
    ("lshw", always_read),
    ("dmidecode", always_read),
    ("lsns", always_read),
    ("lslocks", always_read),
    ("ipcs", always_read),
    ("printenv", always_read),
    ("locale", always_read),
    ("getenforce", always_read),
    ("sestatus", always_read),
    ("aa-status", always_read),
    ("yes", endless),
    ("modinfo", always_read),
    ("tree", always_read),
    ("mount", mount),
    ("fuser", fuser),
    ("vmstat", sampler),
    ("iostat", sampler),
    ("mpstat", sampler),
    ("pidstat", sampler),
    ("crontab", crontab),
    ("atq", always_read),
    ("localectl", status_only),
    ("loginctl", status_only),
    ("systemd-analyze", always_read),
    ("apt-cache", apt_cache),
    ("dpkg-query", always_read),
    ("kill", medium_write),
    ("pkill", medium_write),
    ("killall", medium_write),
    ("useradd", medium_write),
    ("usermod", medium_write),
    ("groupadd", medium_write),
    ("passwd", passwd),
    ("service", medium_write),
    ("apt", apt),
    ("apt-get", medium_write),
    ("dpkg", dpkg),
    ("modprobe", medium_write),
    ("swapoff", medium_write),
    ("reboot", high_write),
    ("shutdown", high_write),
    ("poweroff", high_write),
    ("halt", high_write),
    ("userdel", high_write),
];

fn top(inv: &Invocation<'_, '_>) -> Verdict {
    let batch = inv.has_short('b') || inv.has_long("--batch");
    let iterations = inv.has_short('n') || inv.has_long("--iterations");
    if batch && iterations {
        return Verdict::Read;
    }
    monitor(inv)
}

fn monitor(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "a full-screen monitor that never exits",
    )
}

fn endless(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive(InteractiveCategory::UnboundedStream, "prints forever")
}

fn dmesg(inv: &Invocation<'_, '_>) -> Verdict {
    let clears = ['c', 'C', 'D', 'E', 'n'].iter().any(|&c| inv.has_short(c))
        || [
            "--clear",
            "--read-clear",
            "--console-off",
            "--console-on",
            "--console-level",
        ]
        .iter()
        .any(|l| inv.has_long_abbrev(l));
    if clears {
        return Verdict::write(
            Risk::MediumWrite,
            "clears the ring buffer or changes console logging",
        );
    }
    if inv.has_short('w')
        || inv.has_short('W')
        || inv.has_long_abbrev("--follow")
        || inv.has_long_abbrev("--follow-new")
    {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`-w` follows the kernel log forever",
        );
    }
    Verdict::Read
}

fn mount(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "tOoLUTN",
        long_with_value: &["--types", "--test-opts", "--options", "--label", "--uuid"],
    };
    if inv.first_positional(spec).is_none()
        && !inv.has_short('a')
        && !inv.has_long("--all")
        && !inv.has_short('o')
    {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "mounts a filesystem")
}

fn fuser(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('k') || inv.has_long_abbrev("--kill") {
        return Verdict::write(Risk::HighWrite, "`-k` kills the processes");
    }
    Verdict::Read
}

fn sampler(inv: &Invocation<'_, '_>) -> Verdict {
    let numbers = inv
        .positionals(OptSpec {
            short_with_value: "cdpPtT",
            long_with_value: &[],
        })
        .filter(|(_, a)| a.parse::<f64>().is_ok())
        .count();
    if numbers == 1 {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "an interval without a count repeats forever",
        );
    }
    Verdict::Read
}

fn crontab(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('e') {
        return Verdict::interactive_writer(InteractiveCategory::Pager, "`-e` opens an editor");
    }
    if inv.has_short('r') {
        return Verdict::write(Risk::HighWrite, "`-r` removes the crontab");
    }
    if inv.has_short('l') {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "installs a crontab")
}

fn apt_cache(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.first_positional(OptSpec {
        short_with_value: "coq",
        long_with_value: &[],
    }) {
        Some((_, "gencaches")) => Verdict::write(Risk::LowWrite, "rebuilds the package cache"),
        _ => Verdict::Read,
    }
}

fn apt(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.first_positional(OptSpec {
        short_with_value: "ot",
        long_with_value: &[],
    }) {
        Some((_, "list" | "search" | "show" | "policy" | "depends" | "rdepends" | "showsrc")) => {
            Verdict::Read
        }
        Some((_, sub))
            if matches!(
                sub,
                "remove" | "purge" | "autoremove" | "full-upgrade" | "dist-upgrade"
            ) =>
        {
            Verdict::write(
                Risk::HighWrite,
                format!("`{sub}` removes or replaces packages"),
            )
        }
        Some((_, sub)) => Verdict::write(Risk::MediumWrite, format!("`{sub}` changes packages")),
        None => Verdict::unknown("no subcommand"),
    }
}

fn dpkg(inv: &Invocation<'_, '_>) -> Verdict {
    const READ: &[&str] = &[
        "-l",
        "-L",
        "-s",
        "-S",
        "-p",
        "-c",
        "-I",
        "--list",
        "--listfiles",
        "--status",
        "--search",
        "--print-avail",
        "--contents",
        "--info",
        "--get-selections",
        "--print-architecture",
        "--print-foreign-architectures",
        "--audit",
        "-C",
        "--verify",
        "-V",
        "--version",
        "--help",
    ];
    match inv.arg(0) {
        Some(first) if READ.contains(&first) => Verdict::Read,
        _ => Verdict::write(
            Risk::MediumWrite,
            "installs, removes or configures packages",
        ),
    }
}

fn passwd(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('S') || inv.has_long("--status") {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "changes a password or account state")
}

fn hostname(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('F')
        || inv.has_short('b')
        || inv.has_long_abbrev("--file")
        || inv.has_long_abbrev("--boot")
        || inv.first_positional(OptSpec::NONE).is_some()
    {
        return Verdict::write(Risk::MediumWrite, "sets the host name");
    }
    Verdict::Read
}

fn status_only(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.first_positional(OptSpec::NONE) {
        None => Verdict::Read,
        Some((_, sub))
            if sub.ends_with("status")
                || sub.starts_with("show")
                || sub.starts_with("list")
                || sub == "query"
                || sub == "statistics" =>
        {
            Verdict::Read
        }
        Some((_, sub)) => Verdict::write(
            Risk::MediumWrite,
            format!("subcommand `{sub}` changes settings"),
        ),
    }
}

fn date(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('s') || inv.has_long_abbrev("--set") {
        return Verdict::write(Risk::MediumWrite, "`-s` sets the clock");
    }
    let spec = OptSpec {
        short_with_value: "dfr",
        long_with_value: &["--date", "--file", "--reference"],
    };
    match inv.first_positional(spec) {
        Some((_, arg)) if !arg.starts_with('+') => {
            Verdict::write(Risk::MediumWrite, "an operand sets the clock")
        }
        _ => Verdict::Read,
    }
}

fn systemctl(inv: &Invocation<'_, '_>) -> Verdict {
    const READ: &[&str] = &[
        "status",
        "show",
        "cat",
        "list-units",
        "list-unit-files",
        "list-sockets",
        "list-timers",
        "list-jobs",
        "list-dependencies",
        "list-machines",
        "is-active",
        "is-enabled",
        "is-failed",
        "is-system-running",
        "get-default",
        "show-environment",
        "help",
    ];
    let spec = OptSpec {
        short_with_value: "tpHMno",
        long_with_value: &[
            "--type",
            "--property",
            "--state",
            "--host",
            "--machine",
            "--lines",
            "--output",
            "--root",
        ],
    };
    if inv.has_short('i') && inv.arg(0) == Some("-i") {
        return Verdict::unknown("unknown option");
    }
    match inv.first_positional(spec) {
        None => Verdict::Read,
        Some((_, sub)) if READ.contains(&sub) => Verdict::Read,
        Some((_, "edit")) => {
            Verdict::interactive_writer(InteractiveCategory::Pager, "`edit` opens an editor")
        }
        Some((_, sub))
            if matches!(
                sub,
                "reboot" | "poweroff" | "halt" | "isolate" | "rescue" | "emergency" | "kexec"
            ) =>
        {
            Verdict::write(
                Risk::HighWrite,
                format!("subcommand `{sub}` takes the machine down"),
            )
        }
        Some((_, sub)) => Verdict::write(
            Risk::MediumWrite,
            format!("subcommand `{sub}` changes units"),
        ),
    }
}

fn journalctl(inv: &Invocation<'_, '_>) -> Verdict {
    const WRITERS: &[&str] = &[
        "--vacuum-size",
        "--vacuum-time",
        "--vacuum-files",
        "--rotate",
        "--flush",
        "--sync",
        "--relinquish-var",
        "--smart-relinquish-var",
        "--setup-keys",
        "--update-catalog",
    ];
    if let Some(w) = WRITERS.iter().find(|w| inv.has_long_abbrev(w)) {
        return Verdict::write(Risk::MediumWrite, format!("`{w}` changes the journal"));
    }
    let Some(kept) = strip_follow(inv, &JOURNALCTL_FOLLOW) else {
        return Verdict::Read;
    };
    let mut added: Vec<&str> = Vec::new();
    if !(inv.has_short('n') || inv.has_long_abbrev("--lines")) {
        added.extend(["-n", "200"]);
    }
    if !(inv.has_short('S') || inv.has_long_abbrev("--since")) {
        added.extend(["--since", "\"10 min ago\""]);
    }
    Verdict::unbounded_with_rewrite(
        rewrite("journalctl", &added, &kept),
        "`-f` follows the journal forever",
    )
}

const JOURNALCTL_FOLLOW: FollowSpec = FollowSpec {
    follow_short: "f",
    value_short: "bnDFgMoptTuUSI",
    follow_long: &["--follow"],
};
