//! One command from spawn to reaped, on tokio: the exit, the timeout and
//! the cancel flag are awaited together, so a command is noticed the moment
//! it ends and a cancellation the moment it is asked for (no polling).

use std::future::Future;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use warden_protocol::CancelFlag;

use super::capture::CappedStream;
use super::registry::{self, Registration, SpawnRefused};
use super::{
    CommandOutput, ExecError, ExecOptions, LocalExecutor, PartialOutput, environment,
    process_group::signal_processes, procfs,
};

/// How long the output pipes may stay open after the shell has exited. Past
/// it, something the command left in its process group still holds them
/// (`sleep 60 &` without a redirect): the group is then terminated, because
/// Warden's commands are bounded and nobody would read that output anyway.
/// Background jobs that redirected their output (`nohup x >log 2>&1 &`) close
/// the pipes at once and are left alone, as over `ssh`.
const OUTPUT_DRAIN: Duration = Duration::from_millis(500);

/// After a routed command's local side is gone, how long no tagged process
/// must be seen before the container side counts as stopped too: an exec
/// the engine was already starting when its client died shows up late.
const CONTAINER_QUIET: Duration = Duration::from_millis(150);

/// One command to run: the shell line, and the tag its processes inside a
/// container carry ([`procfs::EXEC_TAG_VAR`]), if it is routed into one.
pub(crate) struct Job<'a> {
    pub command: &'a str,
    pub tag: Option<&'a str>,
}

enum Ending {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

impl LocalExecutor {
    fn spawn_command(&self, job: &Job<'_>, options: &ExecOptions) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.shell);
        command
            .arg("-c")
            .arg(job.command)
            .stdin(Stdio::null())
            .current_dir(&options.working_dir)
            .env_clear()
            .envs(environment::command_environment(
                &self.home,
                &options.pass_env,
                &options.set_env,
            ))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group: one signal reaches everything it starts, and the
            // terminal's Ctrl-C (sent to Warden's group) does not.
            .process_group(0)
            .kill_on_drop(false);
        command
    }

    pub(crate) async fn run_job(
        &self,
        job: Job<'_>,
        options: &ExecOptions,
        cancel: Option<&CancelFlag>,
    ) -> Result<CommandOutput, ExecError> {
        let started = Instant::now();
        if cancel.is_some_and(CancelFlag::is_cancelled) {
            return Err(ExecError::CancelledBeforeStart);
        }
        check_working_dir(&options.working_dir)?;
        let mut command = self.spawn_command(&job, options);
        let (mut child, registration) =
            registry::spawn(&mut command, job.tag).map_err(|refused| match refused {
                SpawnRefused::ShuttingDown => ExecError::ShuttingDown,
                SpawnRefused::Spawn(source) => ExecError::Spawn {
                    program: command.as_std().get_program().into(),
                    source,
                },
            })?;
        let mut stdout = CappedStream::new(options.output_limit);
        let mut stderr = CappedStream::new(options.output_limit);
        let ending = {
            let capture = capture_both(
                child.stdout.take(),
                child.stderr.take(),
                &mut stdout,
                &mut stderr,
            );
            let mut capture = std::pin::pin!(capture);
            let mut drained = false;
            let deadline = tokio::time::Instant::from_std(started + options.timeout);
            let ending = loop {
                tokio::select! {
                    // An exit that raced a cancel or the deadline wins: the
                    // command finished, and its answer is the truth.
                    biased;
                    status = child.wait() => break status.map(Ending::Exited),
                    () = &mut capture, if !drained => drained = true,
                    () = cancelled(cancel) => break Ok(Ending::Cancelled),
                    () = tokio::time::sleep_until(deadline) => break Ok(Ending::TimedOut),
                }
            };
            let mut stop = Stop {
                child: &mut child,
                registration: &registration,
                capture: capture.as_mut(),
                drained,
                grace: options.kill_grace,
            };
            match &ending {
                Ok(Ending::Exited(_)) => {
                    if !stop.drained
                        && tokio::time::timeout(OUTPUT_DRAIN, stop.capture.as_mut())
                            .await
                            .is_err()
                    {
                        stop.run().await;
                    }
                }
                Ok(Ending::TimedOut | Ending::Cancelled) | Err(_) => stop.run().await,
            }
            ending
        };
        registration.finish();
        let (out, err) = (stdout.render(), stderr.render());
        let partial = || PartialOutput {
            truncated: out.truncated || err.truncated,
            stdout: out.text.clone(),
            stderr: err.text.clone(),
        };
        match ending {
            Ok(Ending::Exited(status)) => Ok(CommandOutput {
                truncated: out.truncated || err.truncated,
                exit_code: exit_code(status),
                signal: std::os::unix::process::ExitStatusExt::signal(&status),
                stdout: out.text,
                stderr: err.text,
                duration: started.elapsed(),
            }),
            Ok(Ending::TimedOut) => Err(ExecError::TimedOut {
                limit: options.timeout,
                partial: partial(),
            }),
            Ok(Ending::Cancelled) => Err(ExecError::Cancelled {
                elapsed: started.elapsed(),
                partial: partial(),
            }),
            Err(source) => Err(ExecError::Wait { source }),
        }
    }
}

/// Stopping one command: everything the stop needs, borrowed from the run.
struct Stop<'a, C: Future<Output = ()>> {
    child: &'a mut Child,
    registration: &'a Registration,
    capture: Pin<&'a mut C>,
    drained: bool,
    grace: Duration,
}

impl<C: Future<Output = ()>> Stop<'_, C> {
    /// SIGTERM to the whole group (and the command's processes inside a
    /// container), up to the grace for the leader to exit, the pipes to
    /// close and the container side to end; then SIGKILL for what is left,
    /// and the leader is reaped.
    async fn run(&mut self) {
        let registration = self.registration;
        let tags: Vec<&str> = registration.tag.as_deref().into_iter().collect();
        if let Some(group) = registration.group {
            group.terminate();
        } else {
            // No group to signal (cannot happen for a real child): the
            // leader alone is all that can be stopped.
            self.child.start_kill().ok();
        }
        signal_processes(&procfs::tagged(&tags), Signal::TERM);
        let settled = tokio::time::timeout(self.grace, async {
            self.child.wait().await.ok();
            if !self.drained {
                self.capture.as_mut().await;
                self.drained = true;
            }
            settle_container(&tags).await;
        })
        .await;
        if settled.is_err() {
            // The group keeps its id while any member lives, and the leader
            // is not reaped yet, so this reaches only the command's own
            // leftovers.
            if let Some(group) = registration.group {
                group.kill();
            }
            signal_processes(&procfs::tagged(&tags), Signal::KILL);
            self.child.wait().await.ok();
        }
        // Members are dead now; the pipes close unless a process that left
        // the group (a daemon that called setsid) still holds them: then we
        // return what we have.
        if !self.drained {
            let _ = tokio::time::timeout(OUTPUT_DRAIN, self.capture.as_mut()).await;
        }
    }
}

/// Waits until no process of the routed command is left in its container
/// (none for a local command): they were signalled, and an exec the engine
/// was still starting gets its SIGTERM when it shows up.
async fn settle_container(tags: &[&str]) {
    if tags.is_empty() {
        return;
    }
    let mut quiet_since: Option<Instant> = None;
    loop {
        let left = procfs::tagged(tags);
        if left.is_empty() {
            let since = *quiet_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= CONTAINER_QUIET {
                return;
            }
        } else {
            quiet_since = None;
            signal_processes(&left, Signal::TERM);
        }
        // Only while stopping, bounded by the grace.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn cancelled(cancel: Option<&CancelFlag>) {
    match cancel {
        Some(flag) => flag.cancelled().await,
        None => std::future::pending().await,
    }
}

/// Reads both pipes to their end at once, so a command that fills one pipe
/// while we would wait on the other never blocks.
async fn capture_both(
    stdout: Option<impl AsyncRead + Unpin>,
    stderr: Option<impl AsyncRead + Unpin>,
    out: &mut CappedStream,
    err: &mut CappedStream,
) {
    tokio::join!(drain(stdout, out), drain(stderr, err));
}

async fn drain(pipe: Option<impl AsyncRead + Unpin>, sink: &mut CappedStream) {
    let Some(mut pipe) = pipe else {
        return;
    };
    let mut buffer = vec![0u8; 32 * 1024];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) => break,
            Ok(n) => sink.push(&buffer[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            // A read error on a pipe means it is gone: same as EOF.
            Err(_) => break,
        }
    }
}

fn check_working_dir(dir: &std::path::Path) -> Result<(), ExecError> {
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
