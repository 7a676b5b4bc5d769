//! Running one admitted command through [the runner](warden_infra::runner)
//! (own process group, clean environment, no stdin or terminal, deadline,
//! output capped head and tail, a cancel that stops the whole tree, inside
//! a container too), with its output streamed as `exec_output` frames.
//! Reads go through the sandbox launcher, whose header line says which
//! Landlock ABI applied.

use std::path::Path;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use warden_infra::runner::{
    self, Ending, Finished, Limits, OutputSink, Prefix, RunError, RunSpec, Stream,
    command_environment, current_user_home,
};
use warden_protocol::agent::{
    AgentFrame, ExecErrorCode, ExecFailure, ExecOutput, ExecResult, OutputStream, SandboxReport,
};
use warden_protocol::routing::Invocation;

use crate::sandbox::parse_header_line;

pub use warden_infra::runner::Launcher;

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
    /// The mount-namespace launcher that hides the agent's state and
    /// process ([`warden_confine`]), in front of everything else; `None`
    /// where namespaces are not available (policy only).
    pub hide: Option<Launcher>,
    pub confinement: Confinement,
    pub timeout: Duration,
    /// Bytes kept per stream.
    pub max_output_bytes: usize,
    /// Between SIGTERM and SIGKILL when the command is stopped.
    pub kill_grace: Duration,
}

/// Runs `spec`, streaming output to `frames` (a closed channel just drops
/// output: the command runs on), until it ends, times out, or `cancel`
/// becomes true. Never fails: every ending is an [`ExecResult`].
pub async fn run(
    spec: ExecSpec,
    frames: mpsc::Sender<AgentFrame>,
    mut cancel: watch::Receiver<bool>,
) -> ExecResult {
    // The same clean environment as a command run by `warden` itself.
    let env = command_environment(&current_user_home(), &[], &[]);
    let hiding = spec.hide.iter().map(|launcher| Prefix {
        launcher,
        accepts_header: warden_confine::accepts_header,
    });
    let sandbox = match &spec.confinement {
        Confinement::ReadOnlySandbox(launcher) => Some(Prefix {
            launcher,
            accepts_header: |line| parse_header_line(line).is_some(),
        }),
        Confinement::Unconfined => None,
    };
    let prefix: Vec<Prefix<'_>> = hiding.chain(sandbox).collect();
    let run_spec = RunSpec {
        invocation: &spec.invocation,
        prefix: &prefix,
        working_dir: Path::new("/"),
        env: &env,
        limits: Limits {
            timeout: spec.timeout,
            output_limit: spec.max_output_bytes,
            kill_grace: spec.kill_grace,
        },
    };
    let cancelled = async move {
        loop {
            match cancel.changed().await {
                Ok(()) if *cancel.borrow() => return,
                Ok(()) => {}
                // The agent dropped the switch: nobody can cancel any more.
                Err(_) => std::future::pending::<()>().await,
            }
        }
    };
    let sink = Frames {
        request_id: spec.request_id.clone(),
        frames,
        delivering: true,
        seq: 0,
    };
    match runner::run(&run_spec, cancelled, sink).await {
        Ok(finished) => result(&spec, finished),
        Err(error) => {
            let code = match error {
                RunError::CancelledBeforeStart => ExecErrorCode::Cancelled,
                RunError::WorkingDirectory { .. }
                | RunError::Spawn { .. }
                | RunError::ShuttingDown => ExecErrorCode::ExecFailed,
            };
            ExecResult::refused(spec.request_id, ExecFailure::new(code, error.to_string()))
        }
    }
}

/// The `exec_result` of a run that started.
fn result(spec: &ExecSpec, finished: Finished) -> ExecResult {
    let (exit_code, error) = match finished.ending {
        Ending::Exited(status) => (Some(runner::exit_code(status)), None),
        // The process could not be waited for: it ran, its status is lost.
        Ending::Lost(_) => (Some(255), None),
        Ending::TimedOut => (
            None,
            Some(ExecFailure::new(
                ExecErrorCode::Timeout,
                format!(
                    "timed out after {} ms; its process group was killed",
                    spec.timeout.as_millis()
                ),
            )),
        ),
        Ending::Cancelled => (
            None,
            Some(ExecFailure::new(
                ExecErrorCode::Cancelled,
                "cancelled; its process group was killed",
            )),
        ),
        Ending::LauncherRefused(status) => (
            None,
            Some(ExecFailure::new(
                ExecErrorCode::ExecFailed,
                format!(
                    "the command was not run: its confinement or sandbox launcher failed (exit {}){}",
                    status.map_or_else(
                        || "unknown".to_string(),
                        |s| runner::exit_code(s).to_string()
                    ),
                    finished
                        .stderr
                        .lines()
                        .find(|l| !l.trim().is_empty())
                        .map(|l| format!(": {}", l.trim()))
                        .unwrap_or_default()
                ),
            )),
        ),
    };
    // Inside a container the command is not in the launcher's Landlock
    // domain, whatever its header said.
    let landlock_abi = match &spec.invocation.exec_tag {
        None => finished
            .headers
            .iter()
            .find_map(|line| parse_header_line(line))
            .and_then(|status| status.landlock_abi),
        Some(_) => None,
    };
    ExecResult {
        request_id: spec.request_id.clone(),
        exit_code,
        error,
        truncated: finished.truncated,
        duration_ms: u64::try_from(finished.duration.as_millis()).unwrap_or(u64::MAX),
        sandbox: SandboxReport { landlock_abi },
    }
}

/// Output as `exec_output` frames, numbered.
struct Frames {
    request_id: String,
    frames: mpsc::Sender<AgentFrame>,
    delivering: bool,
    seq: u64,
}

impl OutputSink for Frames {
    async fn deliver(&mut self, stream: Stream, data: String) {
        let frame = AgentFrame::ExecOutput(ExecOutput {
            request_id: self.request_id.clone(),
            stream: match stream {
                Stream::Stdout => OutputStream::Stdout,
                Stream::Stderr => OutputStream::Stderr,
            },
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
