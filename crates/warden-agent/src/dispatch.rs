//! The agent's state that outlives connections: who it is, what it
//! reaches, the used grant nonces, and the commands running now. Here an
//! `exec` frame is admitted (policy, grant, nonce, route) or refused, and an
//! admitted one is started on its own task.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ed25519_dalek::VerifyingKey;
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use warden_protocol::ControlLevel;
use warden_protocol::agent::{
    AgentFrame, ExecClass, ExecErrorCode, ExecFailure, ExecRequest, ExecResult, GrantInvalidReason,
};

use crate::event_log::{EventLog, RequestSummary};
use crate::exec::{self, Confinement, ExecSpec, Launcher};
use crate::nonces::NonceStore;
use crate::policy::{Admission, AdmissionContext, admit};
use crate::routing::invocation_for;
use warden_infra::confinement::Confinement as Protection;
use warden_protocol::routing::ThisMachine;

/// Longest command run the agent accepts, whatever `timeout_ms` says.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 3600);
/// Largest per-stream output budget the agent accepts.
pub const MAX_OUTPUT_BYTES: u64 = 16 << 20;

/// Fixed settings of one agent.
#[derive(Debug, Clone)]
pub struct DispatchSettings {
    pub agent_id: String,
    pub server_key: VerifyingKey,
    pub max_level: ControlLevel,
    pub launcher: Launcher,
    /// The agent's state directory and process, kept out of every
    /// command's reach: refused by the policy, hidden by a launcher where
    /// namespaces work.
    pub confinement: Arc<Protection>,
    pub kill_grace: Duration,
    pub max_concurrent: usize,
}

struct Running {
    class: ExecClass,
    cancel: watch::Sender<bool>,
}

/// Shared by the connection loop and every command task.
pub struct Dispatcher {
    settings: DispatchSettings,
    nonces: Mutex<NonceStore>,
    reach: Mutex<ThisMachine>,
    running: Mutex<HashMap<String, Running>>,
    running_count: watch::Sender<usize>,
    events: EventLog,
}

impl Dispatcher {
    pub fn new(
        settings: DispatchSettings,
        nonces: NonceStore,
        reach: ThisMachine,
        events: EventLog,
    ) -> Self {
        Dispatcher {
            settings,
            nonces: Mutex::new(nonces),
            reach: Mutex::new(reach),
            running: Mutex::new(HashMap::new()),
            running_count: watch::Sender::new(0),
            events,
        }
    }

    pub fn settings(&self) -> &DispatchSettings {
        &self.settings
    }

    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// What this agent runs commands for (its host and reported containers).
    pub fn set_reach(&self, reach: ThisMachine) {
        *self.reach.lock().unwrap_or_else(PoisonError::into_inner) = reach;
    }

    pub fn reach(&self) -> ThisMachine {
        self.reach
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Handles an `exec` frame: either starts the command (its output and
    /// result go to `frames`) or returns the refusal to send back.
    pub fn handle_exec(
        self: &Arc<Self>,
        request: ExecRequest,
        frames: mpsc::Sender<AgentFrame>,
    ) -> Option<ExecResult> {
        let summary = RequestSummary {
            request_id: Some(request.request_id.clone()),
            class: Some(request.class.as_str().to_string()),
            target: Some(request.target.clone()),
            command: Some(request.command.clone()),
        };
        match self.start(request, frames) {
            Ok(()) => None,
            Err((request_id, failure)) => {
                self.events.refused(&summary, &failure);
                Some(ExecResult::refused(request_id, failure))
            }
        }
    }

    /// Answers an `exec` frame that did not match the schema, when it has a
    /// request id to answer: a malformed grant is an invalid grant, anything
    /// else is refused by policy.
    pub fn refuse_malformed_exec(
        &self,
        raw: &Value,
        request_id: String,
        problem: &str,
    ) -> ExecResult {
        let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_string);
        let summary = RequestSummary {
            request_id: Some(request_id.clone()),
            class: text("class"),
            target: text("target"),
            command: text("command"),
        };
        let mut without_grant = raw.clone();
        let grant_is_the_problem = match &mut without_grant {
            Value::Object(map) => {
                map.remove("grant").is_some()
                    && serde_json::from_value::<ExecRequest>(without_grant.clone()).is_ok()
            }
            _ => false,
        };
        let failure = if grant_is_the_problem {
            ExecFailure::grant_invalid(
                GrantInvalidReason::Signature,
                format!("the grant is malformed: {problem}"),
            )
        } else {
            ExecFailure::new(
                ExecErrorCode::PolicyBlocked,
                format!("malformed exec frame: {problem}"),
            )
        };
        self.events.refused(&summary, &failure);
        ExecResult::refused(request_id, failure)
    }

    fn start(
        self: &Arc<Self>,
        request: ExecRequest,
        frames: mpsc::Sender<AgentFrame>,
    ) -> Result<(), (String, ExecFailure)> {
        let id = request.request_id.clone();
        let fail = |failure: ExecFailure| (id.clone(), failure);
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        if running.contains_key(&request.request_id) {
            return Err(fail(ExecFailure::new(
                ExecErrorCode::PolicyBlocked,
                "a command with this request_id is already running",
            )));
        }
        if running.len() >= self.settings.max_concurrent {
            return Err(fail(ExecFailure::new(
                ExecErrorCode::PolicyBlocked,
                format!(
                    "{} commands are already running on this agent",
                    running.len()
                ),
            )));
        }
        let tag = warden_infra::runner::new_exec_tag();
        let now_ms = now_ms();
        let (invocation, confinement) = {
            // Admission, routing and recording the nonce happen under one
            // lock: two frames carrying the same grant cannot both pass.
            let mut nonces = self.nonces.lock().unwrap_or_else(PoisonError::into_inner);
            let context = AdmissionContext {
                agent_id: &self.settings.agent_id,
                server_key: &self.settings.server_key,
                max_level: self.settings.max_level,
                now_ms,
            };
            let admission = admit(&request, &context, &*nonces).map_err(&fail)?;
            let invocation = invocation_for(&request.target, &self.reach(), &request.command, &tag)
                .map_err(&fail)?;
            // Inside a container the paths are the container's own.
            if invocation.exec_tag.is_none()
                && let Err(hit) = self.settings.confinement.admit(&request.command)
            {
                return Err(fail(ExecFailure::new(
                    ExecErrorCode::ProtectedPath,
                    format!("refused, nothing ran: {hit}"),
                )));
            }
            let confinement = match &admission {
                Admission::Read => Confinement::ReadOnlySandbox(self.settings.launcher.clone()),
                Admission::Write(grant) => {
                    nonces
                        .record(&grant.nonce, grant.expires_at, now_ms)
                        .map_err(|err| {
                            let message = format!(
                                "refusing the write: its grant could not be recorded as used ({err})"
                            );
                            fail(ExecFailure::new(ExecErrorCode::ExecFailed, message))
                        })?;
                    tracing::info!(
                        request_id = %request.request_id,
                        approval_id = grant.approval_id.as_deref().unwrap_or("-"),
                        approved_by = grant.approved_by.as_deref().unwrap_or("-"),
                        "write admitted by its grant"
                    );
                    Confinement::Unconfined
                }
            };
            (invocation, confinement)
        };
        let timeout = Duration::from_millis(request.timeout_ms.max(1)).min(MAX_TIMEOUT);
        let max_output = request.max_output_bytes.min(MAX_OUTPUT_BYTES);
        let spec = ExecSpec {
            request_id: request.request_id.clone(),
            invocation,
            hide: self.settings.confinement.launcher(),
            confinement,
            timeout,
            max_output_bytes: usize::try_from(max_output).unwrap_or(usize::MAX),
            kill_grace: self.settings.kill_grace,
        };
        let (cancel_tx, cancel_rx) = watch::channel(false);
        running.insert(
            request.request_id.clone(),
            Running {
                class: request.class,
                cancel: cancel_tx,
            },
        );
        self.running_count.send_replace(running.len());
        drop(running);
        tracing::info!(
            request_id = %request.request_id,
            class = request.class.as_str(),
            target = %request.target,
            command = %request.command,
            "running"
        );
        let dispatcher = Arc::clone(self);
        let summary = RequestSummary {
            request_id: Some(request.request_id.clone()),
            class: Some(request.class.as_str().to_string()),
            target: Some(request.target),
            command: Some(request.command),
        };
        tokio::spawn(async move {
            let result = exec::run(spec, frames.clone(), cancel_rx).await;
            if frames
                .send(AgentFrame::ExecResult(result.clone()))
                .await
                .is_err()
            {
                dispatcher.events.undelivered(&summary, &result);
            }
            dispatcher.finished(&result.request_id);
        });
        Ok(())
    }

    fn finished(&self, request_id: &str) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.remove(request_id);
        self.running_count.send_replace(running.len());
    }

    /// Cancels one command; whether it was running.
    pub fn cancel(&self, request_id: &str) -> bool {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        match running.get(request_id) {
            Some(entry) => {
                entry.cancel.send_replace(true);
                true
            }
            None => false,
        }
    }

    /// Cancels the running commands of `class` (all of them with `None`).
    pub fn cancel_all(&self, class: Option<ExecClass>) -> usize {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let mut cancelled = 0;
        for entry in running.values() {
            if class.is_none_or(|c| c == entry.class) {
                entry.cancel.send_replace(true);
                cancelled += 1;
            }
        }
        cancelled
    }

    pub fn running_count(&self) -> usize {
        *self.running_count.borrow()
    }

    /// Resolves once no command is running.
    pub async fn idle(&self) {
        let mut count = self.running_count.subscribe();
        // An error means the sender is gone, which cannot happen while
        // `self` lives; either way there is nothing left to wait for.
        let _ = count.wait_for(|n| *n == 0).await;
    }
}

/// Unix time in milliseconds.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
