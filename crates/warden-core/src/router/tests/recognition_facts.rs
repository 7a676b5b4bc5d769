//! Recognition of host facts, host-wide errors, certificate expiry and
//! "why did X exit": phrasings that match and near-misses that must not.

use crate::router::intent::{Fact, Intent, ProcessOrder, SubjectKind};
use crate::router::recognise::since::{Since, TimeUnit};

use super::recognition::{ago, cert, check, fact, got, not, on, why};
use crate::router::intent::Stage::{FastPath, Parser};

#[test]
fn host_facts() {
    use ProcessOrder::*;
    check(vec![
        (
            "top processes by cpu",
            FastPath,
            fact(Fact::TopProcesses(Cpu), None),
        ),
        (
            "top processes by memory on web1",
            FastPath,
            fact(Fact::TopProcesses(Memory), Some("web1")),
        ),
        (
            "show the top 10 memory processes",
            FastPath,
            fact(Fact::TopProcesses(Memory), None),
        ),
        (
            "what's using the most ram",
            FastPath,
            fact(Fact::TopProcesses(Memory), None),
        ),
        (
            "which process is using the most cpu on web1",
            FastPath,
            fact(Fact::TopProcesses(Cpu), Some("web1")),
        ),
        (
            "memory hogs",
            FastPath,
            fact(Fact::TopProcesses(Memory), None),
        ),
        (
            "open ports",
            FastPath,
            fact(Fact::Ports { port: None }, None),
        ),
        (
            "show listening ports on web1",
            FastPath,
            fact(Fact::Ports { port: None }, Some("web1")),
        ),
        (
            "which ports are open",
            FastPath,
            fact(Fact::Ports { port: None }, None),
        ),
        (
            "what's listening on port 8080",
            FastPath,
            fact(Fact::Ports { port: Some(8080) }, None),
        ),
        ("who is logged in", FastPath, fact(Fact::Sessions, None)),
        (
            "who's logged in on web1",
            FastPath,
            fact(Fact::Sessions, Some("web1")),
        ),
        ("logged in users", FastPath, fact(Fact::Sessions, None)),
        (
            "who is on web1",
            FastPath,
            fact(Fact::Sessions, Some("web1")),
        ),
        ("kernel version", FastPath, fact(Fact::Kernel, None)),
        (
            "what kernel is web1 running",
            FastPath,
            fact(Fact::Kernel, Some("web1")),
        ),
        ("which os is this", FastPath, fact(Fact::Kernel, None)),
        (
            "os version on bare",
            FastPath,
            fact(Fact::Kernel, Some("bare")),
        ),
        ("pending updates", FastPath, fact(Fact::Updates, None)),
        (
            "are there any updates on web1",
            FastPath,
            fact(Fact::Updates, Some("web1")),
        ),
        (
            "check for security updates",
            FastPath,
            fact(Fact::Updates, None),
        ),
        (
            "is web1 up to date",
            FastPath,
            fact(Fact::Updates, Some("web1")),
        ),
        ("failed units", FastPath, fact(Fact::FailedUnits, None)),
        (
            "any failed services on web1",
            FastPath,
            fact(Fact::FailedUnits, Some("web1")),
        ),
        (
            "which services have failed",
            FastPath,
            fact(Fact::FailedUnits, None),
        ),
    ]);
    not(&["kernel log", "top", "ports.conf", "who"], "top_processes");
    not(&["update nginx", "apt update"], "updates");
    // Typed as commands, they stay commands.
    assert_eq!(got("who").map(|(s, _)| s), Some(Parser));
    assert_eq!(got("uname -r").map(|(s, _)| s), Some(Parser));
}

#[test]
fn errors_certificates_and_exits() {
    use SubjectKind::*;
    check(vec![
        (
            "errors in the last hour",
            FastPath,
            Intent::Errors {
                since: ago(1, TimeUnit::Hour),
                on: None,
            },
        ),
        (
            "any errors today on web1",
            FastPath,
            Intent::Errors {
                since: Some(Since::Today),
                on: on(Some("web1")),
            },
        ),
        (
            "show recent errors",
            FastPath,
            Intent::Errors {
                since: None,
                on: None,
            },
        ),
        (
            "were there any errors since 30m",
            FastPath,
            Intent::Errors {
                since: ago(30, TimeUnit::Minute),
                on: None,
            },
        ),
        (
            "certificate expiry of example.com:443",
            FastPath,
            cert("example.com", 443, None),
        ),
        (
            "when does the tls cert for example.org expire",
            FastPath,
            cert("example.org", 443, None),
        ),
        (
            "ssl cert of https://mail.example.com:8443/ from web1",
            FastPath,
            cert("mail.example.com", 8443, Some("web1")),
        ),
        (
            "check example.net cert expiry",
            FastPath,
            cert("example.net", 443, None),
        ),
        ("why did nginx exit", FastPath, why("nginx", None, None)),
        (
            "why did the jellyfin container crash",
            FastPath,
            why("jellyfin", None, Some(Container)),
        ),
        (
            "why does redis keep restarting on web1",
            FastPath,
            why("redis", Some("web1"), None),
        ),
        (
            "exit code of jellyfin",
            FastPath,
            why("jellyfin", None, None),
        ),
        (
            "what killed postgres",
            FastPath,
            why("postgres", None, None),
        ),
    ]);
    // "errors in the nginx logs" is a log search, not host-wide errors.
    not(
        &["errors in the nginx logs", "error in my config"],
        "errors",
    );
    not(&["certificate of nginx", "cert expiry"], "certificate");
    not(&["why is jellyfin slow", "why did you do that"], "why_exit");
}
