//! Changes as whole turns: a write is proposed only when it can work on
//! its target, every target of a list gets its own write, and "Done" is
//! said only when the verification read shows the intended state.

use warden_protocol::ControlLevel;

use crate::agent::{Decision, LoopEvent};

use super::{Outcome, answer, ask};

const UNIT_FOUND: &str = "@@warden:unit-check\nId=nginx.service\nLoadState=loaded\nActiveState=active\nSubState=running\n";

fn approved(message: &str, answers: Vec<crate::simulated::Answer>) -> Outcome {
    ask(
        message,
        ControlLevel::Controlled,
        Decision::Approve,
        answers,
    )
}

#[test]
fn restart_discovers_checks_asks_runs_and_verifies() {
    let out = approved(
        "restart nginx",
        vec![
            answer("@@warden:unit-check", UNIT_FOUND, 0),
            answer("systemctl restart", "", 0),
            answer(
                "systemctl show",
                "Id=nginx.service\nActiveState=active\nSubState=running\nResult=success\nNRestarts=0\n",
                0,
            ),
        ],
    );
    assert_eq!(out.tools(), ["query", "read", "control", "read"]);
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, LoopEvent::ApprovalNeeded { .. }))
    );
    assert!(out.ran("systemctl restart 'nginx'"), "{:?}", out.commands);
    assert!(
        out.text.starts_with("Done: nginx was restarted on web1"),
        "{}",
        out.text
    );
}

#[test]
fn done_only_when_the_verification_shows_it() {
    let out = approved(
        "restart nginx",
        vec![
            answer("@@warden:unit-check", UNIT_FOUND, 0),
            answer("systemctl restart", "", 0),
            answer(
                "systemctl show",
                "Id=nginx.service\nActiveState=failed\nSubState=failed\nResult=exit-code\nExecMainCode=1\nExecMainStatus=3\nNRestarts=2\n",
                0,
            ),
        ],
    );
    assert!(
        out.text.starts_with(
            "nginx was restarted on web1 (host:web1), but it exited again with code 3."
        ),
        "{}",
        out.text
    );
    assert!(!out.text.contains("Done"), "{}", out.text);
    let container = approved(
        "restart jellyfin",
        vec![
            answer("docker restart", "", 0),
            answer(
                "docker inspect",
                r#"[{"State":{"Status":"exited","ExitCode":3,"FinishedAt":"2026-11-23T10:00:00Z"}}]"#,
                0,
            ),
        ],
    );
    assert_eq!(container.tools(), ["query", "docker", "docker"]);
    assert!(
        container.text.starts_with(
            "jellyfin (docker_container:web1:abc123) was restarted, but it exited again with code 3."
        ),
        "{}",
        container.text
    );
}

#[test]
fn a_failed_write_is_still_verified() {
    let out = approved(
        "restart nginx",
        vec![
            answer("@@warden:unit-check", UNIT_FOUND, 0),
            answer("systemctl restart", "", 1),
            answer(
                "systemctl show",
                "Id=nginx.service\nActiveState=failed\nSubState=failed\nResult=exit-code\n",
                0,
            ),
        ],
    );
    assert_eq!(out.tools(), ["query", "read", "control", "read"]);
    assert!(
        out.text.starts_with("Could not restart nginx on web1"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("Afterwards: nginx.service: failed (failed), result exit-code"),
        "{}",
        out.text
    );
}

#[test]
fn no_write_that_cannot_work() {
    // No such unit: nothing is proposed, and the nearest reported service is named.
    let missing = approved(
        "restart ngnix",
        vec![answer(
            "@@warden:unit-check",
            "@@warden:unit-check\nId=ngnix.service\nLoadState=not-found\n",
            0,
        )],
    );
    assert_eq!(missing.tools(), ["query", "read"]);
    assert!(
        missing
            .text
            .starts_with("There is no service called ngnix on web1"),
        "{}",
        missing.text
    );
    assert!(
        missing.text.contains("Did you mean nginx?"),
        "{}",
        missing.text
    );
    // No systemd on the host: no systemctl.
    let bare = approved(
        "restart nginx on bare",
        vec![answer(
            "@@warden:unit-check",
            "@@warden:unit-check\n@@warden:no-systemctl\n",
            0,
        )],
    );
    assert!(!bare.ran("systemctl restart"), "{:?}", bare.commands);
    assert!(
        bare.text
            .starts_with("I can't restart nginx on bare (host:bare): it does not run systemd"),
        "{}",
        bare.text
    );
    // "the cache container" is a container; there is none called cache.
    let cache = approved("please bounce the cache container", vec![]);
    assert!(cache.commands.is_empty(), "{:?}", cache.commands);
    assert_eq!(
        cache.text,
        "I don't know a container called `cache`. Known: jellyfin, redis."
    );
}

#[test]
fn ssh_may_be_sshd() {
    let out = approved(
        "restart ssh",
        vec![
            answer(
                "@@warden:unit-check",
                "@@warden:unit-check\nId=ssh.service\nLoadState=not-found\n\nId=sshd.service\nLoadState=loaded\nActiveState=active\n",
                0,
            ),
            answer(
                "systemctl show",
                "Id=sshd.service\nActiveState=active\nSubState=running\nResult=success\n",
                0,
            ),
        ],
    );
    assert!(out.ran("systemctl restart 'sshd'"), "{:?}", out.commands);
    assert!(out.ran("-- 'sshd.service'"), "{:?}", out.commands);
    assert!(
        out.text.starts_with("Done: sshd was restarted"),
        "{}",
        out.text
    );
}

#[test]
fn every_target_of_a_list_gets_its_own_write_and_check() {
    let out = approved(
        "stop jellyfin and redis",
        vec![answer(
            "docker inspect",
            r#"[{"State":{"Status":"exited","ExitCode":0}}]"#,
            0,
        )],
    );
    assert_eq!(
        out.tools(),
        ["query", "docker", "docker", "query", "docker", "docker"]
    );
    assert!(out.ran("docker stop 'abc123'") && out.ran("docker stop 'def456'"));
    assert!(
        out.text
            .contains("Done: jellyfin (docker_container:web1:abc123) was stopped."),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("Done: redis (docker_container:web1:def456) was stopped."),
        "{}",
        out.text
    );
    // One unknown name: nothing is done to any of them.
    let refused = approved("stop the jellyfin and cache containers", vec![]);
    assert!(refused.commands.is_empty(), "{:?}", refused.commands);
    assert_eq!(
        refused.text,
        "I don't know a container called `cache`. Known: jellyfin, redis. Nothing was done."
    );
    let host = approved("restart jellyfin and web1", vec![]);
    assert!(host.commands.is_empty(), "{:?}", host.commands);
    assert!(
        host.text.starts_with("I won't restart web1"),
        "{}",
        host.text
    );
    assert!(host.text.ends_with("Nothing was done."), "{}", host.text);
}

#[test]
fn a_pending_or_refused_write_is_reported_as_not_done() {
    let found = || vec![answer("@@warden:unit-check", UNIT_FOUND, 0)];
    let pending = ask(
        "restart nginx",
        ControlLevel::Controlled,
        Decision::Pending,
        found(),
    );
    assert!(pending.text.starts_with("Not done yet"), "{}", pending.text);
    assert!(
        pending.text.contains("warden approvals approve"),
        "{}",
        pending.text
    );
    assert!(!pending.ran("systemctl restart"));
    let denied = ask(
        "restart nginx",
        ControlLevel::Controlled,
        Decision::Deny("not now".into()),
        found(),
    );
    assert!(
        denied
            .text
            .starts_with("Not done: restart nginx on web1 (host:web1) was denied"),
        "{}",
        denied.text
    );
    let read_only = ask(
        "restart nginx",
        ControlLevel::ReadOnly,
        Decision::Approve,
        found(),
    );
    assert!(
        read_only.text.contains("POLICY_BLOCKED"),
        "{}",
        read_only.text
    );
    assert!(!read_only.ran("systemctl restart"));
}

#[test]
fn hosts_are_never_rebooted_from_a_one_liner() {
    let out = ask(
        "restart web1",
        ControlLevel::Autonomous,
        Decision::Approve,
        vec![],
    );
    assert!(out.commands.is_empty());
    assert!(out.text.starts_with("I won't restart web1"), "{}", out.text);
}
