//! The runner against real processes: output streamed to a sink, a
//! launcher prefix and its header, a command that never stops printing,
//! leftovers after a clean exit, and a "container side" (processes outside
//! the command's group, found by their tag) stopped on every path. The
//! container side is played by `setsid -f`, which leaves the group the
//! way a `docker exec` process does. Every command is harmless.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::Path;
use std::time::{Duration, Instant};

use warden_infra::runner::{
    Ending, Finished, Launcher, Limits, NoSink, OutputSink, Prefix, RunError, RunSpec, Stream,
    command_environment, run,
};
use warden_protocol::routing::{CONTAINER_WRAPPER, EXEC_TAG_VAR, ExecTag, Invocation};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn shell(command: &str) -> Invocation {
    Invocation {
        argv: vec!["/bin/sh".into(), "-c".into(), command.into()],
        exec_tag: None,
    }
}

fn limits(timeout_ms: u64) -> Limits {
    Limits {
        timeout: Duration::from_millis(timeout_ms),
        output_limit: 64 * 1024,
        kill_grace: Duration::from_millis(300),
    }
}

fn execute(
    invocation: &Invocation,
    prefix: &[Prefix<'_>],
    limits: Limits,
    sink: impl OutputSink,
) -> Result<Finished, RunError> {
    let env = command_environment("/root", &[], &[]);
    let spec = RunSpec {
        invocation,
        prefix,
        working_dir: Path::new("/"),
        env: &env,
        limits,
    };
    runtime().block_on(run(&spec, std::future::pending(), sink))
}

/// Every chunk a sink was given, in order.
#[derive(Default)]
struct Collect(std::sync::Arc<std::sync::Mutex<Vec<(Stream, String)>>>);

impl OutputSink for Collect {
    async fn deliver(&mut self, stream: Stream, text: String) {
        self.0.lock().unwrap().push((stream, text));
    }
}

#[test]
fn output_streams_to_the_sink_head_first_and_the_tail_at_the_end() {
    let chunks = Collect::default();
    let seen = std::sync::Arc::clone(&chunks.0);
    let finished = execute(
        &shell("echo a; sleep 0.2; echo b >&2; sleep 0.2; echo c"),
        &[],
        limits(5000),
        chunks,
    )
    .unwrap();
    assert!(matches!(finished.ending, Ending::Exited(s) if s.success()));
    assert_eq!(
        (finished.stdout.as_str(), finished.stderr.as_str()),
        ("a\nc\n", "b\n")
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            (Stream::Stdout, "a\n".to_string()),
            (Stream::Stderr, "b\n".to_string()),
            (Stream::Stdout, "c\n".to_string()),
        ]
    );

    // Capped: the head as it comes, then the marker and the tail, once.
    let chunks = Collect::default();
    let seen = std::sync::Arc::clone(&chunks.0);
    let capped = Limits {
        output_limit: 16,
        ..limits(5000)
    };
    let finished = execute(&shell("seq 1 1000"), &[], capped, chunks).unwrap();
    assert!(finished.truncated);
    let seen = seen.lock().unwrap().clone();
    let streamed: String = seen.iter().map(|(_, text)| text.as_str()).collect();
    assert_eq!(streamed, finished.stdout);
    assert!(finished.stdout.starts_with("1\n2\n"), "{}", finished.stdout);
    assert!(finished.stdout.ends_with("\n1000\n"), "{}", finished.stdout);
    let last = &seen.last().unwrap().1;
    assert!(last.contains("bytes omitted"), "{last}");
}

#[test]
fn a_launcher_header_is_checked_and_not_output() {
    let launcher = Launcher {
        program: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "echo CONFINED; exec \"$@\"".into(),
            "launcher".into(),
        ],
    };
    let prefix = Prefix {
        launcher: &launcher,
        accepts_header: |line| line == "CONFINED",
    };
    let finished = execute(&shell("echo out"), &[prefix], limits(5000), NoSink).unwrap();
    assert!(matches!(finished.ending, Ending::Exited(s) if s.success()));
    assert_eq!(finished.headers, ["CONFINED"]);
    assert_eq!(finished.stdout, "out\n");

    // Two launchers chain: each header in order, then the output.
    let sandbox = Launcher {
        program: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "printf 'SAND'; printf 'BOXED\\n'; exec \"$@\"".into(),
            "sandbox".into(),
        ],
    };
    let chain = [
        prefix,
        Prefix {
            launcher: &sandbox,
            accepts_header: |line| line == "SANDBOXED",
        },
    ];
    let finished = execute(&shell("echo out"), &chain, limits(5000), NoSink).unwrap();
    assert!(matches!(finished.ending, Ending::Exited(s) if s.success()));
    assert_eq!(finished.headers, ["CONFINED", "SANDBOXED"]);
    assert_eq!(finished.stdout, "out\n");
    // The second header wrong: refused, though the first was right.
    let wrong_second = [
        prefix,
        Prefix {
            launcher: &sandbox,
            accepts_header: |line| line == "CONFINED",
        },
    ];
    let finished = execute(&shell("echo out"), &wrong_second, limits(5000), NoSink).unwrap();
    assert!(
        matches!(finished.ending, Ending::LauncherRefused(_)),
        "{:?}",
        finished.ending
    );
    assert_eq!(finished.stdout, "");

    // A header the caller does not accept: killed at once, nothing shown
    // as the command's own success.
    let refusing = Prefix {
        launcher: &launcher,
        accepts_header: |_| false,
    };
    let started = Instant::now();
    let finished = execute(&shell("sleep 30"), &[refusing], limits(20_000), NoSink).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(finished.ending, Ending::LauncherRefused(_)),
        "{:?}",
        finished.ending
    );
    assert!(finished.headers.is_empty());
}

#[test]
fn a_command_that_never_stops_printing_still_times_out() {
    let started = Instant::now();
    let finished = execute(&shell("yes"), &[], limits(500), NoSink).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(finished.ending, Ending::TimedOut),
        "{:?}",
        finished.ending
    );
    assert!(finished.truncated);
    assert!(finished.stdout.starts_with("y\ny\n"));
}

/// The live processes whose environment or arguments carry `tag`.
fn carrying(tag: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next();
        if matches!(state, Some("Z" | "X")) {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let wanted = format!("{EXEC_TAG_VAR}={tag}");
        let has = |bytes: &[u8], word: &str| bytes.split(|b| *b == 0).any(|w| w == word.as_bytes());
        if has(&environ, &wanted) || has(&cmdline, tag) {
            found.push(stat);
        }
    }
    found
}

/// The container side of a command: the wrapper with `tag`, out of the
/// command's process group and not the runner's child. With `wait`, the
/// client stays until that side ends (as `docker exec` does); without, it
/// leaves at once.
fn outside_the_group(tag: &ExecTag, wait: bool, command: &str) -> Invocation {
    let client: &[&str] = if wait {
        &["setsid", "--fork", "--wait"]
    } else {
        &["setsid", "--fork"]
    };
    let argv = client
        .iter()
        .chain(&["/bin/sh", "-c", CONTAINER_WRAPPER, tag.as_str(), command])
        .map(|word| word.to_string())
        .collect();
    Invocation {
        argv,
        exec_tag: Some(tag.clone()),
    }
}

#[test]
fn a_clean_exit_stops_what_it_left_behind_in_the_group_and_by_tag() {
    // In the group: a background job that let go of the output.
    let started = Instant::now();
    let finished = execute(
        &shell("echo $$; sleep 37 >/dev/null 2>&1 &"),
        &[],
        limits(5000),
        NoSink,
    )
    .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(matches!(finished.ending, Ending::Exited(s) if s.success()));
    let pgid = finished.stdout.trim();
    let in_group = std::fs::read_dir("/proc")
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
            fields[0] != "Z" && fields[2] == pgid
        })
        .count();
    assert_eq!(in_group, 0, "group {pgid}");

    // By tag: the client (setsid) exits at once, the tagged side runs on.
    let tag = ExecTag::new(format!("runner-exit-{}", std::process::id())).unwrap();
    let invocation = outside_the_group(&tag, false, "sleep 38 & sleep 39; wait");
    let finished = execute(&invocation, &[], limits(10_000), NoSink).unwrap();
    assert!(matches!(finished.ending, Ending::Exited(s) if s.success()));
    assert_eq!(carrying(tag.as_str()), Vec::<String>::new());
}

#[test]
fn a_timeout_stops_the_tagged_side_even_when_it_ignores_sigterm() {
    let tag = ExecTag::new(format!("runner-timeout-{}", std::process::id())).unwrap();
    let invocation = outside_the_group(&tag, true, "trap '' TERM; sleep 40 & sleep 41; wait");
    let started = Instant::now();
    let finished = execute(&invocation, &[], limits(600), NoSink).unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        matches!(finished.ending, Ending::TimedOut),
        "{:?}",
        finished.ending
    );
    assert_eq!(carrying(tag.as_str()), Vec::<String>::new());
}

#[test]
fn a_cancel_stops_the_tagged_side() {
    let tag = ExecTag::new(format!("runner-cancel-{}", std::process::id())).unwrap();
    let invocation = outside_the_group(&tag, true, "echo up; sleep 42 & sleep 43; wait");
    let env = command_environment("/root", &[], &[]);
    let spec = RunSpec {
        invocation: &invocation,
        prefix: &[],
        working_dir: Path::new("/"),
        env: &env,
        limits: limits(20_000),
    };
    let started = Instant::now();
    let finished = runtime()
        .block_on(async {
            let cancel = tokio::time::sleep(Duration::from_millis(400));
            run(&spec, cancel, NoSink).await
        })
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        matches!(finished.ending, Ending::Cancelled),
        "{:?}",
        finished.ending
    );
    assert_eq!(finished.stdout, "up\n");
    assert_eq!(carrying(tag.as_str()), Vec::<String>::new());
}

#[test]
fn a_cancel_before_the_start_starts_nothing() {
    let env = command_environment("/root", &[], &[]);
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let invocation = shell(&format!("touch {}", marker.display()));
    let spec = RunSpec {
        invocation: &invocation,
        prefix: &[],
        working_dir: Path::new("/"),
        env: &env,
        limits: limits(5000),
    };
    let refused = runtime().block_on(run(&spec, std::future::ready(()), NoSink));
    assert!(
        matches!(refused, Err(RunError::CancelledBeforeStart)),
        "{refused:?}"
    );
    assert!(!marker.exists());
}
