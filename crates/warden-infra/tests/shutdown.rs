//! `terminate_all`: what the CLI's signal handler and the server's shutdown
//! call. One test in its own binary, because it closes this process's
//! registry for good (no command starts afterwards), as a shutdown must.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::time::Duration;

use warden_infra::runner::running_commands;
use warden_infra::{ExecError, ExecOptions, LocalExecutor, terminate_all};

/// Live (not zombie) processes of group `pgid`, from /proc.
fn live_members_of_group(pgid: i32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
        .count()
}

#[test]
fn terminate_all_stops_every_running_command_and_starts_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let exec = LocalExecutor::with_options(
        ExecOptions::default()
            .with_timeout(Duration::from_secs(120))
            .with_kill_grace(Duration::from_secs(60)),
    );
    // One command that honours SIGTERM, one that ignores it (its shell and
    // its background sleep): the grace given to terminate_all decides.
    let commands = [
        format!("echo $$ > {}/a; sleep 300 & wait", dir.path().display()),
        format!(
            "trap '' TERM; echo $$ > {}/b; sleep 301 & wait",
            dir.path().display()
        ),
    ];
    let runs: Vec<_> = commands
        .iter()
        .map(|command| {
            let exec = exec.clone();
            let command = command.clone();
            std::thread::spawn(move || exec.run(&command))
        })
        .collect();
    let read_pgid = |name: &str| -> i32 {
        for _ in 0..500 {
            if let Ok(text) = std::fs::read_to_string(dir.path().join(name)) {
                if text.ends_with('\n') {
                    return text.trim().parse().unwrap();
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("{name} never started");
    };
    let groups = [read_pgid("a"), read_pgid("b")];
    assert_eq!(running_commands(), 2);
    assert!(groups.iter().all(|g| live_members_of_group(*g) >= 2));

    let shutdown = terminate_all(Duration::from_millis(300));
    assert_eq!((shutdown.commands, shutdown.killed), (2, 1), "{shutdown:?}");
    for group in groups {
        assert_eq!(live_members_of_group(group), 0, "group {group} survived");
    }
    // Their runs end (well before their own 60 s grace) with the signal.
    for run in runs {
        let out = run.join().unwrap().unwrap();
        assert!(out.signal.is_some(), "{out:?}");
    }
    assert_eq!(running_commands(), 0);

    // Nothing starts once a shutdown has begun, and it says nothing ran.
    let err = exec
        .run(&format!("touch {}/late", dir.path().display()))
        .unwrap_err();
    assert!(matches!(err, ExecError::ShuttingDown), "{err:?}");
    assert!(!err.started());
    assert!(!dir.path().join("late").exists());
    // A second call (a second signal) is harmless.
    assert_eq!(terminate_all(Duration::from_millis(10)).commands, 0);
}
