//! A hostile (or compromised) server: every write without a valid grant,
//! every read that is really a write, every command above `--max-level`,
//! is refused by the agent itself, with the right code and reason, and
//! logged in the agent's own event log.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use std::path::Path;

use ed25519_dalek::SigningKey;
use support::{
    AgentConn, RunningAgent, TestServer, agent_config, claims_for, enroll_agent, read, refusals,
    start_agent, write,
};
use warden_protocol::ControlLevel;
use warden_protocol::agent::{
    AgentFrame, ExecErrorCode, GrantClaims, GrantInvalidReason, command_sha256,
};

const AGENT: &str = "agt_web1";
const HOST: &str = "host:web1";

async fn setup(
    level: ControlLevel,
) -> (
    TestServer,
    tempfile::TempDir,
    std::path::PathBuf,
    RunningAgent,
    AgentConn,
) {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "web1", dir.path()).await;
    let mut config = agent_config(&state_dir);
    config.max_level = level;
    let agent = start_agent(config);
    let conn = server.next_connection().await;
    (server, dir, state_dir, agent, conn)
}

/// A file `write_target` in the temp dir, created by a granted write.
fn touch_command(dir: &Path, name: &str) -> (String, std::path::PathBuf) {
    let file = dir.join(name);
    (format!("touch {}", file.display()), file)
}

fn assert_refused_logged(state_dir: &Path, request_id: &str, code: &str, reason: Option<&str>) {
    let log = refusals(state_dir);
    let entry = log
        .iter()
        .find(|e| e["request_id"] == request_id)
        .unwrap_or_else(|| panic!("{request_id} not in the event log: {log:?}"));
    assert_eq!(entry["event"], "refused");
    assert_eq!(entry["code"], code);
    if let Some(reason) = reason {
        assert_eq!(entry["reason"], reason);
    }
    assert!(entry["command"].is_string());
    assert!(entry["at"].is_string());
}

#[tokio::test]
async fn a_read_runs_and_streams_its_output() {
    let (_server, _dir, _state, agent, mut conn) = setup(ControlLevel::Controlled).await;
    let out = conn
        .exec(read(
            "r1",
            HOST,
            "printf 'one\\n'; printf 'two\\n' >&2; cat /etc/hostname",
        ))
        .await;
    assert_eq!(out.result.exit_code, Some(0), "{:?}", out.result);
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap();
    assert_eq!(out.stdout(), format!("one\n{hostname}"));
    assert_eq!(out.stderr(), "two\n");
    let seqs: Vec<u64> = out.chunks.iter().map(|c| c.seq).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    assert!(out.result.sandbox.landlock_abi.is_some_and(|abi| abi >= 1));
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn reads_that_are_really_writes_are_refused() {
    let (_server, dir, state_dir, agent, mut conn) = setup(ControlLevel::Autonomous).await;
    let victim = dir.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep"), "data").unwrap();
    let cases = [
        format!("rm -rf {}", victim.display()),
        format!("find {} -delete", victim.display()),
        format!("sed -i s/data/gone/ {}/keep", victim.display()),
        format!("echo gone > {}/keep", victim.display()),
        "rm -rf /".to_string(),
    ];
    for (index, command) in cases.iter().enumerate() {
        let id = format!("sneaky-{index}");
        let out = conn.exec(read(&id, HOST, command)).await;
        let error = out.result.error.expect("refused");
        assert_eq!(error.code, ExecErrorCode::PolicyBlocked, "{command}");
        assert!(out.chunks.is_empty());
        assert_refused_logged(&state_dir, &id, "POLICY_BLOCKED", None);
    }
    assert_eq!(
        std::fs::read_to_string(victim.join("keep")).unwrap(),
        "data"
    );
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn every_invalid_grant_is_refused_with_its_reason() {
    let (server, dir, state_dir, agent, mut conn) = setup(ControlLevel::Autonomous).await;
    let (command, file) = touch_command(dir.path(), "should-not-exist");
    let rogue = SigningKey::from_bytes(&[13; 32]);
    let base = |id: &str| claims_for(AGENT, id, HOST, &command);
    let cases: Vec<(
        &str,
        Option<warden_protocol::agent::Grant>,
        GrantInvalidReason,
    )> = vec![
        ("unsigned", None, GrantInvalidReason::Missing),
        (
            "rogue-key",
            Some(base("rogue-key").sign(&rogue)),
            GrantInvalidReason::Signature,
        ),
        (
            "other-agent",
            Some(server.grant(GrantClaims {
                agent_id: "agt_db1".into(),
                ..base("other-agent")
            })),
            GrantInvalidReason::Agent,
        ),
        (
            "other-request",
            Some(server.grant(base("some-other-request"))),
            GrantInvalidReason::Request,
        ),
        (
            "other-command",
            Some(server.grant(GrantClaims {
                command_sha256: command_sha256("touch /tmp/elsewhere"),
                ..base("other-command")
            })),
            GrantInvalidReason::Command,
        ),
        (
            "other-target",
            Some(server.grant(GrantClaims {
                target: "host:db1".into(),
                ..base("other-target")
            })),
            GrantInvalidReason::Target,
        ),
        (
            "expired",
            Some(server.grant(GrantClaims {
                expires_at: warden_agent::dispatch::now_ms() - 1,
                ..base("expired")
            })),
            GrantInvalidReason::Expired,
        ),
        (
            "too-long",
            Some(server.grant(GrantClaims {
                expires_at: warden_agent::dispatch::now_ms() + 3_600_000,
                ..base("too-long")
            })),
            GrantInvalidReason::Expired,
        ),
    ];
    for (id, grant, reason) in cases {
        let out = conn.exec(write(id, HOST, &command, grant)).await;
        let error = out.result.error.unwrap_or_else(|| panic!("{id} ran"));
        assert_eq!(
            error.code,
            ExecErrorCode::GrantInvalid,
            "{id}: {}",
            error.message
        );
        assert_eq!(error.reason, Some(reason), "{id}");
        assert_refused_logged(&state_dir, id, "GRANT_INVALID", Some(reason.as_str()));
    }
    assert!(!file.exists(), "a refused write ran");
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn a_valid_grant_runs_once_and_its_replay_is_refused_even_after_a_restart() {
    let (server, dir, state_dir, agent, mut conn) = setup(ControlLevel::Controlled).await;
    let (command, file) = touch_command(dir.path(), "made-by-grant");
    let grant = server.grant(claims_for(AGENT, "w1", HOST, &command));
    let out = conn
        .exec(write("w1", HOST, &command, Some(grant.clone())))
        .await;
    assert_eq!(out.result.exit_code, Some(0), "{:?}", out.result);
    assert!(out.result.error.is_none());
    assert_eq!(
        out.result.sandbox.landlock_abi, None,
        "writes run unsandboxed"
    );
    assert!(file.exists());
    std::fs::remove_file(&file).unwrap();

    let replay = conn
        .exec(write("w1", HOST, &command, Some(grant.clone())))
        .await;
    let error = replay.result.error.unwrap();
    assert_eq!(error.reason, Some(GrantInvalidReason::Replayed));
    assert!(!file.exists());

    // The agent restarts: the nonce is still known.
    agent.stop().await.unwrap();
    let agent = start_agent(agent_config(&state_dir));
    let mut conn = server.next_connection().await;
    let replay = conn.exec(write("w1", HOST, &command, Some(grant))).await;
    assert_eq!(
        replay.result.error.unwrap().reason,
        Some(GrantInvalidReason::Replayed)
    );
    assert!(!file.exists());
    assert_eq!(
        refusals(&state_dir)
            .iter()
            .filter(|e| e["reason"] == "replayed")
            .count(),
        2
    );
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn max_level_read_only_refuses_an_approved_write() {
    let (server, dir, state_dir, agent, mut conn) = setup(ControlLevel::ReadOnly).await;
    let (command, file) = touch_command(dir.path(), "read-only-agent");
    let grant = server.grant(claims_for(AGENT, "w-ro", HOST, &command));
    let out = conn.exec(write("w-ro", HOST, &command, Some(grant))).await;
    let error = out.result.error.unwrap();
    assert_eq!(error.code, ExecErrorCode::PolicyBlocked);
    assert!(error.message.contains("read_only"), "{}", error.message);
    assert!(!file.exists());
    assert_refused_logged(&state_dir, "w-ro", "POLICY_BLOCKED", None);
    // Reads still run.
    let out = conn.exec(read("r-ro", HOST, "echo fine")).await;
    assert_eq!(out.stdout(), "fine\n");
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn controlled_needs_the_approval_in_the_grant() {
    let (server, dir, _state, agent, mut conn) = setup(ControlLevel::Controlled).await;
    let (command, file) = touch_command(dir.path(), "unapproved");
    let grant = server.grant(GrantClaims {
        approval_id: None,
        approved_by: None,
        ..claims_for(AGENT, "w-na", HOST, &command)
    });
    let out = conn.exec(write("w-na", HOST, &command, Some(grant))).await;
    let error = out.result.error.unwrap();
    assert_eq!(error.code, ExecErrorCode::PolicyBlocked);
    assert!(error.message.contains("approval_id"), "{}", error.message);
    assert!(!file.exists());
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn catastrophic_commands_are_refused_even_with_a_valid_grant() {
    let (server, _dir, state_dir, agent, mut conn) = setup(ControlLevel::Autonomous).await;
    for (index, command) in [
        "rm -rf / --no-preserve-root",
        "mkfs.ext4 /dev/sdz1",
        ":(){ :|:& };:",
    ]
    .iter()
    .enumerate()
    {
        let id = format!("cat-{index}");
        let grant = server.grant(claims_for(AGENT, &id, HOST, command));
        let out = conn.exec(write(&id, HOST, command, Some(grant))).await;
        assert_eq!(
            out.result.error.unwrap().code,
            ExecErrorCode::PolicyBlocked,
            "{command}"
        );
        assert_refused_logged(&state_dir, &id, "POLICY_BLOCKED", None);
    }
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn unknown_targets_malformed_frames_and_unknown_types() {
    let (_server, _dir, state_dir, agent, mut conn) = setup(ControlLevel::Autonomous).await;
    for (id, target) in [
        ("t1", "host:db1"),
        ("t2", "lxc:web1:999"),
        ("t3", "nonsense"),
    ] {
        let out = conn.exec(read(id, target, "uptime")).await;
        assert_eq!(
            out.result.error.unwrap().code,
            ExecErrorCode::UnknownTarget,
            "{target}"
        );
        assert_refused_logged(&state_dir, id, "UNKNOWN_TARGET", None);
    }
    // A frame of a type this version does not know is ignored...
    conn.send_text(r#"{"type": "shell_v2", "request_id": "x", "command": "rm -rf /"}"#);
    // ...an exec missing its fields is refused, not guessed at...
    conn.send_text(r#"{"type": "exec", "request_id": "bad-1", "command": "uptime"}"#);
    let out = conn.collect("bad-1").await;
    assert_eq!(out.result.error.unwrap().code, ExecErrorCode::PolicyBlocked);
    // ...a write whose grant is malformed is an invalid grant...
    conn.send_text(&format!(
        r#"{{"type": "exec", "request_id": "bad-2", "target": "{HOST}", "command": "touch /tmp/x",
            "class": "write", "timeout_ms": 1000, "max_output_bytes": 100,
            "grant": {{"v": 1, "signature": 7}}}}"#
    ));
    let out = conn.collect("bad-2").await;
    let error = out.result.error.unwrap();
    assert_eq!(error.code, ExecErrorCode::GrantInvalid);
    assert_eq!(error.reason, Some(GrantInvalidReason::Signature));
    // ...and the connection still serves.
    let out = conn.exec(read("after", HOST, "echo still-here")).await;
    assert_eq!(out.stdout(), "still-here\n");
    agent.stop().await.unwrap();
}

/// Live (not zombie) processes in process group `group`.
fn group_members(group: i32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            let fields: Vec<&str> = stat
                .rsplit(')')
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            fields.first() != Some(&"Z") && fields.get(2) == Some(&group.to_string().as_str())
        })
        .count()
}

#[tokio::test]
async fn cancel_timeout_and_output_cap_over_the_wire() {
    let (server, dir, _state, agent, mut conn) = setup(ControlLevel::Autonomous).await;
    // Cancel: the whole process group dies (the shell leads it).
    let pid_file = dir.path().join("group.pid");
    let command = format!("echo $$ > {}; sleep 30 | cat", pid_file.display());
    let grant = server.grant(claims_for(AGENT, "c1", HOST, &command));
    conn.send(AgentFrame::Exec(write("c1", HOST, &command, Some(grant))));
    let mut child = None;
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && let Ok(pid) = text.trim().parse::<i32>()
        {
            child = Some(pid);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let group = child.expect("the command never started");
    assert!(
        group_members(group) >= 2,
        "sleep and cat run in group {group}"
    );
    conn.send(AgentFrame::Cancel(warden_protocol::agent::CancelRequest {
        request_id: "c1".into(),
    }));
    let out = conn.collect("c1").await;
    assert_eq!(out.result.error.unwrap().code, ExecErrorCode::Cancelled);
    let mut left = usize::MAX;
    for _ in 0..100 {
        left = group_members(group);
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(left, 0, "members of group {group} outlived the cancel");

    // Timeout.
    let mut slow = read("t1", HOST, "sleep 10");
    slow.timeout_ms = 300;
    let out = conn.exec(slow).await;
    assert_eq!(out.result.error.unwrap().code, ExecErrorCode::Timeout);

    // Output cap.
    let mut big = read("o1", HOST, "seq 1 20000");
    big.max_output_bytes = 1000;
    let out = conn.exec(big).await;
    assert!(out.result.truncated);
    let text = out.stdout();
    assert!(text.starts_with("1\n2\n3\n"), "{text}");
    assert!(text.ends_with("19999\n20000\n"), "{text}");
    assert!(text.len() < 1100, "{}", text.len());
    agent.stop().await.unwrap();
}

#[tokio::test]
async fn a_lost_connection_stops_reads_but_not_writes() {
    let (server, dir, state_dir, agent, conn) = setup(ControlLevel::Autonomous).await;
    let marker = dir.path().join("write-finished");
    let command = format!("sleep 1; touch {}", marker.display());
    let grant = server.grant(claims_for(AGENT, "w-lost", HOST, &command));
    conn.send(AgentFrame::Exec(write(
        "w-lost",
        HOST,
        &command,
        Some(grant),
    )));
    conn.send(AgentFrame::Exec(read("r-lost", HOST, "sleep 30")));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (state, addr) = server.stop().await;
    // The write finishes on its own; its result could not be delivered,
    // so the agent records what happened.
    for _ in 0..200 {
        if refusals(&state_dir)
            .iter()
            .any(|e| e["event"] == "undelivered_result" && e["request_id"] == "w-lost")
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(
        marker.exists(),
        "the write was interrupted by the disconnect"
    );
    let log = refusals(&state_dir);
    let read_entry = log
        .iter()
        .find(|e| e["request_id"] == "r-lost")
        .expect("the read's fate is recorded");
    assert_eq!(read_entry["code"], "CANCELLED");
    let server = TestServer::start_with(state, Some(addr)).await;
    let _conn = server.next_connection().await;
    agent.stop().await.unwrap();
}
