//! The one command runner: the only place where Warden, on its own host or
//! as an agent, starts a command ([`run`]). What to start comes from
//! [`warden_protocol::routing::invocation`] (the host shell, or `docker
//! exec`/`pct exec` with the container wrapper and its tag).
//!
//! Every command:
//! - starts in a clean environment ([`command_environment`]), with no
//!   stdin and no terminal, as the leader of its own process group;
//! - optionally through launchers ([`Prefix`]: the confinement that hides
//!   Warden's secrets, the agent's Landlock sandbox for reads), each of
//!   which writes a header line on stdout, in order, that the caller
//!   checks; without a valid one the command is killed at once;
//! - has each output stream capped, keeping head and tail ([`StreamCap`]),
//!   the head handed to an [`OutputSink`] as it arrives (the agent streams
//!   `exec_output` frames) and the rest at the end;
//! - ends by itself, at its timeout, or when its cancel future completes:
//!   then SIGTERM to its whole group and (inside a container) to its tagged
//!   processes, a grace, SIGKILL;
//! - and the run does not return until every process of its group, and of
//!   its tag in a container, is gone or provably dying (a bounded wait after
//!   SIGKILL), on every path: a clean exit too, whose leftovers (a
//!   background job) are stopped the same way.
//!
//! No command outlives Warden: each one is registered while it runs
//! ([`terminate_all`] stops them all, for signal handlers and shutdown),
//! and once [`start_watchdog`] has run, a watchdog process stops them when
//! Warden is killed outright.

mod capture;
mod environment;
mod process_group;
mod procfs;
mod registry;
mod run;
mod stopping;
mod watchdog;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use warden_protocol::routing::{ExecTag, Invocation};

pub use capture::{StreamCap, StreamEnd};
pub use environment::{FIXED_PATH, command_environment, current_user_home};
pub use process_group::signal_name;
pub use registry::{running_commands, terminate_all};
pub use run::run;
pub use stopping::Shutdown;
pub use warden_protocol::routing::EXEC_TAG_VAR;
pub use watchdog::{
    WATCHDOG_ARG, WatchdogError, run_watchdog, start_watchdog, watchdog_pid, watchdog_running,
};

/// A program that confines a command and then becomes it: `program args…
/// COMMAND…`, e.g. `warden agent sandbox-exec --landlock read-only --`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

impl Launcher {
    /// `WARDEN agent sandbox-exec --landlock read-only --`.
    pub fn warden_subcommand(warden: impl Into<PathBuf>) -> Self {
        Launcher {
            program: warden.into(),
            args: ["agent", "sandbox-exec", "--landlock", "read-only", "--"]
                .into_iter()
                .map(OsString::from)
                .collect(),
        }
    }

    /// The standalone `warden-agent-sandbox --` binary.
    pub fn standalone(program: impl Into<PathBuf>) -> Self {
        Launcher {
            program: program.into(),
            args: vec![OsString::from("--")],
        }
    }
}

/// A launcher in front of the command, and the check of the header line it
/// writes on stdout (which is not output). Launchers chain: each starts
/// the next, and their headers come in the same order.
#[derive(Debug, Clone, Copy)]
pub struct Prefix<'a> {
    pub launcher: &'a Launcher,
    /// Whether a line is the launcher's header saying it confined the command.
    pub accepts_header: fn(&str) -> bool,
}

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock limit, from the spawn.
    pub timeout: Duration,
    /// Bytes kept per stream (stdout and stderr each): half from the
    /// start, half from the end.
    pub output_limit: usize,
    /// Between SIGTERM and SIGKILL when the command is stopped.
    pub kill_grace: Duration,
}

/// One command to run.
#[derive(Debug, Clone, Copy)]
pub struct RunSpec<'a> {
    pub invocation: &'a Invocation,
    /// Launchers, outermost first; empty for none.
    pub prefix: &'a [Prefix<'a>],
    pub working_dir: &'a Path,
    /// The whole environment (nothing else is inherited).
    pub env: &'a [(String, String)],
    pub limits: Limits,
}

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Where output goes while the command runs: the head of each stream as it
/// arrives, the rest (tail and marker) when it closes. Awaited: a slow sink
/// slows the reading of the pipes, never drops output.
pub trait OutputSink: Send {
    fn deliver(&mut self, stream: Stream, text: String) -> impl Future<Output = ()> + Send;
}

/// Output goes nowhere while the command runs (it is in [`Finished`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSink;

impl OutputSink for NoSink {
    fn deliver(&mut self, _stream: Stream, _text: String) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }
}

/// How a run ended.
#[derive(Debug)]
pub enum Ending {
    /// The command ended by itself (its leftovers were stopped).
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
    /// A launcher wrote no valid header (or none at all): it was killed
    /// at once, having run nothing. Its exit status, when it was reaped.
    LauncherRefused(Option<ExitStatus>),
    /// The process could not be waited for.
    Lost(std::io::Error),
}

/// A run that started, however it ended.
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    /// Capped output, with a marker line where bytes were dropped.
    pub stdout: String,
    pub stderr: String,
    /// Whether either stream was cut.
    pub truncated: bool,
    pub duration: Duration,
    /// The launchers' header lines, in order (all of them, or the run
    /// ended in [`Ending::LauncherRefused`]).
    pub headers: Vec<String>,
}

/// Why nothing was started.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("working directory {} is not usable: {reason}", path.display())]
    WorkingDirectory { path: PathBuf, reason: String },
    #[error("could not start {}: {source}", program.display())]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("cancelled before the command started; nothing ran")]
    CancelledBeforeStart,
    #[error("Warden is shutting down; the command was not started")]
    ShuttingDown,
}

/// The exit status as a shell reports it: the code, or `128 + N` when
/// signal N ended the process.
pub fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        // Neither exited nor signalled cannot happen for a reaped child.
        (None, None) => -1,
    }
}

/// A tag no other run on this machine carries (see [`ExecTag::unique`]).
pub fn new_exec_tag() -> ExecTag {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    ExecTag::unique(
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos,
    )
}
