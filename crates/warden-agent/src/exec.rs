//! Running one admitted command: its own process group, a clean
//! environment, no stdin and no terminal, a deadline, a per-stream output
//! cap (head and tail), output streamed as `exec_output` frames, and a
//! cancel that kills the whole group (and, inside a container, the tagged
//! process tree there). Reads go through the sandbox launcher, whose header
//! line says which Landlock ABI applied.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{mpsc, watch};
use tokio::time::sleep_until;
use warden_protocol::agent::{
    AgentFrame, ExecErrorCode, ExecFailure, ExecOutput, ExecResult, OutputStream, SandboxReport,
};

use crate::container_kill::signal_tagged;
use crate::output_cap::StreamCap;
use crate::routing::Invocation;
use crate::sandbox::parse_header_line;
use warden_infra::local_exec::{command_environment, current_user_home};

/// How long output pipes may stay open after the command's shell exited
/// (something it left in the background holds them), and after a kill.
const OUTPUT_DRAIN: Duration = Duration::from_millis(500);
/// The longest header line a launcher writes.
const MAX_HEADER_BYTES: usize = 256;
const READ_BUFFER: usize = 16 * 1024;

/// The program that sandboxes a read and then becomes it: `program args… --
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

/// How the command is confined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// Through the launcher: no_new_privs + read-only Landlock.
    ReadOnlySandbox(Launcher),
    /// As is (a granted write).
    Unconfined,
}

/// Everything one run needs.
#[derive(Debug, Clone)]
pub struct ExecSpec {
    pub request_id: String,
    pub invocation: Invocation,
    pub confinement: Confinement,
    pub timeout: Duration,
    /// Bytes kept per stream.
    pub max_output_bytes: usize,
    /// Between SIGTERM and SIGKILL when the command is stopped.
    pub kill_grace: Duration,
}

/// Why a run stopped before its command ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    Timeout,
    Cancelled,
    /// The launcher did not say how it sandboxed the command.
    NoSandboxHeader,
    /// The command ended but left processes holding its output open.
    Leftovers,
}

/// What the launcher's header has told so far.
enum Header {
    Awaiting(Vec<u8>),
    Received(Option<u32>),
    /// Missing, malformed or too long: the command must not run.
    Invalid,
    NotExpected,
}

/// Runs `spec`, streaming output to `frames` (a closed channel just drops
/// output: the command runs on), until it ends, times out, or `cancel`
/// becomes true. Never fails: every ending is an [`ExecResult`].
pub async fn run(
    spec: ExecSpec,
    frames: mpsc::Sender<AgentFrame>,
    mut cancel: watch::Receiver<bool>,
) -> ExecResult {
    let started = Instant::now();
    let (program, args) = match &spec.confinement {
        Confinement::ReadOnlySandbox(launcher) => (
            launcher.program.clone().into_os_string(),
            launcher
                .args
                .iter()
                .cloned()
                .chain(spec.invocation.argv.iter().map(OsString::from))
                .collect::<Vec<_>>(),
        ),
        Confinement::Unconfined => {
            let mut argv = spec.invocation.argv.iter().map(OsString::from);
            (argv.next().unwrap_or_default(), argv.collect::<Vec<_>>())
        }
    };
    let spawned = tokio::process::Command::new(&program)
        .args(&args)
        .env_clear()
        // The same clean environment as a command run by `warden` itself.
        .envs(command_environment(&current_user_home(), &[], &[]))
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            return ExecResult::refused(
                spec.request_id,
                ExecFailure::new(
                    ExecErrorCode::ExecFailed,
                    format!("could not start {}: {err}", program.to_string_lossy()),
                ),
            );
        }
    };
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw)
        .filter(|pid| pid.as_raw_pid() > 1);
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut out = Output::new(&spec, frames);
    let mut header = match spec.confinement {
        Confinement::ReadOnlySandbox(_) => Header::Awaiting(Vec::new()),
        Confinement::Unconfined => Header::NotExpected,
    };
    let mut out_buf = vec![0u8; READ_BUFFER];
    let mut err_buf = vec![0u8; READ_BUFFER];
    let deadline = started + spec.timeout;
    let mut status: Option<ExitStatus> = None;
    let mut cancel_open = true;
    let mut stopping = Stopping::new(Stopper {
        group,
        container_tag: spec.invocation.container_tag.clone(),
    });
    let mut drain_until: Option<Instant> = None;

    loop {
        if status.is_some() && stdout.is_none() && stderr.is_none() {
            break;
        }
        let wake = match (stopping.killed_at, stopping.terminated_at, drain_until) {
            (Some(at), _, _) => at + OUTPUT_DRAIN,
            (None, Some(at), _) => at + spec.kill_grace,
            (None, None, Some(until)) => until,
            (None, None, None) => deadline,
        };
        tokio::select! {
            read = read_pipe(&mut stdout, &mut out_buf) => match read {
                Some(bytes) => {
                    let rest = take_header(&mut header, &out_buf[..bytes]);
                    if matches!(header, Header::Invalid) {
                        stopping.kill_now(StopReason::NoSandboxHeader).await;
                    }
                    out.push(OutputStream::Stdout, rest).await;
                }
                None => {
                    stdout = None;
                    if matches!(header, Header::Awaiting(_)) {
                        header = Header::Invalid;
                        stopping.kill_now(StopReason::NoSandboxHeader).await;
                    }
                }
            },
            read = read_pipe(&mut stderr, &mut err_buf) => match read {
                Some(bytes) => out.push(OutputStream::Stderr, &err_buf[..bytes]).await,
                None => stderr = None,
            },
            waited = child.wait(), if status.is_none() => {
                status = Some(waited.unwrap_or_else(|_| failed_status()));
                drain_until = Some(Instant::now() + OUTPUT_DRAIN);
            },
            changed = cancel.changed(), if cancel_open && status.is_none() => match changed {
                Ok(()) if *cancel.borrow() => stopping.begin(StopReason::Cancelled).await,
                Ok(()) => {}
                // The agent dropped the switch: nobody can cancel any more.
                Err(_) => cancel_open = false,
            },
            () = sleep_until(wake.into()) => {
                if stopping.killed_at.is_some() {
                    // Killed and drained: whatever still holds the pipes left
                    // the group (setsid); its output is not waited for.
                    break;
                } else if stopping.terminated_at.is_some() {
                    stopping.kill_now(StopReason::Timeout).await;
                } else if status.is_some() {
                    stopping.begin(StopReason::Leftovers).await;
                } else {
                    stopping.begin(StopReason::Timeout).await;
                }
            }
        }
    }
    let stop = stopping.reason;
    let landlock_abi = match (&header, &spec.invocation.container_tag) {
        (Header::Received(abi), None) => *abi,
        _ => None,
    };
    let truncated = out.finish().await;
    let exit_code = status.map(exit_code);
    let error = match stop {
        None | Some(StopReason::Leftovers) => None,
        Some(StopReason::Timeout) => Some(ExecFailure::new(
            ExecErrorCode::Timeout,
            format!(
                "timed out after {} ms; its process group was killed",
                spec.timeout.as_millis()
            ),
        )),
        Some(StopReason::Cancelled) => Some(ExecFailure::new(
            ExecErrorCode::Cancelled,
            "cancelled; its process group was killed",
        )),
        Some(StopReason::NoSandboxHeader) => Some(ExecFailure::new(
            ExecErrorCode::ExecFailed,
            format!(
                "the sandbox launcher failed before running the command (exit {})",
                exit_code.map_or_else(|| "unknown".to_string(), |c| c.to_string())
            ),
        )),
    };
    ExecResult {
        request_id: spec.request_id,
        exit_code: if error.is_some() { None } else { exit_code },
        error,
        truncated,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        sandbox: SandboxReport { landlock_abi },
    }
}

/// Strips the launcher's header from the first stdout bytes; the rest is
/// the command's output.
fn take_header<'a>(header: &mut Header, bytes: &'a [u8]) -> &'a [u8] {
    let Header::Awaiting(buffer) = header else {
        return bytes;
    };
    match bytes.iter().position(|b| *b == b'\n') {
        Some(end) => {
            buffer.extend_from_slice(&bytes[..end]);
            let line = String::from_utf8_lossy(buffer).into_owned();
            *header = match parse_header_line(&line) {
                Some(status) => Header::Received(status.landlock_abi),
                None => Header::Invalid,
            };
            &bytes[end + 1..]
        }
        None => {
            buffer.extend_from_slice(bytes);
            if buffer.len() > MAX_HEADER_BYTES {
                *header = Header::Invalid;
            }
            &[]
        }
    }
}

async fn read_pipe<R: AsyncRead + Unpin>(pipe: &mut Option<R>, buf: &mut [u8]) -> Option<usize> {
    match pipe {
        Some(reader) => match reader.read(buf).await {
            Ok(0) | Err(_) => None,
            Ok(n) => Some(n),
        },
        None => std::future::pending().await,
    }
}

/// How far stopping the command has gone; the first reason sticks.
struct Stopping {
    stopper: Stopper,
    reason: Option<StopReason>,
    terminated_at: Option<Instant>,
    killed_at: Option<Instant>,
}

impl Stopping {
    fn new(stopper: Stopper) -> Self {
        Stopping {
            stopper,
            reason: None,
            terminated_at: None,
            killed_at: None,
        }
    }

    /// SIGTERM now, SIGKILL after the grace period (the caller's timer).
    async fn begin(&mut self, reason: StopReason) {
        self.reason.get_or_insert(reason);
        if self.terminated_at.is_none() {
            self.terminated_at = Some(Instant::now());
            self.stopper.terminate().await;
        }
    }

    async fn kill_now(&mut self, reason: StopReason) {
        self.reason.get_or_insert(reason);
        if self.killed_at.is_none() {
            self.terminated_at.get_or_insert_with(Instant::now);
            self.killed_at = Some(Instant::now());
            self.stopper.signal(Signal::KILL).await;
        }
    }
}

/// Signals the command's process group and, inside a container, its tagged tree.
struct Stopper {
    group: Option<Pid>,
    container_tag: Option<String>,
}

impl Stopper {
    /// SIGTERM, then SIGCONT so that stopped members can act on it.
    async fn terminate(&self) {
        self.signal(Signal::TERM).await;
        self.signal(Signal::CONT).await;
    }

    async fn signal(&self, signal: Signal) {
        // The container's process first: its exit also ends the local client.
        if let Some(tag) = self.container_tag.clone() {
            let outcome = tokio::task::spawn_blocking(move || signal_tagged(&tag, signal)).await;
            if let Ok(outcome) = outcome {
                tracing::debug!(?outcome, "signalled the command inside its container");
            }
        }
        if let Some(group) = self.group {
            // ESRCH (the group is gone) is the goal; EPERM cannot be helped.
            kill_process_group(group, signal).ok();
        }
    }
}

/// The two capped streams and the frames they produce.
struct Output {
    request_id: String,
    frames: mpsc::Sender<AgentFrame>,
    delivering: bool,
    seq: u64,
    stdout: StreamCap,
    stderr: StreamCap,
}

impl Output {
    fn new(spec: &ExecSpec, frames: mpsc::Sender<AgentFrame>) -> Self {
        Output {
            request_id: spec.request_id.clone(),
            frames,
            delivering: true,
            seq: 0,
            stdout: StreamCap::new(spec.max_output_bytes),
            stderr: StreamCap::new(spec.max_output_bytes),
        }
    }

    async fn push(&mut self, stream: OutputStream, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let text = match stream {
            OutputStream::Stdout => self.stdout.push(bytes),
            OutputStream::Stderr => self.stderr.push(bytes),
        };
        if let Some(text) = text {
            self.send(stream, text).await;
        }
    }

    /// Sends the tails; whether either stream was truncated.
    async fn finish(mut self) -> bool {
        let stdout = std::mem::replace(&mut self.stdout, StreamCap::new(0)).finish();
        let stderr = std::mem::replace(&mut self.stderr, StreamCap::new(0)).finish();
        if let Some(text) = stdout.text {
            self.send(OutputStream::Stdout, text).await;
        }
        if let Some(text) = stderr.text {
            self.send(OutputStream::Stderr, text).await;
        }
        stdout.truncated || stderr.truncated
    }

    async fn send(&mut self, stream: OutputStream, data: String) {
        let frame = AgentFrame::ExecOutput(ExecOutput {
            request_id: self.request_id.clone(),
            stream,
            data,
            seq: self.seq,
        });
        self.seq += 1;
        if self.delivering && self.frames.send(frame).await.is_err() {
            // The connection is gone; the command still runs to its end.
            self.delivering = false;
        }
    }
}

fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => -1,
    }
}

/// A status for a child whose wait failed (it cannot be waited for again).
fn failed_status() -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    ExitStatus::from_raw(255 << 8)
}
