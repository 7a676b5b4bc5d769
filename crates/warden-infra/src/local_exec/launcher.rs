//! The launcher: a tiny process between Warden and each command, so that a
//! command dies with Warden even when Warden cannot clean up (`kill -9`, a
//! crash, the OOM killer).
//!
//! Warden re-executes its own binary (`/proc/self/exe`, which works even if
//! the file was replaced by an upgrade) as
//! `warden __warden-exec-launcher [--grace-ms N] [--tag T] -- PROGRAM ARGS…`
//! in a new process group, with the [lifeline](super::lifeline) as stdin and
//! the command's output pipes as stdout and stderr. The launcher runs
//! `PROGRAM` in its own group (stdin from `/dev/null`) and then either:
//! - the command ends: the launcher ends the same way (exit code, or the
//!   same signal), so Warden sees what it would have seen without it;
//! - the lifeline breaks (Warden is gone): SIGTERM to the group and to the
//!   processes tagged `T` (a `docker exec` inside a container), a grace,
//!   then SIGKILL to all of them and to itself.
//!
//! When Warden stops a command itself, it signals the whole group: the
//! launcher dies with its command (its signals keep their default actions
//! until the lifeline breaks).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::lifeline;
use super::process_group::signal_processes;
use super::procfs;

/// The first argument that makes the `warden` binary a launcher.
pub const LAUNCHER_ARG: &str = "__warden-exec-launcher";

/// The grace when the arguments do not give one.
const DEFAULT_GRACE: Duration = Duration::from_secs(2);

/// How an executor reaches the launcher: a program that runs
/// [`launch`] when its first argument is [`LAUNCHER_ARG`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    pub program: PathBuf,
}

impl Launcher {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Launcher {
            program: program.into(),
        }
    }

    /// The running binary itself (it must call [`launch`] for
    /// [`LAUNCHER_ARG`] before anything else).
    pub fn this_executable() -> Self {
        Launcher::new("/proc/self/exe")
    }

    /// The launcher's arguments for `program args…`.
    pub(crate) fn arguments(
        &self,
        grace: Duration,
        tag: Option<&str>,
        program: &std::path::Path,
        args: &[&str],
    ) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![
            LAUNCHER_ARG.into(),
            "--grace-ms".into(),
            grace.as_millis().to_string().into(),
        ];
        if let Some(tag) = tag {
            out.push("--tag".into());
            out.push(tag.into());
        }
        out.push("--".into());
        out.push(program.into());
        out.extend(args.iter().map(OsString::from));
        out
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("launcher usage: {0}")]
    Usage(String),
    #[error("could not start {}: {source}", program.display())]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("launcher: {0}")]
    Io(#[from] std::io::Error),
}

/// How the launched command ended; [`ChildEnd::exit`] ends the launcher
/// the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildEnd {
    Exited(i32),
    Signalled(i32),
}

impl ChildEnd {
    fn from_status(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => ChildEnd::Exited(code),
            (None, Some(signal)) => ChildEnd::Signalled(signal),
            (None, None) => ChildEnd::Exited(1),
        }
    }

    /// Ends this process as the command ended: the same exit code, or the
    /// same signal (sent to itself; `128 + N` if that signal is ignored
    /// here, as SIGPIPE is in Rust programs).
    pub fn exit(self) -> ! {
        match self {
            ChildEnd::Exited(code) => std::process::exit(code),
            ChildEnd::Signalled(number) => {
                if let Some(signal) = Signal::from_named_raw(number) {
                    rustix::process::kill_process(rustix::process::getpid(), signal).ok();
                }
                std::process::exit(128 + number)
            }
        }
    }
}

struct Plan {
    grace: Duration,
    tag: Option<String>,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Plan, LaunchError> {
    let mut args = args.into_iter();
    let mut grace = DEFAULT_GRACE;
    let mut tag = None;
    loop {
        let Some(arg) = args.next() else {
            return Err(LaunchError::Usage("missing `-- PROGRAM`".into()));
        };
        match arg.to_str() {
            Some("--") => break,
            Some("--grace-ms") => {
                let ms = args
                    .next()
                    .and_then(|v| v.to_str()?.parse::<u64>().ok())
                    .ok_or_else(|| LaunchError::Usage("--grace-ms needs milliseconds".into()))?;
                grace = Duration::from_millis(ms);
            }
            Some("--tag") => {
                let value = args
                    .next()
                    .and_then(|v| v.into_string().ok())
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| LaunchError::Usage("--tag needs a value".into()))?;
                tag = Some(value);
            }
            _ => {
                return Err(LaunchError::Usage(format!(
                    "unknown argument {}",
                    arg.to_string_lossy()
                )));
            }
        }
    }
    let program = args
        .next()
        .ok_or_else(|| LaunchError::Usage("missing PROGRAM after `--`".into()))?;
    Ok(Plan {
        grace,
        tag,
        program,
        args: args.collect(),
    })
}

enum Event {
    Exited(std::io::Result<ExitStatus>),
    LifelineLost,
}

/// Runs the launcher with the arguments after [`LAUNCHER_ARG`]; returns how
/// the command ended (the caller then calls [`ChildEnd::exit`]).
pub fn launch(args: impl IntoIterator<Item = OsString>) -> Result<ChildEnd, LaunchError> {
    let plan = parse(args)?;
    let mut child = std::process::Command::new(&plan.program)
        .args(&plan.args)
        .stdin(Stdio::null())
        .spawn()
        .map_err(|source| LaunchError::Spawn {
            program: PathBuf::from(&plan.program),
            source,
        })?;
    let child_pid = child.id();
    let (events, next_event) = mpsc::channel();
    let exited = events.clone();
    std::thread::Builder::new()
        .name("wait".into())
        .spawn(move || {
            exited.send(Event::Exited(child.wait())).ok();
        })?;
    std::thread::Builder::new()
        .name("lifeline".into())
        .spawn(move || {
            lifeline::wait_for_loss(std::io::stdin());
            events.send(Event::LifelineLost).ok();
        })?;
    match next_event.recv() {
        Ok(Event::Exited(status)) => Ok(ChildEnd::from_status(status?)),
        Ok(Event::LifelineLost) | Err(_) => {
            orphaned(&plan, child_pid, &next_event);
            Ok(ChildEnd::Signalled(Signal::KILL.as_raw()))
        }
    }
}

/// Warden is gone: stop everything the command started, then die.
fn orphaned(plan: &Plan, child_pid: u32, events: &mpsc::Receiver<Event>) {
    // Our own SIGTERM to the group must not end the launcher before the
    // grace and the SIGKILL that follow it.
    signal_hook::flag::register(
        signal_hook::consts::SIGTERM,
        Arc::new(AtomicBool::new(false)),
    )
    .ok();
    let me = rustix::process::getpid();
    // Only a launcher that leads its own group (as Warden starts it) may
    // signal the group; started by hand, it stops its child alone.
    let group = (rustix::process::getpgrp() == me)
        .then(|| u32::try_from(me.as_raw_pid()).ok())
        .flatten()
        .map(GroupOrChild::Group)
        .unwrap_or(GroupOrChild::Child(child_pid));
    let tags: Vec<&str> = plan.tag.as_deref().into_iter().collect();
    group.signal(Signal::TERM);
    group.signal(Signal::CONT);
    signal_processes(&procfs::tagged(&tags), Signal::TERM);
    let deadline = Instant::now() + plan.grace;
    let mut child_done = false;
    while Instant::now() < deadline {
        if !child_done {
            let left = deadline.saturating_duration_since(Instant::now());
            child_done = matches!(events.recv_timeout(left), Ok(Event::Exited(_)));
            continue;
        }
        // The command itself ended; wait out its tagged processes (inside
        // a container), which are not our children.
        if procfs::tagged(&tags).is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    signal_processes(&procfs::tagged(&tags), Signal::KILL);
    // Last: this kills the launcher too when it leads the group.
    group.signal(Signal::KILL);
}

enum GroupOrChild {
    Group(u32),
    Child(u32),
}

impl GroupOrChild {
    fn signal(&self, signal: Signal) {
        match *self {
            GroupOrChild::Group(leader) => {
                // `of_leader` refuses the caller's own group, which is what
                // this is: signal it directly.
                if let Some(pid) = i32::try_from(leader).ok().and_then(Pid::from_raw) {
                    rustix::process::kill_process_group(pid, signal).ok();
                }
            }
            GroupOrChild::Child(pid) => {
                if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
                    rustix::process::kill_process(pid, signal).ok();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments_round_trip() {
        let launcher = Launcher::this_executable();
        let args = launcher.arguments(
            Duration::from_millis(1500),
            Some("t-1"),
            std::path::Path::new("/bin/bash"),
            &["-c", "echo -- hi"],
        );
        assert_eq!(args[0], LAUNCHER_ARG);
        let plan = parse(args.into_iter().skip(1)).unwrap();
        assert_eq!(plan.grace, Duration::from_millis(1500));
        assert_eq!(plan.tag.as_deref(), Some("t-1"));
        assert_eq!(plan.program, "/bin/bash");
        assert_eq!(plan.args, os(&["-c", "echo -- hi"]));
    }

    #[test]
    fn bad_usage_is_an_error() {
        for args in [
            &[][..],
            &["--grace-ms", "x", "--", "true"],
            &["--tag"],
            &["--what", "--", "true"],
            &["--"],
        ] {
            assert!(
                matches!(parse(os(args)), Err(LaunchError::Usage(_))),
                "{args:?}"
            );
        }
        let plan = parse(os(&["--", "true"])).unwrap();
        assert_eq!(plan.grace, DEFAULT_GRACE);
        assert_eq!(plan.tag, None);
    }
}
