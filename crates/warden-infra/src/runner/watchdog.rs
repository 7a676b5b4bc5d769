//! The watchdog: one small process per Warden process that stops Warden's
//! commands when Warden cannot (`kill -9`, a crash, the OOM killer).
//!
//! Warden re-executes its own binary (`/proc/self/exe`, which works even
//! when the file was replaced by an upgrade) as `warden __warden-watchdog
//! --grace-ms N`, in its own process group, with the read end of a pipe as
//! stdin. Warden keeps the write end (close-on-exec, so no command inherits
//! it) and writes one line per command: `+PGID [TAG]` when it starts, `-PGID`
//! when it is over. When Warden dies, however it dies, the kernel closes
//! the write end: the watchdog reads the lines still buffered, then end of
//! file, and stops every command still listed (SIGTERM to its group and to
//! its tagged processes inside containers, the grace, SIGKILL), then exits.
//! A Warden that exits normally has stopped its commands already.
//!
//! Why not a launcher per command: an extra exec of this (large) binary per
//! command costs about 2 ms, every time; the watchdog costs one spawn per
//! process and a pipe write per command.
//!
//! Why not `PR_SET_PDEATHSIG`: the kernel sends it when the *thread* that
//! spawned the child exits, not the process. Tokio spawns from whatever
//! thread polls the future (blocking-pool threads come and go), so a
//! healthy Warden would kill its own commands.
//!
//! Known window: a command is announced right after it is spawned; if
//! Warden is killed in those microseconds, that one command is not stopped.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::process_group::ProcessGroup;
use super::stopping::{Target, stop_all};

/// The first argument that makes the `warden` binary the watchdog.
pub const WATCHDOG_ARG: &str = "__warden-watchdog";

/// The write end, once the watchdog runs.
static ANNOUNCE: Mutex<Option<std::fs::File>> = Mutex::new(None);
/// The watchdog's pid once started (0 before): hidden from commands as a
/// process of Warden's own.
static WATCHDOG_PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

#[derive(Debug, thiserror::Error)]
pub enum WatchdogError {
    #[error("could not create the watchdog's pipe: {0}")]
    Pipe(std::io::Error),
    #[error("could not start the watchdog {}: {source}", program.display())]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("watchdog usage: {0}")]
    Usage(String),
}

/// Starts this process's watchdog, `program` run as `program
/// __warden-watchdog` (it must call [`run_watchdog`] for that argument
/// before anything else; `/proc/self/exe` for the running binary). Commands
/// started from now on are announced to it. Starting it again is a no-op.
pub fn start_watchdog(program: impl Into<PathBuf>, grace: Duration) -> Result<(), WatchdogError> {
    use std::os::unix::process::CommandExt;
    let mut announce = ANNOUNCE.lock().unwrap_or_else(PoisonError::into_inner);
    if announce.is_some() {
        return Ok(());
    }
    let program = program.into();
    let (read, write): (OwnedFd, OwnedFd) =
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
            .map_err(|e| WatchdogError::Pipe(e.into()))?;
    // Never block Warden on the watchdog: a line that does not fit (a
    // watchdog that stopped reading) is dropped.
    rustix::io::ioctl_fionbio(&write, true).map_err(|e| WatchdogError::Pipe(e.into()))?;
    let child = std::process::Command::new(&program)
        .arg(WATCHDOG_ARG)
        .arg("--grace-ms")
        .arg(grace.as_millis().to_string())
        .stdin(Stdio::from(read))
        .stdout(Stdio::null())
        .env_clear()
        // Its own group: the terminal's Ctrl-C (sent to Warden's group) and
        // Warden's own shutdown leave it alone.
        .process_group(0)
        .spawn()
        .map_err(|source| WatchdogError::Spawn { program, source })?;
    WATCHDOG_PID.store(child.id(), std::sync::atomic::Ordering::Relaxed);
    *announce = Some(std::fs::File::from(write));
    Ok(())
}

/// The watchdog's pid, once it runs.
pub fn watchdog_pid() -> Option<u32> {
    match WATCHDOG_PID.load(std::sync::atomic::Ordering::Relaxed) {
        0 => None,
        pid => Some(pid),
    }
}

/// Whether commands are announced to a watchdog.
pub fn watchdog_running() -> bool {
    ANNOUNCE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .is_some()
}

fn announce(line: &str) {
    let mut announce = ANNOUNCE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(pipe) = announce.as_mut() {
        // One write of less than PIPE_BUF bytes: atomic, never interleaved.
        // Errors (a full pipe, a dead watchdog) lose only the safety net.
        pipe.write_all(line.as_bytes()).ok();
    }
}

/// A command started: its group, and its tag inside a container.
pub(crate) fn watch(group: ProcessGroup, tag: Option<&str>) {
    match tag.filter(|t| is_plain(t)) {
        Some(tag) => announce(&format!("+{} {tag}\n", group.id())),
        None => announce(&format!("+{}\n", group.id())),
    }
}

/// A command is over.
pub(crate) fn forget(group: ProcessGroup) {
    announce(&format!("-{}\n", group.id()));
}

fn is_plain(tag: &str) -> bool {
    warden_protocol::routing::is_plain_tag(tag)
}

/// One announcement, as the watchdog reads it.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    Watch(ProcessGroup, Option<String>),
    Forget(ProcessGroup),
}

fn parse_line(line: &str) -> Option<Line> {
    let group = |text: &str| text.parse::<u32>().ok().and_then(ProcessGroup::of_leader);
    if let Some(rest) = line.strip_prefix('+') {
        let mut words = rest.split(' ');
        let pgid = group(words.next()?)?;
        let tag = words.next().filter(|t| is_plain(t)).map(str::to_string);
        return Some(Line::Watch(pgid, tag));
    }
    Some(Line::Forget(group(line.strip_prefix('-')?)?))
}

/// The watchdog process: the arguments after [`WATCHDOG_ARG`]. Returns when
/// Warden is gone and its commands are stopped.
pub fn run_watchdog(args: impl IntoIterator<Item = OsString>) -> Result<(), WatchdogError> {
    let mut grace = Duration::from_secs(2);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--grace-ms") => {
                let ms = args
                    .next()
                    .and_then(|v| v.to_str()?.parse::<u64>().ok())
                    .ok_or_else(|| WatchdogError::Usage("--grace-ms needs milliseconds".into()))?;
                grace = Duration::from_millis(ms);
            }
            _ => {
                return Err(WatchdogError::Usage(format!(
                    "unknown argument {}",
                    arg.to_string_lossy()
                )));
            }
        }
    }
    let watched = follow(std::io::stdin().lock());
    let targets: Vec<Target> = watched
        .into_values()
        .map(|(group, tag)| Target { group, tag })
        .collect();
    stop_all(&targets, grace);
    Ok(())
}

/// Reads announcements until the pipe ends (Warden is gone); the commands
/// still running then.
fn follow(announcements: impl BufRead) -> BTreeMap<i32, (ProcessGroup, Option<String>)> {
    let mut watched = BTreeMap::new();
    // A read error means the pipe is gone too: the same as its end.
    for line in announcements.lines().map_while(Result::ok) {
        match parse_line(&line) {
            Some(Line::Watch(group, tag)) => {
                watched.insert(group.id(), (group, tag));
            }
            Some(Line::Forget(group)) => {
                watched.remove(&group.id());
            }
            None => {}
        }
    }
    watched
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(id: u32) -> ProcessGroup {
        ProcessGroup::of_leader(id).unwrap()
    }

    #[test]
    fn lines_round_trip() {
        assert_eq!(
            parse_line("+4242 w1-2-abc"),
            Some(Line::Watch(group(4242), Some("w1-2-abc".into())))
        );
        assert_eq!(parse_line("+4242"), Some(Line::Watch(group(4242), None)));
        assert_eq!(parse_line("-4242"), Some(Line::Forget(group(4242))));
        // Nothing that could reach every process (pid 1, 0, negative).
        for bad in ["+1", "+0", "+-5", "-1", "x", "", "+abc"] {
            assert_eq!(parse_line(bad), None, "{bad}");
        }
        // A tag with odd characters is ignored, the group kept.
        assert_eq!(
            parse_line("+4242 a/b"),
            Some(Line::Watch(group(4242), None))
        );
    }

    #[test]
    fn only_commands_still_running_at_the_end_are_stopped() {
        let text = "+100\n+200 t-1\n-100\n+300\ngarbage\n-999\n+40\n";
        let watched = follow(std::io::Cursor::new(text));
        assert_eq!(
            watched.into_values().collect::<Vec<_>>(),
            [
                (group(40), None),
                (group(200), Some("t-1".to_string())),
                (group(300), None),
            ]
        );
    }
}
