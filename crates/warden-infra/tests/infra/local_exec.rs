//! LocalExecutor against real processes. Every command is harmless (prints,
//! sleeps) or works inside a temporary directory.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::time::{Duration, Instant};

use warden_infra::runner::FIXED_PATH;
use warden_infra::{ExecError, ExecOptions, LocalExecutor};
use warden_protocol::CancelFlag;

fn executor() -> LocalExecutor {
    LocalExecutor::new()
}

/// The processes (not zombies) whose process group is `pgid`, from /proc.
fn live_members_of_group(pgid: i32) -> Vec<String> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …: comm may hold spaces, so split after ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            members.push(head.to_string());
        }
    }
    members
}

#[test]
fn exit_codes_and_streams() {
    let out = executor().run("echo out; echo err >&2; exit 3").unwrap();
    assert_eq!(out.stdout, "out\n");
    assert_eq!(out.stderr, "err\n");
    assert_eq!(out.exit_code, 3);
    assert!(!out.success());
    assert_eq!(out.signal, None);
    assert!(!out.truncated);

    let out = executor().run("true").unwrap();
    assert!(out.success());
    assert_eq!(out.stdout, "");
}

#[test]
fn a_command_that_fails_is_data_not_an_error() {
    let out = executor().run("ls /surely/not/here/warden").unwrap();
    assert_eq!(out.exit_code, 2);
    assert!(out.stderr.contains("No such file"), "{}", out.stderr);
}

#[test]
fn death_by_signal_is_reported_as_128_plus_signal() {
    let out = executor().run("kill -KILL $$").unwrap();
    assert_eq!(out.exit_code, 137);
    assert_eq!(out.signal, Some(9));
    assert_eq!(out.signal_name(), Some("SIGKILL"));
}

#[test]
fn huge_output_keeps_head_and_tail() {
    let started = Instant::now();
    let out = executor().run("seq 1 2000000").unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(out.success());
    assert!(out.truncated);
    assert!(out.stdout.starts_with("1\n2\n3\n"), "{}", &out.stdout[..20]);
    assert!(out.stdout.ends_with("1999999\n2000000\n"));
    assert!(out.stdout.contains(" bytes omitted] …\n"));
    // About the limit (64 KiB) plus one marker line.
    assert!(out.stdout.len() < 64 * 1024 + 100, "{}", out.stdout.len());
    assert!(out.stdout.len() > 60 * 1024);
    // The omitted count is exact: seq 1 2000000 prints 14_888_896 bytes.
    let marker_line = out
        .stdout
        .lines()
        .find(|l| l.contains("bytes omitted"))
        .unwrap();
    let omitted: usize = marker_line
        .trim_start_matches("… [")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // ASCII only, so no cut moved to a character boundary: exactly 64 KiB kept.
    assert_eq!(omitted, 14_888_896 - 64 * 1024);
}

#[test]
fn both_streams_are_drained_concurrently() {
    // 1 MiB to stderr first: with sequential reading the pipe would fill and
    // the command would block forever on stderr while we waited on stdout.
    let out = executor()
        .run("head -c 1048576 /dev/zero | tr '\\0' e >&2; echo done")
        .unwrap();
    assert_eq!(out.stdout, "done\n");
    assert!(out.truncated);
    assert!(out.stderr.starts_with("eeee"));
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let exec = LocalExecutor::with_options(
        ExecOptions::default().with_timeout(Duration::from_millis(700)),
    );
    let started = Instant::now();
    let err = exec
        .run("echo $$; echo started >&2; sleep 31 & sleep 32; wait")
        .unwrap_err();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    let ExecError::TimedOut { limit, partial } = &err else {
        panic!("expected a timeout, got {err:?}");
    };
    assert_eq!(*limit, Duration::from_millis(700));
    assert_eq!(partial.stderr, "started\n");
    assert!(err.to_string().contains("timed out after 700ms"), "{err}");
    // The shell led the group: $$ is the group id. Nothing of it may be left,
    // in particular not the background `sleep 31` (a grandchild).
    let pgid: i32 = partial.stdout.trim().parse().unwrap();
    assert_eq!(live_members_of_group(pgid), Vec::<String>::new());
}

#[test]
fn leftovers_holding_the_output_are_stopped_after_the_shell_exits() {
    let started = Instant::now();
    let out = executor().run("echo $$; sleep 33 &").unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(out.success());
    let pgid: i32 = out.stdout.trim().parse().unwrap();
    assert_eq!(live_members_of_group(pgid), Vec::<String>::new());
}

#[test]
fn cancellation_stops_the_command() {
    let cancel = CancelFlag::new();
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        trigger.cancel();
    });
    let started = Instant::now();
    let err = executor()
        .run_cancellable("echo $$; sleep 34", &cancel)
        .unwrap_err();
    canceller.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    let ExecError::Cancelled { partial, .. } = &err else {
        panic!("expected cancellation, got {err:?}");
    };
    let pgid: i32 = partial.stdout.trim().parse().unwrap();
    assert_eq!(live_members_of_group(pgid), Vec::<String>::new());
}

#[test]
fn an_already_cancelled_flag_starts_nothing() {
    let cancel = CancelFlag::new();
    cancel.cancel();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let err = executor()
        .run_cancellable(&format!("touch {}", marker.display()), &cancel)
        .unwrap_err();
    assert!(matches!(err, ExecError::CancelledBeforeStart), "{err:?}");
    assert!(!err.started(), "nothing ran, and the error says so");
    assert!(!marker.exists());
}

#[test]
fn a_term_ignoring_command_is_killed_after_the_grace() {
    let exec = LocalExecutor::with_options(
        ExecOptions::default()
            .with_timeout(Duration::from_millis(300))
            .with_kill_grace(Duration::from_millis(300)),
    );
    let started = Instant::now();
    let err = exec
        .run("trap '' TERM; echo $$; sleep 35 & sleep 36")
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    let partial = err.partial_output().unwrap();
    let pgid: i32 = partial.stdout.trim().parse().unwrap();
    assert_eq!(live_members_of_group(pgid), Vec::<String>::new());
}

#[test]
fn environment_is_clean() {
    // `set_var` is unsafe in edition 2024 (and the crate forbids unsafe), so
    // use a variable cargo sets for every test process.
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
    let out = executor()
        .run("echo \"[$CARGO_PKG_NAME]\"; echo \"$PATH\"; echo \"$LANG $TERM $PAGER $NO_COLOR\"; env | wc -l")
        .unwrap();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "[]");
    assert_eq!(lines[1], FIXED_PATH);
    assert_eq!(lines[2], "C.UTF-8 dumb cat 1");
    // The fixed variables, HOME, and what bash itself adds (PWD, SHLVL, _).
    let count: usize = lines[3].trim().parse().unwrap();
    assert!(count < 20, "{count} variables:\n{}", out.stdout);
}

#[test]
fn pass_through_and_explicit_variables() {
    let options = ExecOptions::default()
        .pass_env("CARGO_PKG_NAME")
        .set_env("WARDEN_EXPLICIT", "yes");
    let out = executor()
        .run_with("echo $CARGO_PKG_NAME $WARDEN_EXPLICIT", &options, None)
        .unwrap();
    assert_eq!(out.stdout, "warden-infra yes\n");
}

#[test]
fn stdin_is_empty_so_cat_returns_at_once() {
    let started = Instant::now();
    let out = executor().run("cat; echo after").unwrap();
    assert_eq!(out.stdout, "after\n");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn no_terminal() {
    let out = executor().run("tty; test -t 0 || echo no-tty").unwrap();
    assert!(out.stdout.contains("not a tty"), "{}", out.stdout);
    assert!(out.stdout.contains("no-tty"));
}

#[test]
fn bash_features_work() {
    let exec = executor();
    if exec.shell() != std::path::Path::new("/bin/bash") {
        eprintln!("!!! /bin/bash missing: bash_features_work did not run");
        return;
    }
    let out = exec
        .run("cat <(echo x); echo ${BASH_VERSION:+bash}")
        .unwrap();
    assert_eq!(out.stdout, "x\nbash\n");
}

#[test]
fn working_directory_default_and_custom() {
    assert_eq!(executor().run("pwd").unwrap().stdout, "/\n");
    let dir = tempfile::tempdir().unwrap();
    let options = ExecOptions::default().with_working_dir(dir.path());
    let out = executor()
        .run_with("echo hi > f.txt && cat f.txt && pwd", &options, None)
        .unwrap();
    let real = dir.path().canonicalize().unwrap();
    assert_eq!(out.stdout, format!("hi\n{}\n", real.display()));
    assert!(dir.path().join("f.txt").exists());
}

#[test]
fn a_missing_working_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone");
    let options = ExecOptions::default().with_working_dir(&missing);
    let err = executor().run_with("true", &options, None).unwrap_err();
    assert!(matches!(err, ExecError::WorkingDirectory { .. }), "{err:?}");
    assert!(err.to_string().contains("gone"), "{err}");
}

#[test]
fn a_command_with_a_nul_byte_cannot_start() {
    let err = executor().run("echo a\0b").unwrap_err();
    assert!(matches!(err, ExecError::Spawn { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("could not start /bin/"),
        "{err}"
    );
}

#[test]
fn quick_commands_are_quick() {
    let started = Instant::now();
    for _ in 0..5 {
        executor().run("true").unwrap();
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Waits (bounded) until `path` holds a line: the command has started.
async fn wait_for_file(path: &std::path::Path) -> String {
    for _ in 0..500 {
        if let Ok(text) = std::fs::read_to_string(path) {
            if text.ends_with('\n') {
                return text;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn cancellation_kills_a_background_tree_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pgid");
    let cancel = CancelFlag::new();
    let exec = executor();
    let command = format!(
        "sleep 300 & sleep 300 & echo $$ > {}; wait",
        pid_file.display()
    );
    let (err, pgid) = runtime().block_on(async {
        let run = exec.execute(&command, exec.options(), Some(&cancel));
        let cancel_when_started = async {
            let pgid: i32 = wait_for_file(&pid_file).await.trim().parse().unwrap();
            // Both sleeps are in the group before the flag is set.
            assert!(live_members_of_group(pgid).len() >= 3);
            cancel.cancel();
            pgid
        };
        let (result, pgid) = tokio::join!(run, cancel_when_started);
        (result.unwrap_err(), pgid)
    });
    assert!(matches!(err, ExecError::Cancelled { .. }), "{err:?}");
    assert!(err.started(), "a cancelled command had started");
    assert_eq!(live_members_of_group(pgid), Vec::<String>::new());
}

#[test]
fn commands_run_concurrently_on_one_thread() {
    // A current-thread runtime: if waiting on one command blocked the
    // thread, the quick one could only finish after the slow one.
    let exec = executor();
    let options = exec.options().clone();
    let (slow, quick) = runtime().block_on(async {
        tokio::join!(
            exec.execute("sleep 0.4; echo slow", &options, None),
            exec.execute("echo quick", &options, None)
        )
    });
    let (slow, quick) = (slow.unwrap(), quick.unwrap());
    assert_eq!(
        (slow.stdout.as_str(), quick.stdout.as_str()),
        ("slow\n", "quick\n")
    );
    assert!(quick.duration < slow.duration, "{quick:?} vs {slow:?}");
}

#[test]
fn the_synchronous_entry_point_works_inside_a_runtime() {
    // The local inventory calls `run` from code that may already be on a
    // runtime, which refuses a nested one.
    let out = runtime().block_on(async { executor().run("echo inside").unwrap() });
    assert_eq!(out.stdout, "inside\n");
    let out = runtime().block_on(async {
        tokio::task::spawn_blocking(|| executor().run("echo blocking").unwrap())
            .await
            .unwrap()
    });
    assert_eq!(out.stdout, "blocking\n");
}

#[test]
fn a_timed_out_command_had_started() {
    let exec = LocalExecutor::with_options(
        ExecOptions::default().with_timeout(Duration::from_millis(200)),
    );
    let err = exec.run("sleep 30").unwrap_err();
    assert!(matches!(err, ExecError::TimedOut { .. }), "{err:?}");
    assert!(err.started());
    let err = exec.run("echo a\0b").unwrap_err();
    assert!(!err.started(), "a command that could not start did nothing");
}

#[test]
fn a_dropped_run_kills_its_command() {
    // A caller that gives up on the future (a select! elsewhere) must not
    // leave the command running unobserved.
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pgid");
    let exec = executor();
    let command = format!("sleep 300 & echo $$ > {}; wait", pid_file.display());
    let pgid = runtime().block_on(async {
        let run = exec.execute(&command, exec.options(), None);
        tokio::select! {
            _ = run => panic!("the command cannot finish by itself"),
            text = wait_for_file(&pid_file) => text.trim().parse::<i32>().unwrap(),
        }
    });
    assert_eq!(live_members_of_group(pgid), Vec::<String>::new());
}
