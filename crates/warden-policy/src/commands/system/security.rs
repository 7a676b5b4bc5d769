//! Security tools (audit, SELinux, fail2ban, scanners) and the daemons'
//! configuration checks (`nginx -t`, `sshd -T`, `named-checkconf`, …).

use crate::invocation::Invocation;
use crate::verdict::*;

/// Read only when every argument is one of `read` (exact words) or an
/// operand that does not start with `-`.
fn only(inv: &Invocation<'_, '_>, read: &[&str], what: &'static str) -> Verdict {
    match inv
        .args
        .iter()
        .find(|a| !a.is_literal() || (a.as_str().starts_with('-') && !read.contains(&a.as_str())))
    {
        None => Verdict::Read,
        Some(a) if a.is_variable() => {
            Verdict::unknown(format!("`{}` comes from an expansion", a.raw))
        }
        Some(a) => Verdict::write(Risk::MediumWrite, format!("`{}` {what}", a.as_str())),
    }
}

/// `auditctl -l` lists rules and `-s` shows the status; the rest changes them.
pub(super) fn auditctl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::unknown("no action");
    }
    only(
        inv,
        &["-l", "-s", "-v", "-h", "--help"],
        "changes audit rules or settings",
    )
}

/// `aureport` and `ausearch` read the audit log.
pub(super) fn aureport(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .args
        .iter()
        .any(|a| matches!(a.as_str(), "--input-logs" | "-if" | "--input"))
        && inv.args.iter().any(|a| a.as_str().contains("/dev/"))
    {
        return Verdict::unknown("reads a device");
    }
    Verdict::Read
}

/// `fail2ban-client status|get|ping|version|banned`: reads; the rest
/// starts, stops, bans or sets.
pub(super) fn fail2ban_client(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv
        .args
        .iter()
        .map(|a| a.as_str())
        .filter(|w| !matches!(*w, "-q" | "-v" | "-vv" | "--str2sec"))
        .collect();
    if inv.args.iter().any(|a| !a.is_literal()) {
        return Verdict::unknown("an argument comes from an expansion");
    }
    match words.as_slice() {
        ["status", ..]
        | ["get", ..]
        | ["ping"]
        | ["version"]
        | ["-V"]
        | ["--version"]
        | ["-h"]
        | ["--help"]
        | ["banned", ..]
        | ["--dp"]
        | ["-d"] => Verdict::Read,
        [] => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens an interactive prompt",
        ),
        [other, ..] => Verdict::write(
            Risk::MediumWrite,
            format!("`{other}` changes jails or bans"),
        ),
    }
}

/// `getsebool -a`, `semanage … -l` read; `setsebool` and other semanage
/// actions write.
pub(super) fn semanage(inv: &Invocation<'_, '_>) -> Verdict {
    let lists = inv
        .args
        .iter()
        .any(|a| matches!(a.as_str(), "-l" | "--list" | "-E" | "--extract"));
    let changes = inv.args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-a" | "--add"
                | "-d"
                | "--delete"
                | "-m"
                | "--modify"
                | "-D"
                | "--deleteall"
                | "-i"
                | "--input"
        )
    });
    if lists && !changes {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "changes SELinux policy")
    }
}

/// A daemon's configuration test: `nginx -t`, `sshd -T`, `apachectl -t`,
/// `haproxy -c`, … Any other use starts or signals the daemon.
pub(super) fn config_test(inv: &Invocation<'_, '_>) -> Verdict {
    let (tests, options): (&[&str], &[&str]) = match inv.name {
        "nginx" => (
            &["-t", "-T", "-v", "-V", "-h", "-?"],
            &["-c", "-p", "-g", "-q", "-e"],
        ),
        "sshd" => (&["-t", "-T", "-V"], &["-f", "-C", "-G"]),
        "apachectl" | "apache2ctl" | "httpd" | "apache2" => (
            &[
                "-t",
                "-S",
                "-M",
                "-v",
                "-V",
                "-l",
                "-L",
                "configtest",
                "-D",
                "-T",
            ],
            &["-f", "-d", "-D", "-C", "-c"],
        ),
        "haproxy" => (&["-c", "-v", "-vv"], &["-f", "-q", "-V"]),
        "named-checkconf" | "named-checkzone" | "promtool" | "amtool" | "nsd-checkconf"
        | "unbound-checkconf" | "kamailio" | "postfix" | "dovecot" | "squid" => (&[], &[]),
        _ => (&[], &[]),
    };
    match inv.name {
        "named-checkconf" | "named-checkzone" | "nsd-checkconf" | "unbound-checkconf" => {
            // These only check (`-z` loads zones, still reading).
            return if inv
                .args
                .iter()
                .any(|a| a.as_str() == "-o" || a.as_str().starts_with("-o"))
            {
                Verdict::write(Risk::LowWrite, "`-o` writes the zone")
            } else {
                Verdict::Read
            };
        }
        "promtool" | "amtool" => {
            return match inv.arg(0) {
                Some("check" | "query" | "--version" | "--help") => Verdict::Read,
                _ => Verdict::unknown("not a check"),
            };
        }
        "postfix" => {
            return match inv.arg(0) {
                Some("status") => Verdict::Read,
                _ => Verdict::write(Risk::MediumWrite, "controls the mail system"),
            };
        }
        _ => {}
    }
    let tested = inv.args.iter().any(|a| tests.contains(&a.as_str()));
    let known = inv.args.iter().enumerate().all(|(i, a)| {
        let t = a.as_str();
        a.is_literal()
            && (tests.contains(&t)
                || options.contains(&t)
                || !t.starts_with('-')
                    && i > 0
                    && inv
                        .args
                        .get(i - 1)
                        .is_some_and(|p| options.contains(&p.as_str())))
    });
    if tested && known {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "starts or signals the daemon")
    }
}

/// Scanners: clamscan reads unless it moves, copies or removes what it
/// finds, or logs to a file; chkrootkit only reads.
pub(super) fn clamscan(inv: &Invocation<'_, '_>) -> Verdict {
    let writes = inv.args.iter().any(|a| {
        let t = a.as_str();
        t.starts_with("--remove")
            || t.starts_with("--move")
            || t.starts_with("--copy")
            || t.starts_with("--log")
            || t == "-l"
    });
    if writes {
        Verdict::write(Risk::MediumWrite, "moves, removes or logs what it finds")
    } else {
        Verdict::Read
    }
}

/// CrowdSec's `cscli`: listing and inspecting read; adding or deleting
/// decisions, installing hub items and the like change the agent.
pub(super) fn cscli(inv: &Invocation<'_, '_>) -> Verdict {
    const CSCLI: crate::options::Options = crate::options::Options {
        short_flags: "h",
        short_values: "o",
        long_flags: &[
            "--help",
            "--debug",
            "--info",
            "--warning",
            "--error",
            "--trace",
            "--all",
        ],
        long_values: &[
            "--output", "--color", "--ip", "--range", "--type", "--scope", "--value", "--since",
            "--until", "--limit",
        ],
        ..crate::options::Options::GO
    };
    let mut words: Vec<&str> = Vec::new();
    let verdict = crate::commands::common::walk_checked(
        inv,
        &[&CSCLI],
        crate::commands::common::Globs::Refused,
        |tok| {
            if let crate::options::Tok::Operand { text, .. } = tok {
                words.push(text);
            }
            None
        },
    );
    if verdict != Verdict::Read {
        return verdict;
    }
    match words.as_slice() {
        ["version" | "metrics" | "help"]
        | ["metrics", "list" | "show", ..]
        | [
            "decisions" | "alerts" | "bouncers" | "machines" | "collections" | "parsers"
            | "scenarios" | "postoverflows" | "hub" | "lapi" | "capi" | "console" | "notifications"
            | "allowlists",
            "list" | "inspect" | "status",
            ..,
        ] => Verdict::Read,
        ["explain", ..] => Verdict::unknown("`explain` runs a log line through the parsers"),
        _ => Verdict::unknown(format!(
            "`cscli {}` is not known to be read-only",
            words.join(" ")
        )),
    }
}

/// `lynis show …` prints; `lynis audit` writes its log and report.
pub(super) fn lynis(inv: &Invocation<'_, '_>) -> Verdict {
    match inv
        .args
        .iter()
        .map(|a| a.as_str())
        .collect::<Vec<_>>()
        .as_slice()
    {
        [
            "show",
            "version" | "settings" | "profiles" | "categories" | "commands" | "groups" | "help"
            | "options" | "release" | "plugins" | "tests" | "hostids" | "includedir" | "workdir"
            | "logfile" | "report" | "os" | "pidfile" | "environment" | "dbdir" | "details" | "eol"
            | "language" | "license" | "man",
        ] if inv.args.iter().all(|a| a.is_literal()) => Verdict::Read,
        _ => Verdict::write(Risk::LowWrite, "writes its log and report"),
    }
}
