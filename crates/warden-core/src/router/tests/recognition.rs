//! What each phrasing is recognised as: many phrasings per route, and
//! near-misses (typos, other questions) that must not match it.

use warden_protocol::ResourceKind;

use crate::executor::host_metrics::Metric;
use crate::router::intent::{
    ControlOp, Endpoint, Fact, Intent, ListWhat, LogsRequest, Stage, Subject, SubjectKind,
};
use crate::router::recognise::recognise;
use crate::router::recognise::since::{Since, TimeUnit};

use Stage::{FastPath, Heuristic, Parser};

pub(super) fn got(text: &str) -> Option<(Stage, Intent)> {
    recognise(text).map(|r| (r.stage, r.intent))
}

pub(super) fn on(host: Option<&str>) -> Option<String> {
    host.map(str::to_string)
}

pub(super) fn metric(metric: Metric, host: Option<&str>) -> Intent {
    Intent::Metric {
        metric,
        on: on(host),
    }
}

pub(super) fn status(name: &str, host: Option<&str>, said: Option<SubjectKind>) -> Intent {
    Intent::Status(Subject::new(name, on(host), said))
}

pub(super) fn logs(
    subject: Option<&str>,
    lines: u32,
    filter: Option<&str>,
    since: Option<Since>,
) -> Intent {
    Intent::Logs(LogsRequest {
        subject: subject.map(str::to_string),
        on: None,
        lines,
        filter: filter.map(str::to_string),
        since,
    })
}

pub(super) fn control(
    operation: ControlOp,
    name: &str,
    host: Option<&str>,
    said: Option<SubjectKind>,
) -> Intent {
    Intent::Control {
        operation,
        subject: Subject::new(name, on(host), said),
    }
}

pub(super) fn fact(fact: Fact, host: Option<&str>) -> Intent {
    Intent::Fact { fact, on: on(host) }
}

pub(super) fn why(name: &str, host: Option<&str>, said: Option<SubjectKind>) -> Intent {
    Intent::WhyExit(Subject::new(name, on(host), said))
}

pub(super) fn cert(host: &str, port: u16, from: Option<&str>) -> Intent {
    Intent::Certificate {
        endpoint: Endpoint {
            host: host.into(),
            port,
        },
        on: on(from),
    }
}

pub(super) fn ago(amount: u64, unit: TimeUnit) -> Option<Since> {
    Some(Since::Ago { amount, unit })
}

pub(super) fn check(cases: Vec<(&str, Stage, Intent)>) {
    for (text, stage, intent) in cases {
        assert_eq!(got(text), Some((stage, intent)), "{text}");
    }
}

pub(super) fn not(texts: &[&str], route: &str) {
    for text in texts {
        let name = recognise(text).map(|r| r.intent.name());
        assert_ne!(name, Some(route), "{text} must not be `{route}`");
    }
}

#[test]
fn metrics() {
    use Metric::*;
    check(vec![
        ("disk usage", FastPath, metric(Disk, None)),
        ("Disk usage on pve1?", FastPath, metric(Disk, Some("pve1"))),
        (
            "what's the memory usage on web1",
            FastPath,
            metric(Memory, Some("web1")),
        ),
        ("show me the cpu", FastPath, metric(Cpu, None)),
        ("load average", FastPath, metric(Load, None)),
        (
            "disk usage including containers",
            FastPath,
            metric(DiskAll, None),
        ),
        (
            "disk usage with all mounts on web1",
            FastPath,
            metric(DiskAll, Some("web1")),
        ),
        (
            "how much free space is left on pve1",
            Heuristic,
            metric(Disk, Some("pve1")),
        ),
        ("is the disk full", Heuristic, metric(Disk, None)),
        (
            "how much memory is jellyfin using",
            Heuristic,
            metric(Memory, Some("jellyfin")),
        ),
    ]);
    // Typos are not guessed at: the suggestions answer them.
    for typo in ["disk usgae", "dsik usage", "memroy usage on web1"] {
        assert_eq!(got(typo), None, "{typo}");
    }
}

#[test]
fn statuses() {
    use SubjectKind::*;
    check(vec![
        ("is ssh running", FastPath, status("ssh", None, None)),
        (
            "is nginx up on web1?",
            FastPath,
            status("nginx", Some("web1"), None),
        ),
        (
            "status of jellyfin",
            FastPath,
            status("jellyfin", None, None),
        ),
        ("nginx status", FastPath, status("nginx", None, None)),
        (
            "is the cache container running",
            FastPath,
            status("cache", None, Some(Container)),
        ),
        (
            "check if postgres is still running please",
            Heuristic,
            status("postgres", None, None),
        ),
        (
            "are nginx and redis running",
            FastPath,
            Intent::Each(vec![
                status("nginx", None, None),
                status("redis", None, None),
            ]),
        ),
    ]);
    not(
        &["is the nginx config valid", "why is nginx down"],
        "status",
    );
}

#[test]
fn logs_with_filters_and_windows() {
    let hour = ago(1, TimeUnit::Hour);
    check(vec![
        (
            "show the last 20 lines of the syslog",
            FastPath,
            logs(None, 20, None, None),
        ),
        ("syslog", FastPath, logs(None, 50, None, None)),
        (
            "logs of nginx",
            FastPath,
            logs(Some("nginx"), 50, None, None),
        ),
        (
            "nginx logs with \"Timeout\"",
            FastPath,
            logs(Some("nginx"), 50, Some("Timeout"), None),
        ),
        // Quotes are the filter, whatever order the modifiers come in.
        (
            "nginx logs with \"timeout\" since 1h",
            FastPath,
            logs(Some("nginx"), 50, Some("timeout"), hour),
        ),
        (
            "nginx logs since 1h with \"timeout\"",
            FastPath,
            logs(Some("nginx"), 50, Some("timeout"), hour),
        ),
        (
            "nginx logs with timeout since 1h",
            FastPath,
            logs(Some("nginx"), 50, Some("timeout"), hour),
        ),
        (
            "nginx logs with \"since 1h\"",
            FastPath,
            logs(Some("nginx"), 50, Some("since 1h"), None),
        ),
        (
            "nginx logs with \"connection refused\" in the last 2 hours",
            FastPath,
            logs(
                Some("nginx"),
                50,
                Some("connection refused"),
                ago(2, TimeUnit::Hour),
            ),
        ),
        (
            "last 100 lines of the jellyfin logs since 1h",
            FastPath,
            logs(Some("jellyfin"), 100, None, hour),
        ),
        (
            "jellyfin logs with errors today",
            FastPath,
            logs(Some("jellyfin"), 50, Some("error"), Some(Since::Today)),
        ),
        (
            "any errors in the nginx logs today",
            Heuristic,
            logs(Some("nginx"), 50, Some("error"), Some(Since::Today)),
        ),
        (
            "logs of nginx and redis",
            FastPath,
            Intent::Each(vec![
                logs(Some("nginx"), 50, None, None),
                logs(Some("redis"), 50, None, None),
            ]),
        ),
    ]);
    let Some((_, Intent::Logs(request))) = got("logs of nginx on web1 since yesterday") else {
        panic!("not logs");
    };
    assert_eq!(request.on.as_deref(), Some("web1"));
    assert_eq!(request.since, Some(Since::Yesterday));
}

#[test]
fn controls() {
    use ControlOp::*;
    use SubjectKind::*;
    check(vec![
        (
            "restart nginx",
            FastPath,
            control(Restart, "nginx", None, None),
        ),
        (
            "please restart the jellyfin container on media-server",
            FastPath,
            control(Restart, "jellyfin", Some("media-server"), Some(Container)),
        ),
        (
            "please bounce the cache container",
            FastPath,
            control(Restart, "cache", None, Some(Container)),
        ),
        (
            "restart the nginx service",
            FastPath,
            control(Restart, "nginx", None, Some(Service)),
        ),
        (
            "stop vm media-vm",
            FastPath,
            control(Stop, "media-vm", None, Some(Vm)),
        ),
        (
            "could you stop redis for me",
            Heuristic,
            control(Stop, "redis", None, None),
        ),
        (
            "stop jellyfin and redis",
            FastPath,
            Intent::Each(vec![
                control(Stop, "jellyfin", None, None),
                control(Stop, "redis", None, None),
            ]),
        ),
        (
            "restart a, b and c on web1",
            FastPath,
            Intent::Each(vec![
                control(Restart, "a", Some("web1"), None),
                control(Restart, "b", Some("web1"), None),
                control(Restart, "c", Some("web1"), None),
            ]),
        ),
        (
            "stop the nginx and redis containers",
            FastPath,
            Intent::Each(vec![
                control(Stop, "nginx", None, Some(Container)),
                control(Stop, "redis", None, Some(Container)),
            ]),
        ),
    ]);
    // Never a change from a question, a typo, or a sentence that is not a
    // plain list of names.
    for text in [
        "why did nginx stop working",
        "restart nginx and tell me why it failed",
        "restrat nginx",
        "did the backup stop",
        "how do I restart nginx",
        "can nginx be restarted",
    ] {
        let intent = got(text).map(|(_, i)| i);
        assert!(
            !intent.as_ref().is_some_and(Intent::writes),
            "{text}: {intent:?}"
        );
    }
}

#[test]
fn lists_notes_commands_and_nothing() {
    check(vec![
        (
            "list services",
            FastPath,
            Intent::List {
                what: ListWhat::Services,
                on: None,
            },
        ),
        (
            "what's running on web1",
            FastPath,
            Intent::List {
                what: ListWhat::Services,
                on: on(Some("web1")),
            },
        ),
        (
            "show all containers",
            FastPath,
            Intent::List {
                what: ListWhat::Containers,
                on: None,
            },
        ),
        (
            "list vms",
            FastPath,
            Intent::List {
                what: ListWhat::Resources(Some(ResourceKind::Vm)),
                on: None,
            },
        ),
        (
            "list resources",
            FastPath,
            Intent::List {
                what: ListWhat::Resources(None),
                on: None,
            },
        ),
        (
            "remember the NAS backup runs at 02:00",
            FastPath,
            Intent::Remember {
                note: "the NAS backup runs at 02:00".into(),
            },
        ),
        (
            "what do you know about backups",
            FastPath,
            Intent::Recall {
                query: "backups".into(),
            },
        ),
        (
            "explain `journalctl -f -u nginx`",
            FastPath,
            Intent::Explain {
                command: "journalctl -f -u nginx".into(),
            },
        ),
        (
            "df -h",
            Parser,
            Intent::Run {
                command: "df -h".into(),
                on: None,
            },
        ),
        (
            "$ systemctl status nginx",
            Parser,
            Intent::Run {
                command: "systemctl status nginx".into(),
                on: None,
            },
        ),
        ("help", FastPath, Intent::Help),
    ]);
    for text in [
        "why is jellyfin slow",
        "hello there",
        "what should I name my cat",
        "",
    ] {
        assert_eq!(got(text), None, "{text}");
    }
}

#[test]
fn evidence_names_the_pattern_or_parse() {
    let fast = recognise("restart nginx").unwrap();
    assert_eq!(
        fast.evidence,
        "the `control` pattern matched the whole request"
    );
    let parsed = recognise("df -h").unwrap();
    assert!(
        parsed
            .evidence
            .contains("`df` is a program the command policy knows"),
        "{}",
        parsed.evidence
    );
    let guessed = recognise("could you stop redis for me").unwrap();
    assert!(
        guessed.evidence.starts_with("keywords: `stop` first"),
        "{}",
        guessed.evidence
    );
}
