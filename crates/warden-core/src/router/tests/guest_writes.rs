//! Proxmox changes as whole turns without a model: guest power (a clean
//! shutdown forced after the timeout, a force stop, start, reboot), a
//! failing task, taking a snapshot and rolling back to one, each
//! discovered, approved, run through the simulated API and verified.

use serde_json::json;
use warden_protocol::ControlLevel;

use super::pve::{Pve, approved, task};
use crate::agent::{Decision, LoopEvent};
use crate::executor::snapshot_first::{SnapshotMode, SnapshotPolicy};
use crate::router::intent::Stage;

fn asked_for_approval(out: &super::Outcome) -> bool {
    out.events
        .iter()
        .any(|e| matches!(e, LoopEvent::ApprovalNeeded { .. }))
}

#[test]
fn power_requests_become_guest_control_and_are_verified() {
    let cases: &[(&str, &str, serde_json::Value, &str, &str)] = &[
        (
            "stop web",
            "vm:pve1:101",
            json!({"operation": "shutdown", "timeout_secs": 180, "on_timeout": "stop"}),
            "qm shutdown 101 --timeout 180 --forceStop 1",
            "Done: web (vm:pve1:101) was shut down cleanly (a shutdown that stops it hard if it has not finished after 180 s); Proxmox reports it stopped.",
        ),
        (
            "kill vm 101",
            "vm:pve1:101",
            json!({"operation": "stop"}),
            "qm stop 101",
            "Done: web (vm:pve1:101) was stopped at once, without a clean shutdown (like pulling the plug); Proxmox reports it stopped.",
        ),
        (
            "force stop the web vm",
            "vm:pve1:101",
            json!({"operation": "stop"}),
            "qm stop 101",
            "Done: web (vm:pve1:101) was stopped at once",
        ),
        (
            "shut down db",
            "vm:pve1:102",
            json!({"operation": "shutdown", "timeout_secs": 180, "on_timeout": "leave_running"}),
            "qm shutdown 102 --timeout 180",
            "Done: db (vm:pve1:102) was shut down cleanly (it would have been left running",
        ),
        (
            "start db",
            "vm:pve1:102",
            json!({"operation": "start"}),
            "qm start 102",
            "Done: db (vm:pve1:102) was started; Proxmox reports it running.",
        ),
        (
            "reboot 101",
            "vm:pve1:101",
            json!({"operation": "reboot"}),
            "qm reboot 101",
            "Done: web (vm:pve1:101) was rebooted; Proxmox reports it running.",
        ),
    ];
    for (request, target, operation, command, answer) in cases {
        let out = approved(request, vec![]);
        assert_eq!(out.route.stage, Stage::FastPath, "{request}");
        assert_eq!(out.tools(), ["query", "control", "query"], "{request}");
        let calls = out.calls();
        assert_eq!(calls[0].1, &json!({"action": "get", "target": target}));
        let mut control = json!({"action": "guest", "target": target});
        for (key, value) in operation.as_object().unwrap() {
            control[key] = value.clone();
        }
        assert_eq!(calls[1].1, &control, "{request}");
        assert_eq!(calls[2].1, &json!({"action": "health", "target": target}));
        assert!(asked_for_approval(&out), "{request}");
        assert_eq!(
            out.commands,
            [("node:pve1".to_string(), command.to_string())],
            "{request}"
        );
        assert!(out.text.starts_with(answer), "{request}: {}", out.text);
    }
}

#[test]
fn done_only_when_proxmox_reports_the_new_status() {
    let out = Pve {
        refresh: false,
        ..Pve::default()
    }
    .ask("stop web", vec![]);
    assert!(!out.text.contains("Done"), "{}", out.text);
    assert!(
        out.text.starts_with(
            "web (vm:pve1:101) was shut down cleanly (a shutdown that stops it hard if it has not finished after 180 s), but Proxmox still reports it running, not stopped."
        ),
        "{}",
        out.text
    );
}

#[test]
fn a_locked_guest_is_refused_before_any_approval() {
    // homepage-docker (lxc:pve1:141) is locked by a backup.
    for request in [
        "shut down ct 141",
        "snapshot ct 141",
        "reboot homepage-docker",
    ] {
        let out = approved(request, vec![]);
        assert!(!asked_for_approval(&out), "{request}");
        assert!(out.commands.is_empty(), "{request}: {:?}", out.commands);
        assert!(
            out.text.contains("is locked (backup: a backup is running)"),
            "{request}: {}",
            out.text
        );
    }
}

#[test]
fn a_shutdown_proxmox_forced_is_never_called_clean() {
    let out = approved(
        "stop web",
        vec![task(
            "qm shutdown 101 --timeout 180 --forceStop 1",
            r#"{"forced": true, "forced_evidence": "task log: \"VM still running - terminating now with SIGTERM\""}"#,
            "",
            0,
        )],
    );
    assert!(!out.text.contains("cleanly ("), "{}", out.text);
    assert!(
        out.text.starts_with(
            "Done: web (vm:pve1:101) was forced off, not shut down cleanly: it had not shut down after 180 s, so Proxmox stopped it hard (task log: \"VM still running - terminating now with SIGTERM\"); Proxmox reports it stopped."
        ),
        "{}",
        out.text
    );
}

#[test]
fn a_failed_task_is_verified_and_reported_with_its_exit_status_and_log() {
    let out = approved(
        "start db",
        vec![task(
            "qm start 102",
            "starting vm 102\nTASK ERROR: unable to open file '/dev/pve/vm-102-disk-0'",
            "unable to open file '/dev/pve/vm-102-disk-0'",
            1,
        )],
    );
    assert_eq!(out.tools(), ["query", "control", "query"]);
    assert_eq!(
        out.text,
        "Could not start db (vm:pve1:102): the Proxmox task `qm start 102` failed: unable to open file '/dev/pve/vm-102-disk-0' (EXECUTION_FAILED).\n  task exit status: unable to open file '/dev/pve/vm-102-disk-0'\n  task log (last lines):\n    starting vm 102\n    TASK ERROR: unable to open file '/dev/pve/vm-102-disk-0'\nAfterwards: Proxmox reports db stopped."
    );
}

#[test]
fn nothing_runs_while_the_approval_is_pending() {
    let out = Pve {
        decision: Decision::Pending,
        ..Pve::default()
    }
    .ask("stop web", vec![]);
    assert!(out.commands.is_empty(), "{:?}", out.commands);
    assert!(
        out.text
            .starts_with("Not done yet: stop web (vm:pve1:101) needs approval."),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("qm shutdown 101 --timeout 180 --forceStop 1"),
        "{}",
        out.text
    );
    let read_only = Pve {
        level: ControlLevel::ReadOnly,
        ..Pve::default()
    }
    .ask("stop web", vec![]);
    assert!(read_only.commands.is_empty());
    assert!(
        read_only.text.contains("POLICY_BLOCKED"),
        "{}",
        read_only.text
    );
}

#[test]
fn kill_is_only_for_guests() {
    let out = approved("kill ops", vec![]);
    assert!(out.calls().is_empty());
    assert!(out.text.contains("won't force stop ops"), "{}", out.text);
    let service = approved("kill nginx", vec![]);
    assert!(service.calls().is_empty());
    assert_eq!(
        service.text,
        "A force stop is for VMs and LXC containers, and I know no VM or LXC called nginx. To stop a service or a container, say \"stop nginx\"; nothing was done."
    );
}

const SNAPSHOTS: &str = r#"[
    {"name": "base", "taken_at": 1793520000, "is_current_parent": false},
    {"name": "before-upgrade", "taken_at": 1795429800, "parent": "base", "is_current_parent": true}
]"#;

#[test]
fn rollback_checks_the_snapshot_then_asks_then_verifies() {
    for request in [
        "roll back web to before-upgrade",
        "rollback vm 101 to snapshot before-upgrade",
        "restore web from before-upgrade",
        "revert to snapshot before-upgrade on web",
    ] {
        let out = approved(request, vec![task("qm listsnapshot 101", SNAPSHOTS, "", 0)]);
        assert_eq!(out.route.route, "rollback", "{request}");
        assert_eq!(
            out.tools(),
            ["query", "snapshot", "snapshot", "snapshot", "query"],
            "{request}"
        );
        let calls = out.calls();
        assert_eq!(calls[1].1["action"], "list");
        assert_eq!(
            calls[2].1,
            &json!({"action": "rollback", "target": "vm:pve1:101", "name": "before-upgrade"})
        );
        assert_eq!(calls[3].1["action"], "list");
        assert_eq!(calls[4].1["action"], "health");
        assert!(asked_for_approval(&out), "{request}");
        assert!(
            out.ran("qm rollback 101 before-upgrade"),
            "{:?}",
            out.commands
        );
        assert_eq!(
            out.text,
            "Done: web (vm:pve1:101) was rolled back to `before-upgrade`: it now runs from that snapshot, and every change since it is gone. Proxmox reports it stopped. Say \"start web\" to start it.",
            "{request}"
        );
    }
}

#[test]
fn rollback_to_a_snapshot_the_guest_does_not_have_is_refused() {
    let out = approved(
        "roll back web to before-upgrad",
        vec![task("qm listsnapshot 101", SNAPSHOTS, "", 0)],
    );
    assert_eq!(out.tools(), ["query", "snapshot"]);
    assert!(!asked_for_approval(&out));
    assert!(!out.ran("rollback"), "{:?}", out.commands);
    assert_eq!(
        out.text,
        "web (vm:pve1:101) has no snapshot called `before-upgrad`, so nothing was rolled back. Did you mean `before-upgrade`?\n  its snapshots, newest first: `before-upgrade`, `base`"
    );
    let none = approved(
        "restore db from nightly",
        vec![task("qm listsnapshot 102", "[]", "", 0)],
    );
    assert_eq!(
        none.text,
        "db (vm:pve1:102) has no snapshots, so there is nothing to roll back to. Nothing was done."
    );
}

#[test]
fn a_snapshot_is_taken_with_approval_and_found_in_the_list() {
    let list = r#"[{"name": "pre-upgrade", "taken_at": 1795429800}]"#;
    let out = approved(
        "take a snapshot of web named pre-upgrade",
        vec![task("qm listsnapshot 101", list, "", 0)],
    );
    assert_eq!(out.tools(), ["query", "snapshot", "snapshot"]);
    assert_eq!(
        out.calls()[1].1,
        &json!({"action": "create", "target": "vm:pve1:101", "name": "pre-upgrade"})
    );
    assert!(asked_for_approval(&out));
    assert!(out.ran("qm snapshot 101 pre-upgrade"), "{:?}", out.commands);
    assert_eq!(
        out.text,
        "Done: snapshot `pre-upgrade` of web (vm:pve1:101) was taken (disk and configuration, not memory); it has 1 snapshot now. To undo later changes: \"roll back web to pre-upgrade\"."
    );
    // Named after the time when the request names none.
    let unnamed = approved("snapshot vm 102", vec![]);
    let name = unnamed.calls()[1].1["name"].as_str().unwrap().to_string();
    assert!(name.starts_with("snap-") && name.len() == 18, "{name}");
    assert!(
        unnamed.text.contains("is not in its snapshot list"),
        "{}",
        unnamed.text
    );
    let bad = approved("take a snapshot of web called 1st", vec![]);
    assert!(bad.calls().is_empty());
    assert!(
        bad.text.starts_with("`1st` is not a name Proxmox accepts"),
        "{}",
        bad.text
    );
}

#[test]
fn a_snapshot_taken_first_is_named_with_how_to_undo() {
    let always = || Pve {
        snapshots: SnapshotPolicy {
            default: SnapshotMode::Always,
            per_tag: Default::default(),
        },
        ..Pve::default()
    };
    let out = always().ask("stop web", vec![]);
    let (node, snapshot) = &out.commands[0];
    assert_eq!(node, "node:pve1");
    assert!(
        snapshot.starts_with("qm snapshot 101 warden-replay-"),
        "{snapshot}"
    );
    assert!(out.ran("qm shutdown 101"), "{:?}", out.commands);
    let name = snapshot.rsplit(' ').next().unwrap();
    assert!(
        out.text
            .starts_with("Done: web (vm:pve1:101) was shut down"),
        "{}",
        out.text
    );
    assert!(
        out.text.ends_with(&format!(
            "\n  snapshot `{name}` of vm:pve1:101 was taken first: roll back to it to undo this"
        )),
        "{}",
        out.text
    );
    let rollback = always().ask(
        "roll back web to before-upgrade",
        vec![task("qm listsnapshot 101", SNAPSHOTS, "", 0)],
    );
    assert!(rollback.ran("qm rollback 101 before-upgrade"));
    assert!(
        rollback
            .text
            .contains("was taken first: roll back to it to undo this"),
        "{}",
        rollback.text
    );
}

/// Without the API, an agent on the node runs `qm`: its snapshot tree is
/// read the same way.
#[test]
fn rollback_through_the_nodes_agent_reads_the_snapshot_tree() {
    let tree = "`-> base                 2026-11-01 08:00:00     no-description\n `-> before-upgrade     2026-11-23 10:30:00     manual\n  `-> current                                  You are here!\n";
    let out = super::ask(
        "roll back media-vm to before-upgrade",
        ControlLevel::Controlled,
        Decision::Approve,
        vec![super::answer("listsnapshot", tree, 0)],
    );
    assert_eq!(
        out.tools(),
        ["query", "snapshot", "snapshot", "snapshot", "query"]
    );
    assert!(out.ran("qm rollback"), "{:?}", out.commands);
    assert!(
        out.text.starts_with(
            "Done: media-vm (vm:pve1:101) was rolled back to `before-upgrade`: it now runs from that snapshot"
        ),
        "{}",
        out.text
    );
    let listed = super::read(
        "snapshots of media-vm",
        vec![super::answer("listsnapshot", tree, 0)],
    );
    assert_eq!(
        listed.text,
        "media-vm (vm:pve1:101) has 2 snapshots, newest first:\n  before-upgrade  2026-11-23 10:30:00  \"manual\"  parent base  <- it runs from this one\n  base            2026-11-01 08:00:00"
    );
}
