//! Running commands for real: the sandbox launcher and Landlock, process
//! groups, timeouts, cancellation, output caps and the clean environment.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::time::Duration;

use tokio::sync::{mpsc, watch};
use warden_agent::exec::{Confinement, ExecSpec, Launcher, run};
use warden_protocol::agent::{AgentFrame, ExecErrorCode, ExecResult, OutputStream};
use warden_protocol::routing::Invocation;

fn launcher() -> Launcher {
    Launcher::standalone(env!("CARGO_BIN_EXE_warden-agent-sandbox"))
}

fn spec(command: &str, confinement: Confinement) -> ExecSpec {
    ExecSpec {
        request_id: "req".into(),
        invocation: Invocation {
            argv: vec!["/bin/sh".into(), "-c".into(), command.into()],
            exec_tag: None,
        },
        hide: None,
        confinement,
        timeout: Duration::from_secs(20),
        max_output_bytes: 64 * 1024,
        kill_grace: Duration::from_secs(1),
    }
}

struct Outcome {
    result: ExecResult,
    stdout: String,
    stderr: String,
    seqs: Vec<u64>,
}

async fn execute(spec: ExecSpec, cancel: watch::Receiver<bool>) -> Outcome {
    let (tx, mut rx) = mpsc::channel(8);
    let collector = tokio::spawn(async move {
        let mut frames = Vec::new();
        while let Some(frame) = rx.recv().await {
            frames.push(frame);
        }
        frames
    });
    let result = run(spec, tx, cancel).await;
    let frames = collector.await.unwrap();
    let mut outcome = Outcome {
        result,
        stdout: String::new(),
        stderr: String::new(),
        seqs: Vec::new(),
    };
    for frame in frames {
        match frame {
            AgentFrame::ExecOutput(chunk) => {
                assert_eq!(chunk.request_id, "req");
                outcome.seqs.push(chunk.seq);
                match chunk.stream {
                    OutputStream::Stdout => outcome.stdout.push_str(&chunk.data),
                    OutputStream::Stderr => outcome.stderr.push_str(&chunk.data),
                }
            }
            other => panic!("unexpected frame {other:?}"),
        }
    }
    outcome
}

fn never_cancelled() -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    // Kept alive for the whole test run: a dropped sender means "no cancel".
    std::mem::forget(tx);
    rx
}

#[tokio::test]
async fn a_sandboxed_read_runs_and_reports_its_landlock_abi() {
    let out = execute(
        spec(
            "cat /etc/hostname; echo to-stderr >&2",
            Confinement::ReadOnlySandbox(launcher()),
        ),
        never_cancelled(),
    )
    .await;
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap();
    assert_eq!(
        out.result.exit_code,
        Some(0),
        "{:?} {}",
        out.result,
        out.stderr
    );
    assert_eq!(out.stdout, hostname);
    assert_eq!(out.stderr, "to-stderr\n");
    assert!(
        !out.stdout.contains("WARDEN-SANDBOX"),
        "the header is not output"
    );
    match out.result.sandbox.landlock_abi {
        Some(abi) => assert!(abi >= 1),
        None => eprintln!("!!! LANDLOCK UNAVAILABLE on this kernel: reads ran unconfined"),
    }
    assert_eq!(out.seqs, (0..out.seqs.len() as u64).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_sandbox_stops_a_write_that_nothing_else_stops() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f");
    let command = format!("echo x > {}; echo written=$?", target.display());
    let sandboxed = execute(
        spec(&command, Confinement::ReadOnlySandbox(launcher())),
        never_cancelled(),
    )
    .await;
    if sandboxed.result.sandbox.landlock_abi.is_none() {
        eprintln!("!!! LANDLOCK UNAVAILABLE on this kernel: the write test cannot run");
        return;
    }
    assert!(!target.exists(), "Landlock let the write through");
    assert!(
        sandboxed.stdout.contains("written=2"),
        "{}",
        sandboxed.stdout
    );
    assert!(
        sandboxed.stderr.contains("Permission denied"),
        "{}",
        sandboxed.stderr
    );
    // /dev/null stays writable, and no_new_privs is set.
    let null = execute(
        spec(
            "echo x > /dev/null && grep NoNewPrivs /proc/self/status",
            Confinement::ReadOnlySandbox(launcher()),
        ),
        never_cancelled(),
    )
    .await;
    assert_eq!(null.result.exit_code, Some(0), "{}", null.stderr);
    assert!(null.stdout.contains("NoNewPrivs:\t1"), "{}", null.stdout);
    // The same command unconfined does write: the sandbox made the difference.
    let unconfined = execute(spec(&command, Confinement::Unconfined), never_cancelled()).await;
    assert_eq!(unconfined.result.exit_code, Some(0));
    assert!(target.exists());
    assert_eq!(unconfined.result.sandbox.landlock_abi, None);
}

#[tokio::test]
async fn exit_codes_and_the_clean_environment() {
    let out = execute(
        spec("env; exit 3", Confinement::Unconfined),
        never_cancelled(),
    )
    .await;
    assert_eq!(out.result.exit_code, Some(3));
    assert!(out.result.error.is_none());
    let names: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .filter(|k| *k != "PWD" && *k != "SHLVL" && *k != "_")
        .collect();
    for name in &names {
        assert!(
            [
                "PATH",
                "LANG",
                "LC_ALL",
                "TERM",
                "NO_COLOR",
                "PAGER",
                "SYSTEMD_PAGER",
                "SYSTEMD_COLORS",
                "GIT_PAGER",
                "DEBIAN_FRONTEND",
                "HOME"
            ]
            .contains(name),
            "leaked variable {name}"
        );
    }
    assert!(names.contains(&"LANG"));
}

#[tokio::test]
async fn a_timeout_kills_the_process_group() {
    let mut slow = spec("sleep 20", Confinement::Unconfined);
    slow.timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let out = execute(slow, never_cancelled()).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let error = out.result.error.unwrap();
    assert_eq!(error.code, ExecErrorCode::Timeout);
    assert_eq!(out.result.exit_code, None);
}

fn is_alive(pid: i32) -> bool {
    // A zombie (exited, not yet reaped by its new parent) is dead too.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap().split_whitespace().next();
            !matches!(state, Some("Z") | Some("X"))
        }
        Err(_) => false,
    }
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group() {
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let spec = spec("sleep 30 & echo $!; wait", Confinement::Unconfined);
    let (tx, mut rx) = mpsc::channel(8);
    let task = tokio::spawn(run(spec, tx, cancel_rx));
    let Some(AgentFrame::ExecOutput(first)) = rx.recv().await else {
        panic!("no output");
    };
    let child: i32 = first.data.trim().parse().unwrap();
    assert!(is_alive(child));
    cancel_tx.send(true).unwrap();
    let result = task.await.unwrap();
    assert_eq!(result.error.unwrap().code, ExecErrorCode::Cancelled);
    for _ in 0..50 {
        if !is_alive(child) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the background sleep {child} survived the cancel");
}

#[tokio::test]
async fn a_sandboxed_read_is_cancelled_too() {
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let spec = spec("sleep 30", Confinement::ReadOnlySandbox(launcher()));
    let (tx, _rx) = mpsc::channel(8);
    let task = tokio::spawn(run(spec, tx, cancel_rx));
    tokio::time::sleep(Duration::from_millis(200)).await;
    cancel_tx.send(true).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(result.error.unwrap().code, ExecErrorCode::Cancelled);
}

#[tokio::test]
async fn output_over_the_cap_keeps_head_and_tail() {
    let mut big = spec(
        "i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done",
        Confinement::Unconfined,
    );
    big.max_output_bytes = 200;
    let out = execute(big, never_cancelled()).await;
    assert!(out.result.truncated);
    assert!(out.stdout.starts_with("line-0\nline-1\n"), "{}", out.stdout);
    assert!(out.stdout.ends_with("line-1999\n"), "{}", out.stdout);
    assert!(out.stdout.contains("bytes omitted"), "{}", out.stdout);
    assert!(out.stdout.len() < 300, "{}", out.stdout.len());
    let small = execute(spec("echo hi", Confinement::Unconfined), never_cancelled()).await;
    assert!(!small.result.truncated);
}

#[tokio::test]
async fn a_launcher_that_does_not_sandbox_means_no_run() {
    let fake = Launcher {
        program: "/bin/echo".into(),
        args: vec!["not-a-header".into()],
    };
    let out = execute(
        spec("echo ran", Confinement::ReadOnlySandbox(fake)),
        never_cancelled(),
    )
    .await;
    let error = out.result.error.unwrap();
    assert_eq!(error.code, ExecErrorCode::ExecFailed, "{}", error.message);
    let missing = Launcher::standalone("/nonexistent/warden");
    let out = execute(
        spec("echo ran", Confinement::ReadOnlySandbox(missing)),
        never_cancelled(),
    )
    .await;
    assert_eq!(out.result.error.unwrap().code, ExecErrorCode::ExecFailed);
}
