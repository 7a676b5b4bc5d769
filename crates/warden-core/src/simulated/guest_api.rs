//! A simulated Proxmox API for replay and tests. Each call is put to the
//! simulated hosts' answer table as the node's command line would say it
//! (`pct stop 141` on `node:pve1`, see [`ApiCall::as_command_line`]), so a
//! scenario's `exec` table decides its outcome: exit code 0 is a task that
//! ended `OK`, any other exit code a task that failed with the answer's
//! stderr (else stdout) as its exit status. Deterministic: no clock, no
//! randomness.

use serde_json::{Value, json};
use warden_protocol::{ErrorCode, Resource, ResourceKind, ToolError};

use super::SimulatedHosts;
use crate::ports::{ApiCall, ApiRequest, ApiResult, BoxFuture, GuestApi, SnapshotSupport};
use crate::tools::args::GuestOperation;

/// Serves every node, VM, LXC and storage of the inventory it is asked about.
pub struct SimulatedGuestApi<'h> {
    hosts: &'h SimulatedHosts,
}

impl<'h> SimulatedGuestApi<'h> {
    pub fn new(hosts: &'h SimulatedHosts) -> Self {
        SimulatedGuestApi { hosts }
    }
}

impl GuestApi for SimulatedGuestApi<'_> {
    fn serves(&self, resource: Option<&Resource>) -> bool {
        resource.is_some_and(|r| {
            matches!(
                r.id.kind,
                ResourceKind::Node | ResourceKind::Vm | ResourceKind::Lxc | ResourceKind::Storage
            )
        })
    }

    fn call<'a>(&'a self, request: ApiRequest<'a>) -> BoxFuture<'a, ApiResult> {
        Box::pin(std::future::ready(self.answer(request)))
    }

    /// Every simulated guest can be snapshotted, unless its inventory entry
    /// says `"snapshots": false`.
    fn snapshot_support(&self, guest: &Resource) -> SnapshotSupport {
        match guest.attributes.get("snapshots") {
            Some(Value::Bool(false)) => SnapshotSupport::Unsupported {
                reason: "its storage takes no snapshots".into(),
            },
            _ => SnapshotSupport::Supported,
        }
    }
}

impl SimulatedGuestApi<'_> {
    fn answer(&self, request: ApiRequest<'_>) -> ApiResult {
        let target = request.target;
        let id = target.map(|t| t.id.to_string());
        let (host, command) = request.call.as_command_line(target);
        let command = match request.call {
            // The name a real cluster would give, without a clock.
            ApiCall::SnapshotBeforeChange { approval_id } => {
                command.replace("<time>", "replay").replace(
                    approval_id,
                    &approval_id.chars().take(12).collect::<String>(),
                )
            }
            _ => command,
        };
        let output = self.hosts.answer(&host, &command);
        let reported = if output.stderr.trim().is_empty() {
            output.stdout.trim()
        } else {
            output.stderr.trim()
        };
        if output.exit_code != 0 && !matches!(request.call, ApiCall::VmShell { .. }) {
            return Err(ToolError::new(
                ErrorCode::ExecutionFailed,
                format!("the Proxmox task `{command}` failed: {reported}"),
            )
            .with_detail("exit_status", json!(reported))
            .with_detail("log_tail", json!(output.stdout.lines().collect::<Vec<_>>()))
            .with_detail("simulated", json!(true)));
        }
        let parsed: Option<Value> = serde_json::from_str(output.stdout.trim()).ok();
        let task =
            json!({"exit_status": "OK", "log_tail": output.stdout.lines().collect::<Vec<_>>()});
        Ok(match request.call {
            ApiCall::Power { operation, .. } => {
                let mut value = json!({
                    "target": id,
                    "operation": operation_name(*operation),
                    "task": task,
                    "status_after": match operation {
                        GuestOperation::Start | GuestOperation::Reboot => "running",
                        GuestOperation::Stop | GuestOperation::Shutdown => "stopped",
                    },
                    "simulated": true,
                });
                // A JSON answer adds what the connector reports beyond the
                // task (`forced`, `forced_evidence`, `summary`).
                if let (Some(object), Some(Value::Object(more))) =
                    (value.as_object_mut(), parsed.as_ref())
                {
                    object.extend(more.clone());
                }
                value
            }
            ApiCall::ListSnapshots => json!({
                "target": id,
                "snapshots": parsed.unwrap_or_else(|| json!(
                    output.stdout.lines().map(str::trim).filter(|l| !l.is_empty())
                        .map(|name| json!({"name": name})).collect::<Vec<_>>()
                )),
                "simulated": true,
            }),
            ApiCall::CreateSnapshot { name, .. } | ApiCall::Rollback { name } => {
                json!({"target": id, "name": name, "task": task, "simulated": true})
            }
            ApiCall::SnapshotBeforeChange { .. } => {
                let name = command.rsplit(' ').next().unwrap_or_default();
                json!({"target": id, "name": name, "task": task, "simulated": true})
            }
            // A table answer with `series` is a history as Proxmox's connector
            // returns it (`{target, name, range, series}`).
            ApiCall::History { range, metric, .. }
                if parsed.as_ref().is_some_and(|p| p["series"].is_array()) =>
            {
                let series: Vec<Value> = parsed
                    .iter()
                    .filter_map(|p| p["series"].as_array())
                    .flatten()
                    .filter(|s| metric.as_ref().is_none_or(|m| s["metric"] == json!(m)))
                    .cloned()
                    .collect();
                json!({
                    "target": id,
                    "name": target.map(|t| t.name.clone()),
                    "range": range.as_str(),
                    "series": series,
                    "simulated": true,
                })
            }
            ApiCall::History { .. } | ApiCall::StoragePools | ApiCall::Backups => json!({
                "target": id,
                "data": parsed.unwrap_or_else(|| json!(output.stdout)),
                "simulated": true,
            }),
            ApiCall::VmShell { .. } => json!({
                "exit_code": output.exit_code,
                "stdout": output.stdout,
                "stderr": output.stderr,
                "truncated": output.truncated,
                "confinement": "unsandboxed",
            }),
        })
    }
}

fn operation_name(operation: GuestOperation) -> &'static str {
    match operation {
        GuestOperation::Start => "start",
        GuestOperation::Stop => "stop",
        GuestOperation::Shutdown => "shutdown",
        GuestOperation::Reboot => "reboot",
    }
}
