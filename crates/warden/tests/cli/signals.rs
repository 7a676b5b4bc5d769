//! Whatever ends `warden ask` while it runs a command (SIGTERM, SIGHUP, a
//! double Ctrl-C, SIGKILL), no child process survives it. The command is a
//! harmless long read that the router runs through the read tool
//! (`warden classify "sleep 30.5"`: read-only, bounded), with a duration
//! unique to each test so its processes can be told apart in /proc.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

/// `warden ask "sleep <unique>"` in the background; the sleep's argument.
fn ask_sleep(dir: &Path) -> (Child, String) {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let seconds = format!(
        "30.{}{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    );
    let child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["ask", &format!("sleep {seconds}")])
        .env("WARDEN_DB", dir.join("w.db"))
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("WARDEN_PROVIDER")
        .env_remove("WARDEN_CONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (child, seconds)
}

/// Processes whose command line mentions `needle` (the sleep itself, and
/// the launcher and shell that run it).
fn processes_mentioning(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let zombie = stat.rsplit_once(')')?.1.trim_start().starts_with('Z');
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (!zombie && cmdline.contains(needle)).then_some(cmdline)
        })
        .collect()
}

fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// Starts the ask and waits until its sleep runs (the launcher, the shell
/// and `sleep` itself; bash may exec the sleep in place of the shell).
fn running_ask(dir: &Path) -> (Child, String) {
    let (child, seconds) = ask_sleep(dir);
    let sleep = format!("sleep {seconds}");
    assert!(
        eventually(Duration::from_secs(20), || {
            processes_mentioning(&sleep)
                .iter()
                .any(|c| c.starts_with("sleep "))
        }),
        "the command never started"
    );
    (child, seconds)
}

fn signal(child: &Child, signal: Signal) {
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    kill_process(pid, signal).unwrap();
}

/// Waits (bounded) for warden to end: its status and stderr.
fn finish(mut child: Child) -> (ExitStatus, String) {
    let until = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < until, "warden did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        pipe.read_to_string(&mut stderr).unwrap();
    }
    (status, stderr)
}

#[test]
fn sigterm_stops_the_running_command_before_warden_exits() {
    let dir = tempfile::tempdir().unwrap();
    let (child, seconds) = running_ask(dir.path());
    signal(&child, Signal::TERM);
    let (status, stderr) = finish(child);
    assert_eq!(status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("stopped 1 running command"), "{stderr}");
    // Checked at once: Warden waited for its commands before exiting.
    assert_eq!(processes_mentioning(&seconds), Vec::<String>::new());
}

#[test]
fn sighup_stops_the_running_command_before_warden_exits() {
    let dir = tempfile::tempdir().unwrap();
    let (child, seconds) = running_ask(dir.path());
    signal(&child, Signal::HUP);
    let (status, stderr) = finish(child);
    assert_eq!(status.code(), Some(129), "{stderr}");
    assert_eq!(processes_mentioning(&seconds), Vec::<String>::new());
}

#[test]
fn a_double_ctrl_c_leaves_no_child() {
    let dir = tempfile::tempdir().unwrap();
    let (child, seconds) = running_ask(dir.path());
    // The first cancels the turn (the command is stopped); the second,
    // when it arrives while the first is handled, ends Warden at once;
    // otherwise the cancelled turn ends as cancelled turns do. Both 130.
    signal(&child, Signal::INT);
    std::thread::sleep(Duration::from_millis(5));
    signal(&child, Signal::INT);
    let (status, stderr) = finish(child);
    assert!(
        matches!(status.code(), Some(0 | 130)),
        "{status:?}: {stderr}"
    );
    assert_eq!(processes_mentioning(&seconds), Vec::<String>::new());
}

#[test]
fn one_ctrl_c_cancels_the_turn_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (child, seconds) = running_ask(dir.path());
    signal(&child, Signal::INT);
    let (status, stderr) = finish(child);
    // The turn ended and said so (`warden ask` exits 130 for a cancelled
    // turn); Warden was not killed by the signal.
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("CANCELLED"), "{stderr}");
    assert!(!stderr.contains("stopped 1 running command"), "{stderr}");
    assert_eq!(processes_mentioning(&seconds), Vec::<String>::new());
}

#[test]
fn sigkill_of_warden_leaves_no_child() {
    let dir = tempfile::tempdir().unwrap();
    let (child, seconds) = running_ask(dir.path());
    signal(&child, Signal::KILL);
    let (status, _) = finish(child);
    assert_eq!(status.signal(), Some(9));
    // Warden could do nothing: the launcher noticed the broken lifeline.
    assert!(
        eventually(Duration::from_secs(5), || processes_mentioning(&seconds)
            .is_empty()),
        "{:?}",
        processes_mentioning(&seconds)
    );
}
