//! Dispatch of calls an API answers (Proxmox VE): guest power, snapshots,
//! history, storage, backups; a VM command through the QEMU guest agent when
//! no agent runs in the VM; and the snapshot taken before an approved
//! change. Every gate has passed here. Each API call that reached the
//! cluster is recorded like a command, as the node's command line would say
//! it (`pct stop 141` on `node:pve1`), for the audit log and transcripts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use warden_protocol::{ErrorCode, Resource, ResourceId, ResourceKind, ToolError, ToolResponse};

use super::commands::{Plan, write_file_command};
use super::dispatch::Dispatch;
use super::snapshot_first::{
    SnapshotMode, refuse_unsnapshottable, snapshot_offer, tags_of, unsnapshottable,
};
use super::{Admitted, ExecRecord, Executor};
use crate::ports::{ApiCall, ApiRequest, Approval, ExecClass, ExecOutput};
use crate::tools::ToolCall;
use crate::tools::args::{ControlArgs, SnapshotArgs};

/// How long a command in a VM may run through the guest agent.
pub const GUEST_AGENT_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

impl Executor<'_> {
    /// One API call; recorded as an exec when it may have reached the cluster.
    pub(super) async fn run_api(
        &self,
        target: Option<&Resource>,
        call: &ApiCall,
        dispatch: Dispatch<'_>,
        execs: &mut Vec<ExecRecord>,
    ) -> Result<Value, ToolError> {
        let request = ApiRequest {
            target,
            call,
            approval: dispatch.approval,
            cancel: dispatch.cancel,
        };
        let result = self.guest_api.call(request).await;
        // A refusal before sending changed nothing; anything else may have.
        if result.as_ref().is_err_and(|e| e.blocked) {
            return result;
        }
        dispatch.reached_host.store(true, Ordering::SeqCst);
        let (host, mut command) = call.as_command_line(target);
        if let (ApiCall::SnapshotBeforeChange { approval_id }, Ok(data)) = (call, &result) {
            if let Some(name) = data["name"].as_str() {
                command = command.replace(&format!("warden-<time>-{approval_id}"), name);
            }
        }
        execs.push(ExecRecord {
            target: host.to_string(),
            command,
            exit_code: match &result {
                Ok(data) => data["exit_code"]
                    .as_i64()
                    .and_then(|c| i32::try_from(c).ok())
                    .unwrap_or(0),
                Err(_) => 1,
            },
        });
        result
    }

    /// A command in a VM through its QEMU guest agent, as an exec's output.
    /// It runs unsandboxed: the read tool only sends what the policy proved
    /// read-only, and the result says so.
    pub(super) async fn exec_through_guest_agent(
        &self,
        vm: &Resource,
        command: &str,
        dispatch: Dispatch<'_>,
    ) -> Result<ExecOutput, ToolError> {
        let call = ApiCall::VmShell {
            command: command.to_string(),
            class: dispatch.class,
            timeout: GUEST_AGENT_COMMAND_TIMEOUT,
        };
        let request = ApiRequest {
            target: Some(vm),
            call: &call,
            approval: dispatch.approval,
            cancel: dispatch.cancel,
        };
        let result = self.guest_api.call(request).await;
        if !result.as_ref().is_err_and(|e| e.blocked) {
            dispatch.reached_host.store(true, Ordering::SeqCst);
        }
        let data = result?;
        Ok(ExecOutput {
            stdout: data["stdout"].as_str().unwrap_or_default().to_string(),
            stderr: data["stderr"].as_str().unwrap_or_default().to_string(),
            exit_code: data["exit_code"]
                .as_i64()
                .and_then(|c| i32::try_from(c).ok())
                .unwrap_or(-1),
            truncated: data["truncated"].as_bool().unwrap_or(false),
        })
    }

    /// Snapshot first: before an approved change to a guest the policy wants
    /// snapshotted, take the snapshot and wait for it. `Ok(None)`: none was
    /// due. An error means the change must not run (nothing of it was sent).
    pub(super) async fn snapshot_before_change(
        &self,
        admitted: &Admitted,
        approval: Option<&Approval>,
        dispatch: Dispatch<'_>,
        execs: &mut Vec<ExecRecord>,
    ) -> Result<Option<Value>, ToolError> {
        // Offered on approval cards: at the controlled level.
        let (Some(approval), Some(target)) = (approval, admitted.target.as_ref()) else {
            return Ok(None);
        };
        let inventory = self.ports.inventory.snapshot();
        let mut chain = inventory.chain(&target.id);
        if chain.is_empty() {
            chain.push(target);
        }
        let support = |r: &Resource| {
            self.guest_api
                .serves(Some(r))
                .then(|| self.guest_api.snapshot_support(r))
        };
        refuse_unsnapshottable(&self.settings.snapshots, &admitted.call, &chain, &support)?;
        let Some(offer) =
            snapshot_offer(&self.settings.snapshots, &admitted.call, &chain, &support)
                .filter(|o| o.take)
        else {
            return Ok(None);
        };
        let Some(guest) = chain.iter().find(|r| r.id.to_string() == offer.guest) else {
            return Ok(None);
        };
        // The change's own commands pass their last checks before anything
        // is taken: a change refused now needs no snapshot.
        for command in change_commands(&admitted.plan) {
            super::gates::check_dispatch(&command)?;
        }
        let call = ApiCall::SnapshotBeforeChange {
            approval_id: approval.id.clone(),
        };
        // Taking the snapshot is not the change: it does not count as the
        // write having reached the guest.
        let snapshot_reached = AtomicBool::new(false);
        let snapshot_dispatch = Dispatch {
            class: ExecClass::Write,
            reached_host: &snapshot_reached,
            ..dispatch
        };
        let taken = self
            .run_api(Some(guest), &call, snapshot_dispatch, execs)
            .await;
        // PVE cannot snapshot this guest (found out only now): under
        // `always` the change is refused; otherwise it runs, told so.
        if let Err(error) = &taken {
            if let Some(reason) = error.details.extra.get("snapshot_unsupported") {
                let reason = reason.as_str().unwrap_or("its storage takes no snapshots");
                let mode = self.settings.snapshots.mode_for(&tags_of(guest));
                if mode == SnapshotMode::Always {
                    return Err(
                        unsnapshottable(guest, reason).with_detail("change_made", json!(false))
                    );
                }
                return Ok(Some(json!({
                    "guest": guest.id.to_string(),
                    "name": null,
                    "skipped": format!("no snapshot was taken first: {} cannot be snapshotted ({reason})", guest.id),
                })));
            }
        }
        let taken = taken.map_err(|error| {
            ToolError::new(
                ErrorCode::ExecutionFailed,
                format!(
                    "the snapshot of {} before the change failed, so the change was not made: {}",
                    guest.id, error.message
                ),
            )
            .with_hint(
                "fix the cause (storage without snapshot support, a lock), or set \
                     [proxmox_snapshots] to `never` for this guest's tag, then ask again",
            )
            .with_detail("change_made", json!(false))
            .with_detail("snapshot_error", json!(error))
        })?;
        let name = taken["name"].as_str().unwrap_or_default().to_string();
        Ok(Some(json!({
            "guest": guest.id.to_string(),
            "name": name,
            "undo": {
                "tool": "snapshot",
                "arguments": {"action": "rollback", "target": guest.id.to_string(), "name": name},
            },
        })))
    }
}

/// The commands a change sends, as far as they are known before it runs.
fn change_commands(plan: &Plan) -> Vec<String> {
    match plan {
        Plan::Run(planned) => vec![planned.command.clone()],
        Plan::Replace { path, .. } => vec![write_file_command(path, "")],
        Plan::Internal | Plan::Api(_) => Vec::new(),
    }
}

/// The snapshot taken before the change goes with its result (and with its
/// failure, which may have left the guest half-changed).
pub(super) fn with_snapshot(
    result: Result<Value, ToolError>,
    snapshot: Option<Value>,
) -> Result<Value, ToolError> {
    let Some(snapshot) = snapshot else {
        return result;
    };
    match result {
        Ok(mut data) => {
            match data.as_object_mut() {
                Some(object) => {
                    object.insert("snapshot_before_change".into(), snapshot);
                }
                None => {
                    data = json!({"result": data, "snapshot_before_change": snapshot});
                }
            }
            Ok(data)
        }
        Err(error) => match snapshot["name"].as_str() {
            Some(name) => Err(error
                .with_detail("snapshot_before_change", snapshot.clone())
                .with_hint(format!(
                    "the guest may be half-changed; a snapshot was taken before: roll back with snapshot rollback name {name}"
                ))),
            None => Err(error.with_detail("snapshot_before_change", snapshot)),
        },
    }
}

/// Tell the session, through a call's result, that a resource it knew
/// moved: `moved: {from, to, note}` next to the data (or in the error's
/// details).
pub(super) fn tell_move(response: &mut ToolResponse, from: &ResourceId, to: &ResourceId) {
    let note = json!({
        "from": from.to_string(),
        "to": to.to_string(),
        "note": format!(
            "{from} moved (migrated to {}); it is now {to}: use the new id",
            to.host().unwrap_or("another node")
        ),
    });
    if let Some(error) = response.error.as_mut() {
        error.details.extra.insert("moved".into(), note);
        return;
    }
    match response.data.as_mut().and_then(Value::as_object_mut) {
        Some(object) => {
            object.insert("moved".into(), note);
        }
        None => {
            let data = response.data.take().unwrap_or(Value::Null);
            response.data = Some(json!({"result": data, "moved": note}));
        }
    }
}

/// Arguments that parse but cannot work: guest control and snapshots need
/// a VM or LXC, snapshot names follow PVE's rules.
pub(super) fn check_guest_arguments(
    call: &ToolCall,
    target: Option<&Resource>,
) -> Result<(), ToolError> {
    let needs_guest = matches!(
        call,
        ToolCall::Control(ControlArgs::Guest { .. }) | ToolCall::Snapshot(_)
    );
    if let (true, Some(target)) = (needs_guest, target) {
        if !matches!(target.id.kind, ResourceKind::Vm | ResourceKind::Lxc) {
            return Err(ToolError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{} works on VMs and LXC containers; {} is a {}",
                    call.name(),
                    target.id,
                    target.id.kind.label()
                ),
            )
            .with_hint("target the guest (vm:… or lxc:…) itself")
            .with_detail("field", json!("target")));
        }
    }
    if let ToolCall::Snapshot(
        SnapshotArgs::Create { name, .. } | SnapshotArgs::Rollback { name, .. },
    ) = call
    {
        if !valid_snapshot_name(name) {
            return Err(ToolError::new(
                ErrorCode::InvalidInput,
                format!(
                    "snapshot name {name:?} is not valid: a letter, then letters, digits, `-` and `_`, \
                     2 to 40 characters, not `current`, `vzdump` or `pending`"
                ),
            )
            .with_detail("field", json!("name")));
        }
    }
    Ok(())
}

/// PVE's rule for snapshot names (`pve-configid`, reserved names).
pub fn valid_snapshot_name(name: &str) -> bool {
    (2..=40).contains(&name.len())
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !matches!(name, "current" | "vzdump")
        && !name.eq_ignore_ascii_case("pending")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_names_follow_pve() {
        for good in ["before-upgrade", "warden-20261123120000-abc", "a1", "x_y"] {
            assert!(valid_snapshot_name(good), "{good}");
        }
        for bad in [
            "",
            "a",
            "1abc",
            "has space",
            "a;rm",
            "current",
            "vzdump",
            "PENDING",
            "x'y",
            &"a".repeat(41),
        ] {
            assert!(!valid_snapshot_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_taken_snapshot_goes_with_success_and_failure() {
        let snapshot = json!({"name": "warden-1-a"});
        let ok = with_snapshot(
            Ok(json!({"status_after": "stopped"})),
            Some(snapshot.clone()),
        )
        .unwrap();
        assert_eq!(ok["snapshot_before_change"]["name"], "warden-1-a");
        let failed = with_snapshot(
            Err(ToolError::new(ErrorCode::ExecutionFailed, "exit code 1")),
            Some(snapshot),
        )
        .unwrap_err();
        assert_eq!(
            failed.details.extra["snapshot_before_change"]["name"],
            "warden-1-a"
        );
        assert!(failed.details.recovery_hint.unwrap().contains("warden-1-a"));
        assert_eq!(
            with_snapshot(Ok(json!(1)), None).unwrap(),
            json!(1),
            "nothing taken, nothing added"
        );
    }
}
