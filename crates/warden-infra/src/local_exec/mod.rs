//! Running one shell command on this machine, the way Warden must: bounded in
//! time and output, with no terminal and no stdin, in a clean environment,
//! and killable as a whole (its process group) on timeout or cancellation.
//!
//! A non-zero exit status is data ([`CommandOutput::exit_code`]), not an
//! error: `grep` finding nothing, `systemctl is-active` on a stopped unit and
//! `test -f` are all answers. [`ExecError`] is for runs that produced no
//! answer: the command could not start, ran out of time, or was cancelled.

mod capture;
mod environment;
mod process_group;

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use warden_protocol::CancelFlag;

use capture::CappedStream;
pub use environment::FIXED_PATH;
use process_group::ProcessGroup;
pub use process_group::signal_name;

/// How long the output pipes may stay open after the shell has exited. Past
/// it, something the command left in its process group still holds them
/// (`sleep 60 &` without a redirect): the group is then terminated, because
/// Warden's commands are bounded and nobody would read that output anyway.
/// Background jobs that redirected their output (`nohup x >log 2>&1 &`) close
/// the pipes at once and are left alone, as over `ssh`.
const OUTPUT_DRAIN: Duration = Duration::from_millis(500);

/// The longest sleep between two looks at the child and the cancel flag
/// (the flag is honoured within this time).
const MAX_POLL_INTERVAL: Duration = Duration::from_millis(50);

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
        self.signal.and_then(signal_name)
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
            | ExecError::Wait { .. } => None,
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
            home: environment::current_user_home(),
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

    /// Runs `command` with this executor's options.
    pub fn run(&self, command: &str) -> Result<CommandOutput, ExecError> {
        self.run_with(command, &self.options, None)
    }

    /// Runs `command`, stopping it when `cancel` is set.
    pub fn run_cancellable(
        &self,
        command: &str,
        cancel: &CancelFlag,
    ) -> Result<CommandOutput, ExecError> {
        self.run_with(command, &self.options, Some(cancel))
    }

    /// Runs `command` with `options` for this run only.
    pub fn run_with(
        &self,
        command: &str,
        options: &ExecOptions,
        cancel: Option<&CancelFlag>,
    ) -> Result<CommandOutput, ExecError> {
        let started = Instant::now();
        if cancel.is_some_and(CancelFlag::is_cancelled) {
            return Err(ExecError::Cancelled {
                elapsed: Duration::ZERO,
                partial: PartialOutput::default(),
            });
        }
        check_working_dir(&options.working_dir)?;
        let mut child = Command::new(&self.shell)
            .arg("-c")
            .arg(command)
            .current_dir(&options.working_dir)
            .env_clear()
            .envs(environment::command_environment(
                &self.home,
                &options.pass_env,
                &options.set_env,
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|source| ExecError::Spawn {
                program: self.shell.clone(),
                source,
            })?;
        let mut run = RunningCommand::start(&mut child, options.output_limit);
        let deadline = started + options.timeout;
        let ending = run.wait_for_exit(deadline, cancel);
        match ending {
            Ok(Ending::Exited(status)) => {
                if !run.wait_for_output(OUTPUT_DRAIN) {
                    run.stop(options.kill_grace);
                }
                let (stdout, stderr) = run.output();
                Ok(CommandOutput {
                    truncated: stdout.truncated || stderr.truncated,
                    stdout: stdout.text,
                    stderr: stderr.text,
                    exit_code: exit_code(status),
                    signal: std::os::unix::process::ExitStatusExt::signal(&status),
                    duration: started.elapsed(),
                })
            }
            Ok(Ending::TimedOut) => {
                run.stop(options.kill_grace);
                Err(ExecError::TimedOut {
                    limit: options.timeout,
                    partial: run.partial_output(),
                })
            }
            Ok(Ending::Cancelled) => {
                run.stop(options.kill_grace);
                Err(ExecError::Cancelled {
                    elapsed: started.elapsed(),
                    partial: run.partial_output(),
                })
            }
            Err(source) => {
                run.stop(options.kill_grace);
                Err(ExecError::Wait { source })
            }
        }
    }
}

fn check_working_dir(dir: &Path) -> Result<(), ExecError> {
    // Checked up front: a missing directory would otherwise surface as a
    // spawn error that reads like a missing shell.
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(ExecError::WorkingDirectory {
            path: dir.to_path_buf(),
            reason: "not a directory".into(),
        }),
        Err(err) => Err(ExecError::WorkingDirectory {
            path: dir.to_path_buf(),
            reason: err.to_string(),
        }),
    }
}

fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        // Neither exited nor signalled cannot happen for a reaped child.
        (None, None) => -1,
    }
}

/// How the wait for the shell ended.
enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

type SharedStream = Arc<Mutex<CappedStream>>;

/// A spawned command and the threads draining its output.
struct RunningCommand<'a> {
    child: &'a mut Child,
    group: Option<ProcessGroup>,
    exited: bool,
    stdout: SharedStream,
    stderr: SharedStream,
    readers: Vec<JoinHandle<()>>,
}

impl<'a> RunningCommand<'a> {
    fn start(child: &'a mut Child, output_limit: usize) -> Self {
        let stdout = Arc::new(Mutex::new(CappedStream::new(output_limit)));
        let stderr = Arc::new(Mutex::new(CappedStream::new(output_limit)));
        // Both streams are read at once, each on its own thread, so a command
        // that fills one pipe while we wait on the other never blocks.
        let mut readers = Vec::new();
        if let Some(pipe) = child.stdout.take() {
            readers.push(spawn_reader(pipe, Arc::clone(&stdout)));
        }
        if let Some(pipe) = child.stderr.take() {
            readers.push(spawn_reader(pipe, Arc::clone(&stderr)));
        }
        RunningCommand {
            group: ProcessGroup::of_leader(child),
            child,
            exited: false,
            stdout,
            stderr,
            readers,
        }
    }

    fn wait_for_exit(
        &mut self,
        deadline: Instant,
        cancel: Option<&CancelFlag>,
    ) -> std::io::Result<Ending> {
        let mut interval = Duration::from_millis(1);
        loop {
            if let Some(status) = self.child.try_wait()? {
                self.exited = true;
                return Ok(Ending::Exited(status));
            }
            if cancel.is_some_and(CancelFlag::is_cancelled) {
                return Ok(Ending::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(Ending::TimedOut);
            }
            // Short first sleeps keep quick commands quick; the cap bounds
            // how late a cancellation is noticed.
            std::thread::sleep(interval.min(deadline - now));
            interval = (interval * 2).min(MAX_POLL_INTERVAL);
        }
    }

    /// Waits up to `limit` for both output pipes to close; whether they did.
    fn wait_for_output(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        loop {
            if self.readers.iter().all(JoinHandle::is_finished) {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Stops the whole group: SIGTERM, up to `grace` for the shell to exit and
    /// the pipes to close, then SIGKILL for whatever is left, then reaps.
    fn stop(&mut self, grace: Duration) {
        let Some(group) = self.group else {
            // No group to signal (cannot happen for a real child): the shell
            // alone is all that can be stopped.
            self.child.kill().ok();
            self.child.wait().ok();
            return;
        };
        group.terminate();
        let until = Instant::now() + grace;
        loop {
            if !self.exited {
                self.exited = matches!(self.child.try_wait(), Ok(Some(_)));
            }
            let pipes_closed = self.readers.iter().all(JoinHandle::is_finished);
            if self.exited && pipes_closed {
                return;
            }
            if Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // The group keeps its id while any member lives, so this reaches
        // only the command's own leftovers.
        group.kill();
        if !self.exited {
            self.child.wait().ok();
            self.exited = true;
        }
        // Members are dead now; the pipes close unless a process that left
        // the group (a daemon that called setsid) still holds them. Then the
        // reader threads end when it does, and we return what we have.
        self.wait_for_output(OUTPUT_DRAIN);
    }

    fn output(&self) -> (capture::RenderedStream, capture::RenderedStream) {
        let render = |stream: &SharedStream| {
            stream
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .render()
        };
        (render(&self.stdout), render(&self.stderr))
    }

    fn partial_output(&self) -> PartialOutput {
        let (stdout, stderr) = self.output();
        PartialOutput {
            truncated: stdout.truncated || stderr.truncated,
            stdout: stdout.text,
            stderr: stderr.text,
        }
    }
}

fn spawn_reader(mut pipe: impl Read + Send + 'static, sink: SharedStream) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buffer = vec![0u8; 32 * 1024];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => sink
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(&buffer[..n]),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                // A read error on a pipe means it is gone: same as EOF.
                Err(_) => break,
            }
        }
    })
}
