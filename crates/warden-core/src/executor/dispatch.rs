//! Dispatch: running an admitted call's plan on its host (or its parent),
//! the read-modify-write of `file_edit replace`, and shaping known outputs
//! (metrics) into structured data. Every gate has already passed here.
//! Where a command runs is `warden_protocol::routing`'s answer: a host
//! backend (this machine or an agent), or, for a VM without an agent of its
//! own, its QEMU guest agent through the guest API (see `api_dispatch`).

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};
use warden_protocol::routing::{self, CallKind, Facts, Route};
use warden_protocol::{CancelFlag, ErrorCode, Resource, ToolError};

use super::commands::{self, write_file_command};
use super::{ExecRecord, Executor, host_metrics};
use crate::ports::{Approval, ExecClass, ExecRequest, HostError};
use crate::tools::ToolCall;

/// How an admitted call's commands go out: read or write, the approval
/// behind a write, the turn's cancellation.
#[derive(Clone, Copy)]
pub(super) struct Dispatch<'r> {
    pub class: ExecClass,
    pub approval: Option<&'r Approval>,
    pub cancel: &'r CancelFlag,
    /// Set once a command may have started on a host.
    pub reached_host: &'r AtomicBool,
}

/// The error of a command that did not come back with an exit code. A
/// write that was interrupted after it was sent may have happened: it is
/// never reported as "nothing ran".
fn host_error(error: HostError, class: ExecClass) -> ToolError {
    let interrupted = |code: ErrorCode, what: String| match class {
        ExecClass::Read => ToolError::new(code, what),
        ExecClass::Write => ToolError::new(
            code,
            format!("{what}, after it was sent: the change may have happened"),
        )
        .with_hint("verify the target's state with a read before anything else")
        .with_detail("possibly_applied", serde_json::Value::Bool(true)),
    };
    match error {
        HostError::Unreachable(..) => ToolError::new(ErrorCode::Unavailable, error.to_string()),
        HostError::Timeout(_) => interrupted(ErrorCode::Timeout, error.to_string()),
        HostError::Cancelled => {
            interrupted(ErrorCode::Cancelled, "interrupted by the user".to_string())
        }
        HostError::Failed(_) => interrupted(ErrorCode::ExecutionFailed, error.to_string()),
        HostError::NotRun { code, message } => {
            ToolError::new(code, message).with_detail("ran", serde_json::Value::Bool(false))
        }
    }
}

impl Executor<'_> {
    pub(super) fn host_for(
        &self,
        target: Option<&Resource>,
        on_parent: bool,
    ) -> Result<Resource, ToolError> {
        let target = match target {
            Some(t) => t.clone(),
            None => self.default_host()?,
        };
        if !on_parent {
            return Ok(target);
        }
        target
            .parent
            .as_ref()
            .and_then(|p| self.ports.inventory.snapshot().get(p).cloned())
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::Unavailable,
                    format!("{} has no known parent to run on", target.id),
                )
            })
    }

    pub(super) async fn run_command(
        &self,
        target: Option<&Resource>,
        on_parent: bool,
        command: &str,
        dispatch: Dispatch<'_>,
        execs: &mut Vec<ExecRecord>,
    ) -> Result<Value, ToolError> {
        let host = self.host_for(target, on_parent)?;
        super::gates::check_dispatch(command)?;
        // Where it runs is routing's answer, from the hosts' facts and
        // whether a guest API serves the host.
        let backends = self.ports.hosts.route_facts(&host).await;
        let facts = Facts {
            backends: &backends,
            guest_api: self.guest_api.service(Some(&host)),
        };
        let (output, through_guest_agent) =
            match routing::route(Some(&host), CallKind::Shell, &facts) {
                Route::Shell(shell) => {
                    let request = ExecRequest {
                        target: &host,
                        route: &shell,
                        command,
                        class: dispatch.class,
                        approval: dispatch.approval,
                        cancel: dispatch.cancel,
                    };
                    let exec = self.ports.hosts.exec(request).await;
                    // Anything but "unreachable" or a refusal may have
                    // started on the host.
                    if !matches!(
                        exec,
                        Err(HostError::Unreachable(..) | HostError::NotRun { .. })
                    ) {
                        dispatch.reached_host.store(true, Ordering::SeqCst);
                    }
                    (exec.map_err(|e| host_error(e, dispatch.class))?, false)
                }
                Route::GuestApi(_) => (
                    self.exec_through_guest_agent(&host, command, dispatch)
                        .await?,
                    true,
                ),
                Route::Unreachable(why) => {
                    let unreachable = HostError::Unreachable(host.id.to_string(), why.to_string());
                    return Err(host_error(unreachable, dispatch.class));
                }
            };
        execs.push(ExecRecord {
            target: host.id.to_string(),
            command: command.to_string(),
            exit_code: output.exit_code,
        });
        let mut data = json!({
            "target": host.id.to_string(),
            "exit_code": output.exit_code,
            "stdout": output.stdout,
            "stderr": output.stderr,
            "truncated": output.truncated,
        });
        if through_guest_agent {
            // No agent sandbox: the policy's classification was the only guard.
            data["via"] = json!("qemu-guest-agent");
            data["sandboxed"] = json!(false);
        }
        if output.exit_code == 0 {
            Ok(data)
        } else {
            Err(ToolError::new(
                ErrorCode::ExecutionFailed,
                format!("exit code {}", output.exit_code),
            )
            .with_detail("output", data))
        }
    }

    pub(super) async fn replace(
        &self,
        target: Option<&Resource>,
        path: &str,
        old: &str,
        new: &str,
        dispatch: Dispatch<'_>,
        execs: &mut Vec<ExecRecord>,
    ) -> Result<Value, ToolError> {
        // The read half is a read (sandboxed on agents), whatever the call.
        let read_dispatch = Dispatch {
            class: ExecClass::Read,
            ..dispatch
        };
        let read = self
            .run_command(
                target,
                false,
                &format!("cat -- {}", commands::quote(path)),
                read_dispatch,
                execs,
            )
            .await?;
        let content = read["stdout"].as_str().unwrap_or_default();
        let count = content.matches(old).count();
        if count != 1 {
            return Err(ToolError::new(
                ErrorCode::ExecutionFailed,
                format!("`{old}` occurs {count} times in {path}; it must occur exactly once"),
            )
            .with_hint("quote more surrounding text so the match is unique"));
        }
        let updated = content.replacen(old, new, 1);
        self.run_command(
            target,
            false,
            &write_file_command(path, updated.trim_end_matches('\n')),
            dispatch,
            execs,
        )
        .await
    }
}

/// Structured data for results that have a known shape (metrics); the raw
/// output stays for anything the parser does not cover.
pub(super) fn shape_result(call: &ToolCall, mut data: Value) -> Value {
    if let ToolCall::Metrics(args) = call {
        let parsed = host_metrics::parse(data["stdout"].as_str().unwrap_or_default());
        data["metrics"] = parsed;
        if args.range.is_some() {
            data["note"] = json!(
                "no history source serves this target (history comes from Proxmox for nodes and guests): these are current values"
            );
        }
        // The parsed numbers replace the raw text the model would re-read.
        if let Some(object) = data.as_object_mut() {
            object.remove("stdout");
        }
    }
    data
}
