//! A Proxmox failure as the envelope's structured error: the connector's
//! code, whether anything was sent (`blocked` when nothing changed), whether
//! retrying may help, a hint the model can act on, and the task's exit
//! status and log tail when a task failed. Pure.

use serde_json::json;
use warden_infra::proxmox::ProxmoxError;
use warden_protocol::ToolError;

pub fn tool_error(error: &ProxmoxError) -> ToolError {
    let code = error.error_code();
    let message = error.to_string();
    let mut tool_error = if error.nothing_changed() {
        ToolError::blocked(code, message)
    } else {
        ToolError::failed(code, message)
    };
    tool_error.retryable = error.is_retryable();
    if let Some(hint) = hint(error) {
        tool_error = tool_error.with_hint(hint);
    }
    match error {
        ProxmoxError::TaskFailed {
            upid,
            exit_status,
            log_tail,
            ..
        } => tool_error
            .with_detail("upid", json!(upid))
            .with_detail("exit_status", json!(exit_status))
            .with_detail("log_tail", json!(log_tail)),
        ProxmoxError::TaskStillRunning { upid, log_tail, .. } => tool_error
            .with_detail("upid", json!(upid))
            .with_detail("log_tail", json!(log_tail))
            .with_detail("possibly_applied", json!(true)),
        ProxmoxError::OutcomeUnknown { .. } => {
            tool_error.with_detail("possibly_applied", json!(true))
        }
        ProxmoxError::Forbidden(denied) => tool_error
            .with_detail("privilege", json!(denied.privilege))
            .with_detail("acl_path", json!(denied.acl_path)),
        ProxmoxError::Locked { lock, .. } => tool_error.with_detail("lock", json!(lock)),
        _ => tool_error,
    }
}

fn hint(error: &ProxmoxError) -> Option<String> {
    Some(match error {
        ProxmoxError::Locked { .. } => {
            "wait until the operation holding the lock ends, then try again; do not unlock it yourself".into()
        }
        ProxmoxError::Template { .. } => "templates never run; clone it first".into(),
        ProxmoxError::HaRefused { .. } => {
            "the HA manager holds this guest; tell the operator what its HA state is".into()
        }
        ProxmoxError::NotRunning { .. } => "start the guest first, or choose start".into(),
        ProxmoxError::Forbidden(denied) => format!(
            "the operator must grant {} on {} to the API token",
            denied.privilege.as_deref().unwrap_or("the missing privilege"),
            denied.acl_path
        ),
        ProxmoxError::TaskFailed { .. } | ProxmoxError::VerificationFailed { .. } => {
            "read the guest's status (query health) before anything else; report the task's exit status".into()
        }
        ProxmoxError::TaskStillRunning { .. } | ProxmoxError::OutcomeUnknown { .. } => {
            "it may still happen: read the guest's status before retrying".into()
        }
        ProxmoxError::AgentNotRunning { .. } => {
            "the VM has no running QEMU guest agent and no Warden agent: answer from the API (metrics, query) instead".into()
        }
        ProxmoxError::NotFound { .. } => "list the guests again (query list) and use the id it gives".into(),
        ProxmoxError::NoQuorum { .. } | ProxmoxError::NodeOffline { .. } => {
            "reads may still work; changes must wait until the cluster is healthy".into()
        }
        ProxmoxError::Unauthorized { .. }
        | ProxmoxError::CertificateMismatch { .. }
        | ProxmoxError::Tls { .. }
        | ProxmoxError::Config(_) => "the operator must fix the [[proxmox]] configuration".into(),
        ProxmoxError::Unreachable { .. }
        | ProxmoxError::Timeout { .. }
        | ProxmoxError::Unsupported { .. }
        | ProxmoxError::Api { .. }
        | ProxmoxError::Decode { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::ErrorCode;

    #[test]
    fn refusals_block_and_failures_fail_with_what_to_do() {
        let cases: Vec<(ProxmoxError, ErrorCode, bool, bool, &str)> = vec![
            (
                ProxmoxError::Locked {
                    target: "vm:pve1:101".into(),
                    lock: "backup".into(),
                },
                ErrorCode::PolicyBlocked,
                true,
                true,
                "wait until",
            ),
            (
                ProxmoxError::Template {
                    target: "vm:pve1:9000".into(),
                    action: "started".into(),
                },
                ErrorCode::PolicyBlocked,
                true,
                false,
                "clone",
            ),
            (
                ProxmoxError::TaskFailed {
                    upid: "UPID:pve1:1:2:3:qmstop:101:root@pam:".into(),
                    node: "pve1".into(),
                    task_type: "qmstop".into(),
                    exit_status: "can't lock file".into(),
                    log_tail: vec!["TASK ERROR: can't lock file".into()],
                },
                ErrorCode::ExecutionFailed,
                false,
                false,
                "exit status",
            ),
            (
                ProxmoxError::Unreachable {
                    cluster: "lab".into(),
                    url: "https://x:8006".into(),
                    reason: "refused".into(),
                },
                ErrorCode::Unavailable,
                true,
                true,
                "",
            ),
        ];
        for (error, code, blocked, retryable, hint) in cases {
            let got = tool_error(&error);
            assert_eq!(
                (got.code, got.blocked, got.retryable),
                (code, blocked, retryable),
                "{error}"
            );
            assert_eq!(got.failed, !blocked, "{error}");
            assert!(
                got.details.recovery_hint.unwrap_or_default().contains(hint),
                "{error}"
            );
        }
        let failed = tool_error(&ProxmoxError::TaskFailed {
            upid: "U".into(),
            node: "pve1".into(),
            task_type: "qmstop".into(),
            exit_status: "boom".into(),
            log_tail: vec!["a".into()],
        });
        assert_eq!(failed.details.extra["exit_status"], "boom");
        assert_eq!(failed.details.extra["log_tail"][0], "a");
    }
}
