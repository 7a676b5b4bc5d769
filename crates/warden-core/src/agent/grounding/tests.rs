use serde_json::{Value, json};
use warden_protocol::ToolKind;

use super::*;

fn ok(data: Value) -> Value {
    json!({"ok": true, "data": data})
}

fn read(evidence: &mut Evidence, target: &str, command: &str, stdout: &str) {
    evidence.record(
        "read",
        &json!({"action": "exec", "target": target, "command": command}),
        ToolKind::Read,
        &ok(json!({"target": target, "exit_code": 0, "stdout": stdout, "stderr": ""})),
    );
}

fn write(evidence: &mut Evidence, arguments: Value) {
    evidence.record(
        "control",
        &arguments,
        ToolKind::Write,
        &ok(json!({"exit_code": 0, "stdout": "", "stderr": ""})),
    );
}

/// The phrasings of issue 18 §4 that slipped through, and their siblings.
const UNSEEN_CLAIMS: &[&str] = &[
    "Reloaded haproxy with the new backend list.",
    "Took a snapshot of web named before-upgrade.",
    "Port 22 is open and sshd answers on web1.",
    "Running containers: jellyfin, sonarr and traefik.",
    "web1 runs kernel 6.8.12-4-pve.",
    "The mail queue holds 312 messages.",
];

#[test]
fn with_no_tool_call_every_unseen_phrasing_is_retracted() {
    let evidence = Evidence::new("what's up with web1?");
    for answer in UNSEEN_CLAIMS {
        assert!(
            matches!(judge(answer, &evidence), Judgement::Retract(_)),
            "{answer}"
        );
    }
}

#[test]
fn honest_answers_without_tools_stand() {
    let evidence = Evidence::new("restart nginx on web1");
    for answer in [
        "I can restart nginx on web1 once you approve.",
        "I have not restarted anything yet.",
        "Should I restart nginx on web1?",
        "To reload it yourself, run `systemctl reload nginx`.",
        "nginx listens on port 80 by default.",
        "Plan: check the config, then reload nginx.",
    ] {
        assert_eq!(judge(answer, &evidence), Judgement::Grounded, "{answer}");
    }
}

#[test]
fn the_users_own_statements_are_evidence_but_questions_are_not() {
    let stated = Evidence::new("My disk on web1 is at 93%, what should I clean first?");
    assert_eq!(
        judge(
            "With the disk at 93% full, start with old journal files.",
            &stated
        ),
        Judgement::Grounded
    );
    let asked = Evidence::new("is nginx running on web1?");
    assert!(matches!(
        judge("nginx is running on web1.", &asked),
        Judgement::Retract(_)
    ));
}

#[test]
fn facts_found_in_tool_results_are_grounded_in_any_spelling() {
    let mut evidence = Evidence::new("how is web1 doing?");
    read(
        &mut evidence,
        "web1",
        "uname -r; mailq | tail -1; df -h /",
        "6.8.12-4-pve\n-- 312 Kbytes in 312 Requests.\n/dev/sda1 50G 47G 1.5G 97% /",
    );
    read(
        &mut evidence,
        "web1",
        "docker ps --format '{{.Names}} {{.Status}}'",
        "jellyfin Up 3 hours\nsonarr Up 3 hours\ntraefik Up 2 days",
    );
    for answer in [
        "web1 runs kernel 6.8.12-4-pve.",
        "The mail queue holds 312 messages.",
        "The root filesystem has 1.5 GiB free (97% used).",
        "Running containers: jellyfin, sonarr and traefik.",
        "jellyfin is running.",
    ] {
        assert_eq!(judge(answer, &evidence), Judgement::Grounded, "{answer}");
    }
}

#[test]
fn facts_missing_from_tool_results_mark_the_answer_unverified() {
    let mut evidence = Evidence::new("what runs on web1?");
    read(
        &mut evidence,
        "web1",
        "docker ps",
        "jellyfin Up 3 hours\nsonarr Up 3 hours",
    );
    for (answer, missing) in [
        (
            "Running containers: jellyfin, sonarr and traefik.",
            "`traefik`",
        ),
        ("The mail queue holds 312 messages.", "the number 312"),
        ("web1 runs kernel 6.8.12-4-pve.", "`6.8.12-4-pve`"),
        (
            "Reloaded haproxy with the new backend list.",
            "no successful change",
        ),
    ] {
        match judge(answer, &evidence) {
            Judgement::Unverified(gaps) => assert!(
                gaps.iter()
                    .any(|g| g.missing.iter().any(|m| m.contains(missing))),
                "{answer}: {gaps:?}"
            ),
            other => panic!("{answer}: {other:?}"),
        }
    }
}

#[test]
fn an_action_is_grounded_by_a_successful_write_that_did_it() {
    let mut evidence = Evidence::new("reload haproxy and snapshot web first");
    write(
        &mut evidence,
        json!({"action": "snapshot", "target": "web", "name": "before-upgrade"}),
    );
    write(
        &mut evidence,
        json!({"action": "service", "target": "lb1", "service": "haproxy", "operation": "reload"}),
    );
    for answer in [
        "Took a snapshot of web named before-upgrade.",
        "Reloaded haproxy with the new backend list.",
        "haproxy was reloaded.",
    ] {
        assert_eq!(judge(answer, &evidence), Judgement::Grounded, "{answer}");
    }
    assert!(matches!(
        judge("I restarted postgres as well.", &evidence),
        Judgement::Unverified(_)
    ));
}

#[test]
fn a_failed_write_is_named_with_its_status_and_error() {
    let mut evidence = Evidence::new("restart nginx on web1");
    evidence.record(
        "control",
        &json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
        ToolKind::Write,
        &json!({"ok": false, "error": {"code": "EXECUTION_FAILED", "message": "exit code 1",
            "blocked": false, "failed": true, "retryable": false,
            "details": {"output": {"exit_code": 1, "stdout": "",
                "stderr": "Job for nginx.service failed because the control process exited with error code.\nSee \"systemctl status nginx.service\""}}}}),
    );
    let text = unverified_write_text(&evidence);
    assert!(text.contains("exited with status 1"), "{text}");
    assert!(
        text.contains(
            "Job for nginx.service failed because the control process exited with error code."
        ),
        "{text}"
    );
    assert!(!text.contains("I made a change"), "{text}");
    assert!(!text.contains("See \"systemctl"), "{text}");
    // An API write fails without an exit status: its message says why.
    let mut api = Evidence::new("stop vm 101");
    api.record(
        "control",
        &json!({"action": "guest", "target": "vm:pve1:101", "operation": "stop"}),
        ToolKind::Write,
        &json!({"ok": false, "error": {"code": "EXECUTION_FAILED",
            "message": "VM 101 qmp command failed: got timeout", "blocked": false}}),
    );
    let text = unverified_write_text(&api);
    assert!(
        text.contains("failed: VM 101 qmp command failed: got timeout"),
        "{text}"
    );
    // A write that succeeded is a change.
    let mut done = Evidence::new("restart nginx");
    write(
        &mut done,
        json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
    );
    assert_eq!(unverified_write_text(&done), UNVERIFIED_CHANGE);
}
