//! This machine's executor: one shell command on this machine, or in one
//! of its containers, through [the runner](crate::runner) (bounded in time
//! and output, no terminal, no stdin, a clean environment, killable as a
//! whole), with the options Warden's configuration sets.
//!
//! A non-zero exit status is data ([`CommandOutput::exit_code`]), not an
//! error: `grep` finding nothing, `systemctl is-active` on a stopped unit and
//! `test -f` are all answers. [`ExecError`] is for runs that produced no
//! answer: the command could not start, ran out of time, or was cancelled;
//! [`ExecError::started`] says whether it may have done something.
//!
//! The executor is async ([`LocalExecutor::execute`],
//! [`LocalExecutor::execute_hop`]); the `run*` methods are synchronous
//! wrappers for callers without a runtime.

use std::path::{Path, PathBuf};
use std::time::Duration;

use warden_protocol::CancelFlag;
use warden_protocol::routing::{Hop, invocation};

use crate::runner::{self, Ending, Launcher, Limits, NoSink, Prefix, RunError, RunSpec};

/// How a command runs. The defaults suit a read tool; a caller may raise the
/// timeout for a long write (an upgrade), or pass variables through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOptions {
    /// Wall-clock limit; the whole process group is killed when it passes.
    pub timeout: Duration,
    /// The command's working directory.
    pub working_dir: PathBuf,
    /// Bytes kept per stream (stdout and stderr each): half from the start,
    /// half from the end.
    pub output_limit: usize,
    /// Between SIGTERM and SIGKILL when a command is stopped.
    pub kill_grace: Duration,
    /// Names of variables copied from Warden's own environment when set
    /// (`SSH_AUTH_SOCK`, `KUBECONFIG`, …); nothing else is inherited.
    pub pass_env: Vec<String>,
    /// Variables set explicitly; applied last, so they override the fixed ones.
    pub set_env: Vec<(String, String)>,
    /// Each command starts through this confinement launcher
    /// ([`warden_confine`]), which must say it confined it; `None` runs
    /// commands as they are.
    pub confine: Option<Launcher>,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            timeout: Duration::from_secs(30),
            working_dir: PathBuf::from("/"),
            output_limit: 64 * 1024,
            kill_grace: Duration::from_secs(2),
            pass_env: Vec::new(),
            set_env: Vec::new(),
            confine: None,
        }
    }
}

impl ExecOptions {
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn with_working_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_dir = dir.into();
        self
    }

    pub fn with_output_limit(mut self, bytes_per_stream: usize) -> Self {
        self.output_limit = bytes_per_stream;
        self
    }

    pub fn with_kill_grace(mut self, grace: Duration) -> Self {
        self.kill_grace = grace;
        self
    }

    pub fn pass_env(mut self, name: impl Into<String>) -> Self {
        self.pass_env.push(name.into());
        self
    }

    pub fn set_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.set_env.push((name.into(), value.into()));
        self
    }

    /// Every command through `warden` at `program` as its confinement
    /// launcher, with `hidden` out of its sight.
    pub fn confined_by(
        mut self,
        program: impl Into<PathBuf>,
        hidden: &warden_confine::Hidden,
    ) -> Self {
        self.confine = Some(Launcher {
            program: program.into(),
            args: warden_confine::launcher_args(hidden),
        });
        self
    }
}

/// What a finished command produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    pub stdout: String,
    pub stderr: String,
    /// The exit status; `128 + N` when signal N ended the shell (as shells
    /// report it), with the signal in [`CommandOutput::signal`].
    pub exit_code: i32,
    /// The signal that ended the shell, if one did.
    pub signal: Option<i32>,
    /// Whether either stream was cut (a marker line says where and how much).
    pub truncated: bool,
    pub duration: Duration,
}

impl CommandOutput {
    pub fn success(&self) -> bool {
        self.exit_code == 0
    }

    /// `SIGKILL` and the like, when a signal ended the shell.
    pub fn signal_name(&self) -> Option<&'static str> {
        self.signal.and_then(runner::signal_name)
    }
}

/// Whatever a command printed before it was stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartialOutput {
    pub stdout: String,
    pub stderr: String,
    pub truncated: bool,
}

/// Why a command produced no [`CommandOutput`].
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("working directory {} is not usable: {reason}", path.display())]
    WorkingDirectory { path: PathBuf, reason: String },
    #[error("could not start {}: {source}", program.display())]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("command timed out after {limit:?}; its process group was killed")]
    TimedOut {
        limit: Duration,
        partial: PartialOutput,
    },
    #[error("command cancelled after {elapsed:?}; its process group was killed")]
    Cancelled {
        elapsed: Duration,
        partial: PartialOutput,
    },
    #[error("lost track of the command's process: {source}")]
    Wait { source: std::io::Error },
    /// The turn was cancelled before the command was started: nothing ran.
    #[error("cancelled before the command started; nothing ran")]
    CancelledBeforeStart,
    /// Warden is shutting down ([`crate::terminate_all`]): nothing ran.
    #[error("Warden is shutting down; the command was not started")]
    ShuttingDown,
    #[error("could not set up the command's runtime: {source}")]
    Runtime { source: std::io::Error },
    /// The confinement launcher did not confine the command: nothing ran.
    #[error("the command was not run: it could not be confined ({reason})")]
    NotConfined { reason: String },
}

impl ExecError {
    /// The output captured before a timeout or cancellation, if any.
    pub fn partial_output(&self) -> Option<&PartialOutput> {
        match self {
            ExecError::TimedOut { partial, .. } | ExecError::Cancelled { partial, .. } => {
                Some(partial)
            }
            ExecError::WorkingDirectory { .. }
            | ExecError::Spawn { .. }
            | ExecError::Wait { .. }
            | ExecError::CancelledBeforeStart
            | ExecError::ShuttingDown
            | ExecError::Runtime { .. }
            | ExecError::NotConfined { .. } => None,
        }
    }

    /// Whether the command was started, and so may have done something
    /// (a write interrupted after it was sent may have happened). `false`
    /// means nothing ran.
    pub fn started(&self) -> bool {
        match self {
            ExecError::TimedOut { .. } | ExecError::Cancelled { .. } | ExecError::Wait { .. } => {
                true
            }
            ExecError::WorkingDirectory { .. }
            | ExecError::Spawn { .. }
            | ExecError::CancelledBeforeStart
            | ExecError::ShuttingDown
            | ExecError::Runtime { .. }
            | ExecError::NotConfined { .. } => false,
        }
    }
}

/// Runs shell commands on this machine. Cheap to clone; holds no processes.
#[derive(Debug, Clone)]
pub struct LocalExecutor {
    shell: PathBuf,
    home: String,
    options: ExecOptions,
}

impl Default for LocalExecutor {
    fn default() -> Self {
        LocalExecutor::new()
    }
}

impl LocalExecutor {
    /// With the default [`ExecOptions`].
    pub fn new() -> Self {
        LocalExecutor::with_options(ExecOptions::default())
    }

    pub fn with_options(options: ExecOptions) -> Self {
        // Commands were classified by a bash-grammar parser, so bash runs them
        // when it exists; `sh` is the fallback on minimal systems.
        let bash = Path::new("/bin/bash");
        let shell = if bash.is_file() {
            bash.to_path_buf()
        } else {
            PathBuf::from("/bin/sh")
        };
        LocalExecutor {
            shell,
            home: runner::current_user_home(),
            options,
        }
    }

    /// The shell that runs commands (`/bin/bash`, else `/bin/sh`).
    pub fn shell(&self) -> &Path {
        &self.shell
    }

    pub fn options(&self) -> &ExecOptions {
        &self.options
    }

    /// Runs `command` in this machine's shell with `options`, stopping it
    /// when `cancel` is set; completes the moment the command ends.
    pub async fn execute(
        &self,
        command: &str,
        options: &ExecOptions,
        cancel: Option<&CancelFlag>,
    ) -> Result<CommandOutput, ExecError> {
        self.execute_hop(&Hop::HostShell, command, options, cancel)
            .await
    }

    /// Runs `command` after `hop` (this machine's shell, or `docker exec`
    /// into one of its containers, as [`warden_protocol::routing::route`]
    /// said): when it is stopped, its processes inside a container are
    /// stopped too.
    pub async fn execute_hop(
        &self,
        hop: &Hop,
        command: &str,
        options: &ExecOptions,
        cancel: Option<&CancelFlag>,
    ) -> Result<CommandOutput, ExecError> {
        let shell = self.shell.to_string_lossy();
        let invocation = invocation(hop, command, &shell, &runner::new_exec_tag());
        let env = runner::command_environment(&self.home, &options.pass_env, &options.set_env);
        let confinement: Vec<Prefix<'_>> = options
            .confine
            .iter()
            .map(|launcher| Prefix {
                launcher,
                accepts_header: warden_confine::accepts_header,
            })
            .collect();
        let spec = RunSpec {
            invocation: &invocation,
            prefix: &confinement,
            working_dir: &options.working_dir,
            env: &env,
            limits: Limits {
                timeout: options.timeout,
                output_limit: options.output_limit,
                kill_grace: options.kill_grace,
            },
        };
        let cancelled = async {
            match cancel {
                Some(flag) => flag.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let finished =
            runner::run(&spec, cancelled, NoSink)
                .await
                .map_err(|error| match error {
                    RunError::WorkingDirectory { path, reason } => {
                        ExecError::WorkingDirectory { path, reason }
                    }
                    RunError::Spawn { program, source } => ExecError::Spawn { program, source },
                    RunError::CancelledBeforeStart => ExecError::CancelledBeforeStart,
                    RunError::ShuttingDown => ExecError::ShuttingDown,
                })?;
        let partial = || PartialOutput {
            stdout: finished.stdout.clone(),
            stderr: finished.stderr.clone(),
            truncated: finished.truncated,
        };
        match finished.ending {
            Ending::Exited(status) => Ok(CommandOutput {
                exit_code: runner::exit_code(status),
                signal: std::os::unix::process::ExitStatusExt::signal(&status),
                truncated: finished.truncated,
                stdout: finished.stdout,
                stderr: finished.stderr,
                duration: finished.duration,
            }),
            Ending::TimedOut => Err(ExecError::TimedOut {
                limit: options.timeout,
                partial: partial(),
            }),
            Ending::Cancelled => Err(ExecError::Cancelled {
                elapsed: finished.duration,
                partial: partial(),
            }),
            Ending::Lost(source) => Err(ExecError::Wait { source }),
            Ending::LauncherRefused(status) => Err(ExecError::NotConfined {
                reason: launcher_said(&finished.stderr, status),
            }),
        }
    }

    /// Runs `command` with this executor's options.
    pub fn run(&self, command: &str) -> Result<CommandOutput, ExecError> {
        self.run_with(command, &self.options, None)
    }

    /// Runs `command` after `hop` with this executor's options; blocks.
    pub fn run_hop(&self, hop: &Hop, command: &str) -> Result<CommandOutput, ExecError> {
        block_on(self.execute_hop(hop, command, &self.options, None))
    }

    /// Runs `command`, stopping it when `cancel` is set.
    pub fn run_cancellable(
        &self,
        command: &str,
        cancel: &CancelFlag,
    ) -> Result<CommandOutput, ExecError> {
        self.run_with(command, &self.options, Some(cancel))
    }

    /// Runs `command` with `options` for this run only; blocks until it
    /// ends. Usable inside an async runtime too (it then waits on a
    /// thread of its own), but async callers should use [`Self::execute`].
    pub fn run_with(
        &self,
        command: &str,
        options: &ExecOptions,
        cancel: Option<&CancelFlag>,
    ) -> Result<CommandOutput, ExecError> {
        block_on(self.execute(command, options, cancel))
    }
}

/// Drives `future` on a runtime of its own (see [`crate::blocking`]).
fn block_on<F>(future: F) -> Result<CommandOutput, ExecError>
where
    F: std::future::Future<Output = Result<CommandOutput, ExecError>> + Send,
{
    crate::blocking::run_blocking(future).map_err(|source| ExecError::Runtime { source })?
}

/// Why the launcher refused, from what it wrote on stderr.
fn launcher_said(stderr: &str, status: Option<std::process::ExitStatus>) -> String {
    let said = stderr
        .lines()
        .map(|line| line.trim_start_matches("warden confine: ").trim())
        .find(|line| !line.is_empty());
    match (said, status) {
        (Some(said), _) => said.to_string(),
        (None, Some(status)) => format!("the launcher exited with {status} without confining it"),
        (None, None) => "the launcher wrote no header".to_string(),
    }
}
