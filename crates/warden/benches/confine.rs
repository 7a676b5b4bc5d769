//! What confinement adds to every command (issue 17): `true` run plainly
//! beside `true` run through the confinement launcher (`warden-confine`,
//! and `warden` itself where that is missing), hiding a
//! data directory, a file and this process with its threads, as a
//! command on this machine is (`cargo bench -p warden --bench confine`).
//! The target: at most 2 ms added at the median. After divan's table the
//! bench prints the median and p99 of 1,000 runs of each, and the
//! difference. Where the launcher cannot make a namespace (not root), it
//! says so and measures nothing.
#![allow(clippy::expect_used)] // benchmark set-up: a panic is a broken benchmark

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const RUNS: usize = 1000;

fn main() {
    if !launcher_works() {
        eprintln!(
            "confine: the launcher cannot make a namespace here (run as root); nothing measured"
        );
        return;
    }
    divan::main();
    let plain = times(plain_true);
    let confined = times(confined_true);
    let (p50, p99) = (percentile(&plain, 50), percentile(&plain, 99));
    let (c50, c99) = (percentile(&confined, 50), percentile(&confined, 99));
    println!("confine: {RUNS} runs of `true` each");
    println!("  plain:    median {p50:?}, p99 {p99:?}");
    println!("  confined: median {c50:?}, p99 {c99:?}");
    println!(
        "  added:    median {:?}, p99 {:?} (target: median <= 2 ms)",
        c50.saturating_sub(p50),
        c99.saturating_sub(p99)
    );
}

/// What a command on this machine hides: a directory, a file, this
/// process and its threads.
fn launcher_args() -> &'static Vec<OsString> {
    static ARGS: OnceLock<Vec<OsString>> = OnceLock::new();
    ARGS.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("warden-bench-confine-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary data directory");
        let file = dir.join("admin-password");
        std::fs::write(&file, "not a secret").expect("a file to hide");
        let mut processes = vec![std::process::id()];
        if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
            processes.extend(
                tasks
                    .flatten()
                    .filter_map(|t| t.file_name().to_str().and_then(|n| n.parse::<u32>().ok())),
            );
        }
        warden_confine::launcher_args(&warden_confine::Hidden {
            paths: vec![dir, PathBuf::from("/etc/hostname"), file],
            processes,
        })
    })
}

fn launcher_works() -> bool {
    Command::new(env!("CARGO_BIN_EXE_warden-confine"))
        .args(launcher_args())
        .arg("/bin/true")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run(command: &mut Command) {
    let status = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the command runs");
    assert!(status.success(), "{command:?} failed: {status}");
}

#[divan::bench(sample_count = 200)]
fn plain_true() {
    run(&mut Command::new("/bin/true"));
}

/// Through `warden-confine`, the launcher installed beside `warden`.
#[divan::bench(sample_count = 200)]
fn confined_true() {
    run(Command::new(env!("CARGO_BIN_EXE_warden-confine"))
        .args(launcher_args())
        .arg("/bin/true"));
}

/// Through `warden` itself (no `warden-confine` beside it).
#[divan::bench(sample_count = 200)]
fn confined_true_by_warden_itself() {
    run(Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(launcher_args())
        .arg("/bin/true"));
}

fn times(run: impl Fn()) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    let at = (sorted.len() * p / 100).min(sorted.len() - 1);
    sorted[at]
}
