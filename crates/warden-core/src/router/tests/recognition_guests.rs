//! Recognition of the Proxmox phrasings: power verbs, "vm 101" / "ct 141"
//! subjects, history over a window, snapshots, taking one and rolling
//! back; and near-misses that must not be read as them.

use warden_protocol::ResourceKind;

use super::recognition::{check, control, not, status};
use crate::executor::host_metrics::Metric;
use crate::router::intent::{ControlOp, Intent, ListWhat, Stage, Subject, SubjectKind, Window};

use Stage::FastPath;
use SubjectKind::{Container, Guest, Lxc, Vm};

fn subject(name: &str, said: Option<SubjectKind>) -> Subject {
    Subject::new(name, None, said)
}

fn history(
    metric: Option<Metric>,
    name: Option<(&str, Option<SubjectKind>)>,
    window: &str,
) -> Intent {
    Intent::History {
        metric,
        subject: name.map(|(n, said)| subject(n, said)),
        window: Window::parse(window).unwrap(),
    }
}

fn rollback(name: &str, said: Option<SubjectKind>, snapshot: &str) -> Intent {
    Intent::Rollback {
        subject: subject(name, said),
        snapshot: snapshot.into(),
    }
}

fn take(name: &str, said: Option<SubjectKind>, snapshot: Option<&str>) -> Intent {
    Intent::TakeSnapshot {
        subject: subject(name, said),
        name: snapshot.map(str::to_string),
    }
}

fn list(what: ListWhat) -> Intent {
    Intent::List { what, on: None }
}

#[test]
fn power_verbs_and_guest_subjects() {
    use ControlOp::*;
    check(vec![
        ("stop web", FastPath, control(Stop, "web", None, None)),
        (
            "stop vm 101",
            FastPath,
            control(Stop, "101", None, Some(Vm)),
        ),
        (
            "kill ct 141",
            FastPath,
            control(ForceStop, "141", None, Some(Lxc)),
        ),
        (
            "force stop web",
            FastPath,
            control(ForceStop, "web", None, None),
        ),
        (
            "hard stop the web vm",
            FastPath,
            control(ForceStop, "web", None, Some(Vm)),
        ),
        (
            "shut down lxc 141",
            FastPath,
            control(Shutdown, "141", None, Some(Lxc)),
        ),
        (
            "shutdown web",
            FastPath,
            control(Shutdown, "web", None, None),
        ),
        (
            "reboot the db guest",
            FastPath,
            control(Reboot, "db", None, Some(Guest)),
        ),
        (
            "start the homepage container",
            FastPath,
            control(Start, "homepage", None, Some(Container)),
        ),
        ("status of vm 101", FastPath, status("101", None, Some(Vm))),
        (
            "is ct 141 running",
            FastPath,
            status("141", None, Some(Lxc)),
        ),
        ("lxc 141 status", FastPath, status("141", None, Some(Lxc))),
        ("list guests", FastPath, list(ListWhat::Guests)),
        (
            "list cts",
            FastPath,
            list(ListWhat::Resources(Some(ResourceKind::Lxc))),
        ),
        (
            "show me the proxmox nodes",
            FastPath,
            list(ListWhat::Resources(Some(ResourceKind::Node))),
        ),
    ]);
    not(
        &[
            "kill -9 1234",
            "shutdown -h now",
            "reboot",
            "why did web stop",
            "stop",
        ],
        "control",
    );
}

#[test]
fn history_needs_a_window() {
    use Metric::*;
    check(vec![
        (
            "memory of web this week",
            FastPath,
            history(Some(Memory), Some(("web", None)), "this week"),
        ),
        (
            "cpu of pve1 today",
            FastPath,
            history(Some(Cpu), Some(("pve1", None)), "today"),
        ),
        (
            "cpu usage of node pve1 in the last 24h",
            FastPath,
            history(Some(Cpu), Some(("pve1", None)), "the last 24h"),
        ),
        (
            "show me the disk usage of vm 101 over the past month",
            FastPath,
            history(Some(Disk), Some(("101", Some(Vm))), "past month"),
        ),
        (
            "network of ct 141 this month",
            FastPath,
            history(Some(Network), Some(("141", Some(Lxc))), "this month"),
        ),
        (
            "web memory history this week",
            FastPath,
            history(Some(Memory), Some(("web", None)), "this week"),
        ),
        (
            "web's cpu today",
            FastPath,
            history(Some(Cpu), Some(("web", None)), "today"),
        ),
        (
            "history of web this year",
            FastPath,
            history(None, Some(("web", None)), "this year"),
        ),
        (
            "how much ram did web use this week",
            FastPath,
            history(Some(Memory), Some(("web", None)), "this week"),
        ),
        (
            "cpu usage today",
            FastPath,
            history(Some(Cpu), None, "today"),
        ),
        (
            "memory usage over the last hour",
            FastPath,
            history(Some(Memory), None, "last hour"),
        ),
    ]);
    // No window, or one that is not a window: current values or nothing.
    not(
        &[
            "memory of web",
            "cpu of pve1",
            "memory of web on pve1",
            "memory of web soon",
            "disk usage including containers",
            "cpu usage this and that",
        ],
        "history",
    );
}

#[test]
fn snapshots_take_and_rollback() {
    check(vec![
        (
            "snapshots of web",
            FastPath,
            Intent::Snapshots(subject("web", None)),
        ),
        (
            "list the snapshots of vm 101",
            FastPath,
            Intent::Snapshots(subject("101", Some(Vm))),
        ),
        (
            "show all snapshots for ct 141",
            FastPath,
            Intent::Snapshots(subject("141", Some(Lxc))),
        ),
        (
            "web snapshots",
            FastPath,
            Intent::Snapshots(subject("web", None)),
        ),
        (
            "what snapshots does web have",
            FastPath,
            Intent::Snapshots(subject("web", None)),
        ),
        (
            "does the db vm have any snapshots",
            FastPath,
            Intent::Snapshots(subject("db", Some(Vm))),
        ),
        ("take a snapshot of web", FastPath, take("web", None, None)),
        (
            "Take a snapshot of web named Before-Upgrade",
            FastPath,
            take("web", None, Some("Before-Upgrade")),
        ),
        (
            "create a new snapshot of vm 101 called pre_kernel",
            FastPath,
            take("101", Some(Vm), Some("pre_kernel")),
        ),
        (
            "make a snapshot named nightly of ct 141",
            FastPath,
            take("141", Some(Lxc), Some("nightly")),
        ),
        (
            "snapshot web as \"pre-upgrade\"",
            FastPath,
            take("web", None, Some("pre-upgrade")),
        ),
        (
            "roll back web to before-upgrade",
            FastPath,
            rollback("web", None, "before-upgrade"),
        ),
        (
            "rollback vm 101 to snapshot before-upgrade",
            FastPath,
            rollback("101", Some(Vm), "before-upgrade"),
        ),
        (
            "restore web from before-upgrade",
            FastPath,
            rollback("web", None, "before-upgrade"),
        ),
        (
            "revert ct 141 to the nightly snapshot",
            FastPath,
            rollback("141", Some(Lxc), "nightly"),
        ),
        (
            "roll back to snapshot Base on web",
            FastPath,
            rollback("web", None, "Base"),
        ),
    ]);
    not(
        &[
            "snapshots",
            "list snapshots",
            "show me the snapshots",
            "how do snapshots work",
        ],
        "snapshots",
    );
    not(
        &[
            "take a snapshot",
            "snapshot",
            "should I take a snapshot of web",
        ],
        "take_snapshot",
    );
    not(
        &[
            "roll back web",
            "rollback",
            "can I roll back web to base",
            "roll back the last change",
        ],
        "rollback",
    );
}
