//! "since" on hosts that keep their logs in files: the read prints the
//! host's clock, and only entries inside the window are shown.

use serde_json::json;
use warden_protocol::ControlLevel;

use super::{Outcome, World, answer, resource};
use crate::agent::Decision;
use crate::executor::snapshot_first::SnapshotPolicy;
use crate::simulated::{SimulatedHosts, StaticInventory};

/// 2026-11-28T10:30:00Z, the host at +00:00.
const CLOCK: &str = "@@warden:now 1795861800 +0000\n";

fn on_a_host_without_systemd(message: &str, stdout: &str) -> Outcome {
    let inventory = StaticInventory::new(vec![resource(
        "host:old",
        "old",
        None,
        json!({"systemd": false, "log_files": ["/var/log/messages"]}),
    )]);
    let hosts = SimulatedHosts::new(vec![answer("", stdout, 0)]);
    World {
        inventory: &inventory,
        hosts: &hosts,
        guest_api: &crate::ports::NoGuestApi,
        snapshots: SnapshotPolicy::default(),
    }
    .turn(message, ControlLevel::ReadOnly, Decision::Pending, None)
}

#[test]
fn system_log_files_honour_since() {
    let stdout = format!(
        "{CLOCK}Nov 28 08:00:00 old app: two hours ago\nNov 28 10:00:00 old app: half an hour ago\nNov 28 10:29:00 old app: a minute ago\n"
    );
    let out = on_a_host_without_systemd("logs since 1h", &stdout);
    let (_, command) = &out.commands[0];
    assert!(command.contains("@@warden:now %s %z"), "{command}");
    assert!(command.contains("/var/log/messages"), "{command}");
    assert!(out.text.contains("half an hour ago"), "{}", out.text);
    assert!(out.text.contains("a minute ago"), "{}", out.text);
    assert!(!out.text.contains("two hours ago"), "{}", out.text);
    assert!(out.text.contains("in the last hour"), "{}", out.text);

    let out = on_a_host_without_systemd(
        "logs since 10 minutes",
        &format!("{CLOCK}Nov 28 08:00:00 old app: long ago\n"),
    );
    assert!(out.text.contains("has no entries"), "{}", out.text);
    assert!(!out.text.contains("long ago"), "{}", out.text);
}

#[test]
fn errors_in_a_file_are_windowed_too() {
    let stdout = format!(
        "{CLOCK}Nov 27 22:00:00 old kernel: error: yesterday\nNov 28 10:10:00 old app: error: recent\n"
    );
    let out = on_a_host_without_systemd("errors in the last hour", &stdout);
    let (_, command) = &out.commands[0];
    assert!(command.contains("@@warden:now"), "{command}");
    assert!(out.text.contains("error: recent"), "{}", out.text);
    assert!(!out.text.contains("yesterday"), "{}", out.text);
    assert!(!out.text.contains("no time window"), "{}", out.text);
}
