//! Commands through agents: a [`HostBackend`] that wraps the server's own
//! one. Its facts for `warden_protocol::routing` are what the wrapped
//! backend runs (as far as this machine's inventory knows it) and the
//! enrolled agents; it carries out the route it is given. A command routed
//! to an agent goes out as an `exec` frame (a write with a grant signed for
//! exactly that agent, request, command, target and approval), and comes
//! back as the agent's `exec_output` chunks and `exec_result`. One routed
//! to this machine goes to the wrapped backend.
//!
//! A connection lost during a command is an unknown outcome, reported as
//! such; a write is never sent again, a read once if the agent is back
//! within a few seconds. The turn's cancel flag sends `cancel`.

use std::sync::Arc;
use std::time::Duration;

use warden_core::ports::{
    BoxFuture, ExecClass, ExecOutput, ExecRequest, HostBackend, HostError, Inventory,
};
use warden_protocol::agent::{self, AgentFrame, CancelRequest, ExecErrorCode, ExecResult};
use warden_protocol::routing::{Children, RouteFacts, Runner};
use warden_protocol::{ErrorCode, Resource, ResourceKind};

use super::Agents;
use super::grants::{GrantFor, random_id, sign_grant};
use super::hub::{ExecEnd, as_facts};
use crate::now_ms;

/// How long past its own timeout a command may take to be reported.
const RESULT_GRACE: Duration = Duration::from_secs(15);
/// How long a read whose connection was lost waits for the agent to be
/// back, to be sent once more.
const READ_RETRY_WINDOW: Duration = Duration::from_secs(3);
/// How long a cancelled command may take to be reported stopped.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// The server's hosts: agents first, the wrapped backend for the rest.
pub struct AgentRoutedHosts {
    local: Arc<dyn HostBackend>,
    /// The inventory the server was given (this machine first): an agent
    /// named like one of its hosts is shadowed by this machine.
    local_inventory: Arc<dyn Inventory>,
    agents: Arc<Agents>,
}

impl AgentRoutedHosts {
    pub fn new(
        local: Arc<dyn HostBackend>,
        local_inventory: Arc<dyn Inventory>,
        agents: Arc<Agents>,
    ) -> Self {
        AgentRoutedHosts {
            local,
            local_inventory,
            agents,
        }
    }

    /// The routing facts: this machine as the wrapped backend runs it;
    /// the hosts of this machine's inventory (which comes first: an agent
    /// named like one of them is never used); every enrolled agent. With
    /// such a shadowed agent about, this machine's containers are only
    /// those its own inventory reports (the agent's are run nowhere).
    async fn backends_for(&self, target: &Resource) -> RouteFacts {
        let mut backends = self.local.route_facts(target).await;
        // This machine's inventory may discover: off the async workers.
        let inventory = Arc::clone(&self.local_inventory);
        let local = tokio::task::spawn_blocking(move || inventory.snapshot())
            .await
            .unwrap_or_default();
        backends.own_hosts = local
            .all()
            .iter()
            .filter(|r| r.id.kind == ResourceKind::Host)
            .map(|r| r.id.uid.clone())
            .collect();
        backends.agents = as_facts(self.agents.hub.inventory().agents());
        let shadowed = backends
            .agents
            .iter()
            .any(|a| backends.own_hosts.contains(&a.name));
        if shadowed {
            let known = |kind: ResourceKind, children: &Children| -> Children {
                match children {
                    Children::Nothing => Children::Nothing,
                    Children::Any | Children::Reported(_) => Children::Reported(
                        local
                            .all()
                            .iter()
                            .filter(|r| r.id.kind == kind && children.contains(&r.id))
                            .map(|r| r.id.clone())
                            .collect(),
                    ),
                }
            };
            let this_machine = &mut backends.this_machine;
            this_machine.docker = known(ResourceKind::DockerContainer, &this_machine.docker);
            this_machine.lxc = known(ResourceKind::Lxc, &this_machine.lxc);
        }
        backends
    }

    /// Runs the command through the agent; a read whose connection is lost
    /// is sent once more if the agent is back within [`READ_RETRY_WINDOW`].
    async fn exec_on_agent(
        &self,
        request: ExecRequest<'_>,
        agent_id: &str,
        agent_name: &str,
        target: String,
    ) -> Result<ExecOutput, HostError> {
        // The command was sent: it may have run (a write is never resent).
        let lost = || {
            HostError::Failed(format!(
                "connection to agent {agent_name} lost during the command; outcome unknown"
            ))
        };
        match self.attempt(&request, agent_id, agent_name, &target).await {
            Err(Attempt::Lost) => {}
            Err(Attempt::Failed(error)) => return Err(error),
            Ok(output) => return Ok(output),
        }
        match request.class {
            // A write's outcome is unknown: never sent again.
            ExecClass::Write => return Err(lost()),
            ExecClass::Read => {}
        }
        if !self.reconnected(agent_id, request.cancel).await {
            return Err(lost());
        }
        tracing::info!(
            agent_id,
            agent_name,
            "a read whose connection was lost is sent once more"
        );
        match self.attempt(&request, agent_id, agent_name, &target).await {
            Ok(output) => Ok(output),
            Err(Attempt::Failed(error)) => Err(error),
            Err(Attempt::Lost) => Err(lost()),
        }
    }

    /// Whether the agent holds a connection again within the window.
    async fn reconnected(&self, agent_id: &str, cancel: &warden_protocol::CancelFlag) -> bool {
        let deadline = tokio::time::Instant::now() + READ_RETRY_WINDOW;
        loop {
            if cancel.is_cancelled() {
                return false;
            }
            if self.agents.hub.live_since(agent_id).is_some() {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn attempt(
        &self,
        request: &ExecRequest<'_>,
        agent_id: &str,
        agent_name: &str,
        target: &str,
    ) -> Result<ExecOutput, Attempt> {
        let shown = request.target.id.to_string();
        let unreachable = |why: String| Attempt::Failed(HostError::Unreachable(shown.clone(), why));
        let failed = |why: String| Attempt::Failed(HostError::Failed(why));
        let settings = &self.agents.settings;
        let request_id = random_id("req_").map_err(|e| failed(e.to_string()))?;
        let grant = match request.class {
            ExecClass::Read => None,
            ExecClass::Write => Some(Box::new(
                sign_grant(
                    &self.agents.signing_key,
                    GrantFor {
                        agent_id,
                        request_id: &request_id,
                        command: request.command,
                        target,
                        approval: request.approval,
                        now_ms: now_ms(),
                    },
                )
                .map_err(|e| failed(e.to_string()))?,
            )),
        };
        let frame = AgentFrame::Exec(agent::ExecRequest {
            request_id: request_id.clone(),
            target: target.to_string(),
            command: request.command.to_string(),
            class: match request.class {
                ExecClass::Read => agent::ExecClass::Read,
                ExecClass::Write => agent::ExecClass::Write,
            },
            timeout_ms: u64::try_from(settings.command_timeout.as_millis()).unwrap_or(u64::MAX),
            max_output_bytes: settings.max_output_bytes,
            grant,
        });
        let text = frame
            .to_text()
            .map_err(|e| failed(format!("the command cannot be sent: {e}")))?;
        // Head and tail per stream, a marker line, and lossy UTF-8.
        let cap = usize::try_from(settings.max_output_bytes)
            .unwrap_or(usize::MAX)
            .saturating_mul(2)
            .saturating_add(4096);
        let Some((channel, mut done)) = self.agents.hub.begin_exec(agent_id, &request_id, cap)
        else {
            return Err(unreachable(format!(
                "the agent on {agent_name} is not connected"
            )));
        };
        let _in_flight = InFlight {
            agents: &self.agents,
            request_id: &request_id,
        };
        tokio::select! {
            sent = channel.outgoing.send(text) => if sent.is_err() {
                return Err(unreachable(format!(
                    "the connection to agent {agent_name} closed before the command was sent"
                )));
            },
            () = request.cancel.cancelled() => return Err(Attempt::Failed(HostError::Cancelled)),
        }
        tracing::debug!(agent_id, request_id, "command sent to an agent");
        let deadline = settings.command_timeout + RESULT_GRACE;
        let end = tokio::select! {
            end = &mut done => end,
            () = request.cancel.cancelled() => {
                let cancel = AgentFrame::Cancel(CancelRequest { request_id: request_id.clone() });
                if let Ok(text) = cancel.to_text() {
                    let _ = tokio::time::timeout(CANCEL_WAIT, channel.outgoing.send(text)).await;
                }
                // Wait for the agent to say it stopped, not forever.
                let _ = tokio::time::timeout(CANCEL_WAIT, &mut done).await;
                return Err(Attempt::Failed(HostError::Cancelled));
            }
            () = tokio::time::sleep(deadline) => {
                return Err(failed(format!(
                    "agent {agent_name} did not report the end of the command within {} s; outcome unknown",
                    deadline.as_secs()
                )));
            }
        };
        match end {
            Ok(ExecEnd::Finished {
                result,
                stdout,
                stderr,
                clipped,
            }) => outcome(result, stdout, stderr, clipped, agent_name, settings)
                .map_err(Attempt::Failed),
            Ok(ExecEnd::ConnectionLost) | Err(_) => Err(Attempt::Lost),
        }
    }
}

/// How one attempt failed.
enum Attempt {
    /// The connection ended while the command was in flight.
    Lost,
    Failed(HostError),
}

/// Forgets the command in flight however the exec future ends.
struct InFlight<'a> {
    agents: &'a Agents,
    request_id: &'a str,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.agents.hub.end_exec(self.request_id);
    }
}

/// The agent's `exec_result` as the core sees it. Pure.
fn outcome(
    result: ExecResult,
    stdout: String,
    stderr: String,
    clipped: bool,
    agent_name: &str,
    settings: &super::AgentSettings,
) -> Result<ExecOutput, HostError> {
    if let Some(failure) = result.error {
        let reason = failure
            .reason
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let said = format!("{}{reason}: {}", failure.code, failure.message);
        return Err(match failure.code {
            ExecErrorCode::Timeout => HostError::Timeout(settings.command_timeout),
            ExecErrorCode::Cancelled => HostError::Cancelled,
            // Refused before anything ran: not a change that may have happened.
            ExecErrorCode::PolicyBlocked | ExecErrorCode::GrantInvalid => HostError::NotRun {
                code: ErrorCode::PolicyBlocked,
                message: format!("agent {agent_name} refused the command, nothing ran: {said}"),
            },
            ExecErrorCode::ProtectedPath => HostError::NotRun {
                code: ErrorCode::ProtectedPath,
                message: format!("agent {agent_name} refused the command, nothing ran: {said}"),
            },
            ExecErrorCode::UnknownTarget => HostError::NotRun {
                code: ErrorCode::NotFound,
                message: format!(
                    "agent {agent_name} does not know the target, nothing ran: {said}"
                ),
            },
            ExecErrorCode::ExecFailed => HostError::NotRun {
                code: ErrorCode::ExecutionFailed,
                message: format!(
                    "agent {agent_name} could not start the command, nothing ran: {said}"
                ),
            },
        });
    }
    match result.exit_code {
        Some(exit_code) => Ok(ExecOutput {
            stdout,
            stderr,
            exit_code,
            truncated: result.truncated || clipped,
        }),
        None => Err(HostError::Failed(format!(
            "agent {agent_name} reported neither an exit status nor an error"
        ))),
    }
}

impl HostBackend for AgentRoutedHosts {
    fn route_facts<'a>(&'a self, target: &'a Resource) -> BoxFuture<'a, RouteFacts> {
        Box::pin(self.backends_for(target))
    }

    fn exec<'a>(
        &'a self,
        request: ExecRequest<'a>,
    ) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        Box::pin(async move {
            match &request.route.runner {
                Runner::ThisMachine => self.local.exec(request).await,
                Runner::Agent {
                    agent_id,
                    agent_name,
                    on,
                } => {
                    self.exec_on_agent(request, agent_id, agent_name, on.to_string())
                        .await
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::agent::{ExecFailure, GrantInvalidReason, SandboxReport};

    fn result(exit_code: Option<i32>, error: Option<ExecFailure>) -> ExecResult {
        ExecResult {
            request_id: "r".into(),
            exit_code,
            error,
            truncated: false,
            duration_ms: 3,
            sandbox: SandboxReport::default(),
        }
    }

    #[test]
    fn results_map_to_host_answers() {
        let settings = super::super::AgentSettings::default();
        let run = |r: ExecResult, clipped: bool| {
            outcome(r, "out".into(), "err".into(), clipped, "web1", &settings)
        };
        let ok = run(result(Some(3), None), true).unwrap();
        assert_eq!((ok.exit_code, ok.truncated), (3, true));
        assert_eq!(ok.stdout, "out");
        // Refusals: nothing ran, and the code says why.
        let refusals = [
            (
                ExecFailure::grant_invalid(GrantInvalidReason::Expired, "too old"),
                ErrorCode::PolicyBlocked,
                "agent web1 refused the command, nothing ran: GRANT_INVALID (expired): too old",
            ),
            (
                ExecFailure::new(ExecErrorCode::PolicyBlocked, "not read-only"),
                ErrorCode::PolicyBlocked,
                "agent web1 refused the command, nothing ran: POLICY_BLOCKED: not read-only",
            ),
            (
                ExecFailure::new(ExecErrorCode::UnknownTarget, "no such container"),
                ErrorCode::NotFound,
                "agent web1 does not know the target, nothing ran: UNKNOWN_TARGET: no such container",
            ),
            (
                ExecFailure::new(ExecErrorCode::ExecFailed, "no /bin/sh"),
                ErrorCode::ExecutionFailed,
                "agent web1 could not start the command, nothing ran: EXEC_FAILED: no /bin/sh",
            ),
        ];
        for (failure, code, expected) in refusals {
            let got = run(result(None, Some(failure)), false).unwrap_err();
            assert_eq!(
                got,
                HostError::NotRun {
                    code,
                    message: expected.to_string()
                }
            );
        }
        // Ended on the agent's side: what the executor reports as such.
        let ended = [
            (
                ExecFailure::new(ExecErrorCode::Timeout, "slow"),
                "command timed out after 30s",
            ),
            (
                ExecFailure::new(ExecErrorCode::Cancelled, "stop"),
                "cancelled by the user",
            ),
        ];
        for (failure, expected) in ended {
            let got = run(result(None, Some(failure)), false).unwrap_err();
            assert_eq!(got.to_string(), expected);
        }
        assert!(
            run(result(None, None), false)
                .unwrap_err()
                .to_string()
                .contains("neither an exit status")
        );
    }
}
