//! One command from spawn to its last process gone, on tokio. While it
//! runs, its exit, both pipes, the deadline and the cancel are awaited
//! together (no polling: an ending is noticed the moment it happens).
//! `/proc` is read only once the command is over or being stopped.

use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, ChildStderr, ChildStdout};
use tokio::time::sleep_until;
use warden_protocol::routing::ExecTag;

use super::capture::StreamCap;
use super::process_group::signal_processes;
use super::registry::{self, Registration, SpawnRefused};
use super::{Ending, Finished, Limits, OutputSink, RunError, RunSpec, Stream, procfs};

/// How long the output pipes may stay open after the command exited. Past
/// it, something the command left behind still holds them (`sleep 60 &`):
/// nobody would read that output, and the leftovers are stopped.
const OUTPUT_DRAIN: Duration = Duration::from_millis(500);
/// After SIGKILL, how long the group gets to be gone and the pipes to
/// close; a process still holding them then left the group (`setsid`).
const AFTER_KILL: Duration = Duration::from_secs(1);
/// A leader that was sent SIGKILL and did not exit within [`AFTER_KILL`]
/// (stuck in the kernel) is waited for this much longer, then left to the
/// runtime to reap.
const REAP_WAIT: Duration = Duration::from_secs(5);
/// While stopping, how often `/proc` is looked at again.
const STOP_POLL: Duration = Duration::from_millis(20);
/// How long no tagged process must be seen before the container side
/// counts as gone: an exec the engine was still starting shows up late.
const CONTAINER_QUIET: Duration = Duration::from_millis(150);
/// The longest header line a launcher writes.
const MAX_HEADER_BYTES: usize = 256;
const READ_BUFFER: usize = 32 * 1024;

/// Runs `spec` until it and everything it started is over: by itself, at
/// its timeout, or when `cancel` completes (checked before the spawn too).
/// Output goes to `sink` as it arrives and is in the [`Finished`] answer.
pub async fn run<S: OutputSink>(
    spec: &RunSpec<'_>,
    cancel: impl Future<Output = ()>,
    sink: S,
) -> Result<Finished, RunError> {
    let started = Instant::now();
    let mut cancel = std::pin::pin!(cancel);
    let cancelled_already = tokio::select! {
        biased;
        () = cancel.as_mut() => true,
        () = std::future::ready(()) => false,
    };
    if cancelled_already {
        return Err(RunError::CancelledBeforeStart);
    }
    check_working_dir(spec.working_dir)?;
    let mut command = process_for(spec)?;
    let tag = spec.invocation.exec_tag.as_ref().map(ExecTag::as_str);
    let (mut child, registration) =
        registry::spawn(&mut command, tag).map_err(|refused| match refused {
            SpawnRefused::ShuttingDown => RunError::ShuttingDown,
            SpawnRefused::Spawn(source) => RunError::Spawn {
                program: command.as_std().get_program().into(),
                source,
            },
        })?;
    let limit = spec.limits.output_limit;
    let mut job = Job {
        stdout: child.stdout.take(),
        stderr: child.stderr.take(),
        child,
        registration,
        tag: tag.map(str::to_string),
        sink,
        out: Captured::new(limit),
        err: Captured::new(limit),
        header: Header::new(spec.prefix.iter().map(|p| p.accepts_header).collect()),
        limits: spec.limits,
        status: None,
        stop: None,
        phase: Phase::Running,
        quiet_since: None,
        next_sweep: started,
    };
    job.drive(started + spec.limits.timeout, cancel.as_mut())
        .await;
    Ok(job.finish(started).await)
}

fn process_for(spec: &RunSpec<'_>) -> Result<tokio::process::Command, RunError> {
    let argv = &spec.invocation.argv;
    if argv.is_empty() {
        return Err(RunError::Spawn {
            program: Default::default(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"),
        });
    }
    // `L1 ARGS1… L2 ARGS2… PROGRAM ARGS…`: each launcher starts the rest.
    let mut line = spec
        .prefix
        .iter()
        .flat_map(|p| {
            std::iter::once(p.launcher.program.as_os_str())
                .chain(p.launcher.args.iter().map(|a| a.as_os_str()))
        })
        .chain(argv.iter().map(std::ffi::OsStr::new));
    let Some(program) = line.next() else {
        return Err(RunError::Spawn {
            program: Default::default(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"),
        });
    };
    let mut command = tokio::process::Command::new(program);
    command.args(line);
    command
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(spec.working_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group: one signal reaches everything it starts, and the
        // terminal's Ctrl-C (sent to Warden's group) does not.
        .process_group(0)
        .kill_on_drop(false);
    Ok(command)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    TimedOut,
    Cancelled,
    LauncherRefused,
    /// The command ended and left processes behind.
    Leftovers,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    /// Exited; the pipes may stay open until then.
    Draining(Instant),
    /// SIGTERM sent then.
    Terminating(Instant),
    /// SIGKILL sent then.
    Killed(Instant),
}

/// What the launchers' headers have told so far.
struct Header {
    /// The check of each launcher's header, in order.
    expected: Vec<fn(&str) -> bool>,
    received: Vec<String>,
    /// The start of the next header line.
    partial: Vec<u8>,
    /// Missing, malformed or too long: the command must not run.
    refused: bool,
}

impl Header {
    fn new(expected: Vec<fn(&str) -> bool>) -> Self {
        Header {
            expected,
            received: Vec::new(),
            partial: Vec::new(),
            refused: false,
        }
    }

    /// Still waiting for a header (stdout is not output yet).
    fn awaiting(&self) -> bool {
        !self.refused && self.received.len() < self.expected.len()
    }
}

/// One stream: its cap, and all text delivered so far.
struct Captured {
    cap: StreamCap,
    text: String,
}

impl Captured {
    fn new(limit: usize) -> Self {
        Captured {
            cap: StreamCap::new(limit),
            text: String::new(),
        }
    }
}

struct Job<S> {
    child: Child,
    registration: Registration,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    tag: Option<String>,
    sink: S,
    out: Captured,
    err: Captured,
    header: Header,
    limits: Limits,
    status: Option<std::io::Result<ExitStatus>>,
    /// The first reason to stop sticks.
    stop: Option<StopReason>,
    phase: Phase,
    /// Since when no tagged process was seen (while stopping).
    quiet_since: Option<Instant>,
    /// When to look at `/proc` again (while stopping).
    next_sweep: Instant,
}

impl<S: OutputSink> Job<S> {
    async fn drive<C: Future<Output = ()>>(&mut self, deadline: Instant, mut cancel: Pin<&mut C>) {
        let mut out_buf = vec![0u8; READ_BUFFER];
        let mut err_buf = vec![0u8; READ_BUFFER];
        loop {
            let over = self.status.is_some() && self.stdout.is_none() && self.stderr.is_none();
            if over {
                match self.phase {
                    Phase::Running | Phase::Draining(_) => {
                        if !self.leftovers() {
                            break;
                        }
                        self.terminate(StopReason::Leftovers);
                    }
                    Phase::Terminating(_) | Phase::Killed(_) => {
                        if self.gone() {
                            break;
                        }
                    }
                }
            }
            let wake = match self.phase {
                Phase::Running => deadline,
                Phase::Draining(until) => until,
                Phase::Terminating(at) => at + self.limits.kill_grace,
                Phase::Killed(at) => at + AFTER_KILL,
            };
            let stopping = matches!(self.phase, Phase::Terminating(_) | Phase::Killed(_));
            tokio::select! {
                // Order matters: an exit that raced a cancel or the deadline
                // wins (the command finished, and its answer is the truth);
                // the timers come before the pipes, so a command that never
                // stops printing still meets its deadline.
                biased;
                waited = self.child.wait(), if self.status.is_none() => {
                    self.status = Some(waited);
                    if self.phase == Phase::Running {
                        self.phase = Phase::Draining(Instant::now() + OUTPUT_DRAIN);
                    }
                }
                () = cancel.as_mut(), if self.phase == Phase::Running => {
                    self.terminate(StopReason::Cancelled);
                }
                () = sleep_until(wake.into()) => match self.phase {
                    Phase::Running => self.terminate(StopReason::TimedOut),
                    Phase::Draining(_) => self.terminate(StopReason::Leftovers),
                    Phase::Terminating(_) => self.kill(None),
                    // Bounded: whatever still holds the pipes left the group.
                    Phase::Killed(_) => break,
                },
                () = sleep_until(self.next_sweep.into()), if stopping => {
                    self.next_sweep = Instant::now() + STOP_POLL;
                    self.sweep_container();
                }
                read = read_pipe(&mut self.stdout, &mut out_buf) => match read {
                    Some(n) => {
                        let rest = take_header(&mut self.header, &out_buf[..n]);
                        if self.header.refused {
                            self.kill(Some(StopReason::LauncherRefused));
                        }
                        self.push(Stream::Stdout, rest).await;
                    }
                    None => {
                        self.stdout = None;
                        if self.header.awaiting() {
                            self.header.refused = true;
                            self.kill(Some(StopReason::LauncherRefused));
                        }
                    }
                },
                read = read_pipe(&mut self.stderr, &mut err_buf) => match read {
                    Some(n) => self.push(Stream::Stderr, &err_buf[..n]).await,
                    None => self.stderr = None,
                },
            }
        }
        if self.status.is_none() {
            // Sent SIGKILL (every path that gets here did): it is dying.
            if let Ok(waited) = tokio::time::timeout(REAP_WAIT, self.child.wait()).await {
                self.status = Some(waited);
            }
        }
    }

    /// Whether the command left anything running: in its group (one
    /// syscall when nothing is left), or tagged inside its container.
    fn leftovers(&self) -> bool {
        let in_group = self.registration.group.is_some_and(|group| {
            group.has_members() && !procfs::live_groups(&[group.id()].into()).is_empty()
        });
        in_group || !self.tagged().is_empty()
    }

    /// Whether everything is gone (or only zombies are left): the group,
    /// and the container side for a quiet while.
    fn gone(&mut self) -> bool {
        let group_gone = self.registration.group.is_none_or(|group| {
            !group.has_members() || procfs::live_groups(&[group.id()].into()).is_empty()
        });
        if !group_gone {
            return false;
        }
        if self.tag.is_none() {
            return true;
        }
        self.sweep_container();
        self.quiet_since
            .is_some_and(|since| since.elapsed() >= CONTAINER_QUIET)
    }

    fn tagged(&self) -> Vec<procfs::ProcEntry> {
        match &self.tag {
            Some(tag) => procfs::tagged(&[tag.as_str()]),
            None => Vec::new(),
        }
    }

    /// While stopping: signals the container side's processes (again: an
    /// exec the engine was still starting shows up late).
    fn sweep_container(&mut self) {
        if self.tag.is_none() {
            return;
        }
        let left = self.tagged();
        if left.is_empty() {
            self.quiet_since.get_or_insert_with(Instant::now);
            return;
        }
        self.quiet_since = None;
        match self.phase {
            Phase::Killed(_) => signal_processes(&left, Signal::KILL),
            Phase::Running | Phase::Draining(_) | Phase::Terminating(_) => {
                signal_processes(&left, Signal::TERM)
            }
        }
    }

    /// SIGTERM (then SIGCONT, for members stopped by job control) to the
    /// whole group and the container side; SIGKILL after the grace.
    fn terminate(&mut self, reason: StopReason) {
        self.stop.get_or_insert(reason);
        if matches!(self.phase, Phase::Terminating(_) | Phase::Killed(_)) {
            return;
        }
        match self.registration.group {
            Some(group) => group.terminate(),
            // No group to signal (cannot happen for a real child): the
            // leader alone is all that can be stopped.
            None => {
                self.child.start_kill().ok();
            }
        }
        signal_processes(&self.tagged(), Signal::TERM);
        self.quiet_since = None;
        self.phase = Phase::Terminating(Instant::now());
        self.next_sweep = Instant::now() + STOP_POLL;
    }

    fn kill(&mut self, reason: Option<StopReason>) {
        if let Some(reason) = reason {
            self.stop.get_or_insert(reason);
        }
        if matches!(self.phase, Phase::Killed(_)) {
            return;
        }
        match self.registration.group {
            Some(group) => group.kill(),
            None => {
                self.child.start_kill().ok();
            }
        }
        signal_processes(&self.tagged(), Signal::KILL);
        self.quiet_since = None;
        self.phase = Phase::Killed(Instant::now());
        self.next_sweep = Instant::now() + STOP_POLL;
    }

    async fn push(&mut self, stream: Stream, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let captured = match stream {
            Stream::Stdout => &mut self.out,
            Stream::Stderr => &mut self.err,
        };
        if let Some(text) = captured.cap.push(bytes) {
            captured.text.push_str(&text);
            self.sink.deliver(stream, text).await;
        }
    }

    /// Delivers the tails and answers.
    async fn finish(self, started: Instant) -> Finished {
        let Job {
            registration,
            mut sink,
            out,
            err,
            header,
            status,
            stop,
            ..
        } = self;
        registration.finish();
        let mut truncated = false;
        let mut texts = Vec::with_capacity(2);
        for (stream, captured) in [(Stream::Stdout, out), (Stream::Stderr, err)] {
            let end = captured.cap.finish();
            truncated |= end.truncated;
            let mut text = captured.text;
            if let Some(rest) = end.text {
                text.push_str(&rest);
                sink.deliver(stream, rest).await;
            }
            texts.push(text);
        }
        let stderr = texts.pop().unwrap_or_default();
        let stdout = texts.pop().unwrap_or_default();
        let ending = match (stop, status) {
            (Some(StopReason::TimedOut), _) => Ending::TimedOut,
            (Some(StopReason::Cancelled), _) => Ending::Cancelled,
            (Some(StopReason::LauncherRefused), status) => {
                Ending::LauncherRefused(status.and_then(Result::ok))
            }
            (None | Some(StopReason::Leftovers), Some(Ok(status))) => Ending::Exited(status),
            (None | Some(StopReason::Leftovers), Some(Err(error))) => Ending::Lost(error),
            (None | Some(StopReason::Leftovers), None) => Ending::Lost(std::io::Error::other(
                "the command did not exit after SIGKILL",
            )),
        };
        Finished {
            ending,
            stdout,
            stderr,
            truncated,
            duration: started.elapsed(),
            headers: header.received,
        }
    }
}

/// Strips the launchers' headers from the first stdout bytes; the rest is
/// the command's output.
fn take_header<'a>(header: &mut Header, mut bytes: &'a [u8]) -> &'a [u8] {
    while header.awaiting() {
        let Some(end) = bytes.iter().position(|b| *b == b'\n') else {
            header.partial.extend_from_slice(bytes);
            if header.partial.len() > MAX_HEADER_BYTES {
                header.refused = true;
            }
            return &[];
        };
        header.partial.extend_from_slice(&bytes[..end]);
        bytes = &bytes[end + 1..];
        let line = String::from_utf8_lossy(&std::mem::take(&mut header.partial)).into_owned();
        let accepts = header.expected[header.received.len()];
        if accepts(&line) && line.len() <= MAX_HEADER_BYTES {
            header.received.push(line);
        } else {
            header.refused = true;
        }
    }
    if header.refused { &[] } else { bytes }
}

/// One read; `None` at the end of the pipe (a read error means it is gone
/// too). A closed pipe is never ready.
async fn read_pipe<R: AsyncRead + Unpin>(pipe: &mut Option<R>, buf: &mut [u8]) -> Option<usize> {
    match pipe {
        Some(reader) => loop {
            match reader.read(buf).await {
                Ok(0) => return None,
                Ok(n) => return Some(n),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        },
        None => std::future::pending().await,
    }
}

fn check_working_dir(dir: &std::path::Path) -> Result<(), RunError> {
    // Checked up front: a missing directory would otherwise surface as a
    // spawn error that reads like a missing program.
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(RunError::WorkingDirectory {
            path: dir.to_path_buf(),
            reason: "not a directory".into(),
        }),
        Err(err) => Err(RunError::WorkingDirectory {
            path: dir.to_path_buf(),
            reason: err.to_string(),
        }),
    }
}
