//! Calls a guest's state rules out, refused before anyone is asked to
//! approve them: a template never runs and takes no snapshots, and a locked
//! guest (a backup, a migration, a snapshot task holds it) refuses power and
//! snapshot requests until the lock ends. The inventory's copy of the guest
//! (`/cluster/resources` carries `lock` and `template`) decides. Pure.

use serde_json::{Value, json};
use warden_protocol::{ErrorCode, Resource, ResourceKind, ToolError};

use super::Executor;
use super::commands::Plan;
use crate::ports::ApiCall;
use crate::tools::args::GuestOperation;

impl Executor<'_> {
    /// [`refuse_by_guest_state`] for an API plan, on the inventory's live
    /// copy of the target (the session's may predate the lock).
    pub(super) fn refuse_by_guest_state(
        &self,
        plan: &Plan,
        target: Option<&Resource>,
    ) -> Result<(), ToolError> {
        let (Plan::Api(call), Some(target)) = (plan, target) else {
            return Ok(());
        };
        let inventory = self.ports.inventory.snapshot();
        refuse_by_guest_state(call, inventory.get(&target.id).unwrap_or(target))
    }
}

/// `Err` when `call` cannot work on `target` as the inventory shows it.
pub fn refuse_by_guest_state(call: &ApiCall, target: &Resource) -> Result<(), ToolError> {
    if !matches!(target.id.kind, ResourceKind::Vm | ResourceKind::Lxc) {
        return Ok(());
    }
    let what = match call {
        ApiCall::Power { operation, .. } => match operation {
            GuestOperation::Start => "started",
            GuestOperation::Stop | GuestOperation::Shutdown => "stopped",
            GuestOperation::Reboot => "rebooted",
        },
        ApiCall::CreateSnapshot { .. } | ApiCall::SnapshotBeforeChange { .. } => "snapshotted",
        ApiCall::Rollback { .. } => "rolled back",
        ApiCall::ListSnapshots
        | ApiCall::History { .. }
        | ApiCall::StoragePools
        | ApiCall::Backups
        | ApiCall::VmShell { .. } => return Ok(()),
    };
    let named = format!("{} ({})", target.name, target.id);
    if target.attributes.get("template") == Some(&json!(true)) {
        return Err(ToolError::blocked(
            ErrorCode::PolicyBlocked,
            format!("{named} is a template: templates cannot be {what}; nothing was asked or done"),
        )
        .with_hint("templates never run; clone it to get a guest that does")
        .with_detail("template", json!(true)));
    }
    let lock = target
        .attributes
        .get("lock")
        .and_then(Value::as_str)
        .filter(|l| !l.is_empty());
    let Some(lock) = lock else {
        return Ok(());
    };
    // A hibernated VM is resumed by a start.
    let resumes = lock == "suspended"
        && matches!(
            call,
            ApiCall::Power {
                operation: GuestOperation::Start,
                ..
            }
        );
    if resumes {
        return Ok(());
    }
    let mut error = ToolError::blocked(
        ErrorCode::PolicyBlocked,
        format!(
            "{named} is locked ({lock}: {}), so it cannot be {what} now; nothing was asked or done",
            lock_reason(lock)
        ),
    )
    .with_hint(
        "wait until the operation holding the lock ends (ask for its status again), then ask again; \
         do not unlock it yourself",
    )
    .with_detail("lock", json!(lock));
    error.retryable = true;
    Err(error)
}

fn lock_reason(lock: &str) -> &'static str {
    match lock {
        "backup" => "a backup is running",
        "migrate" => "a migration is running",
        "snapshot" | "snapshot-delete" => "a snapshot task is running or was interrupted",
        "rollback" => "a rollback is running or was interrupted",
        "clone" => "a clone is running",
        "create" => "it is being created",
        "suspended" | "suspending" => "it is hibernated",
        "mounted" => "its volumes are mounted by `pct mount`",
        "disk" => "a disk operation is running",
        _ => "another operation holds it",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::ShutdownTimeout;
    use crate::tools::args::ShutdownFallback;

    fn guest(id: &str, lock: Option<&str>, template: bool) -> Resource {
        let mut r = Resource::new(id.parse().unwrap(), "web");
        if let Some(lock) = lock {
            r.attributes.insert("lock".into(), json!(lock));
        }
        if template {
            r.attributes.insert("template".into(), json!(true));
        }
        r
    }

    fn power(operation: GuestOperation) -> ApiCall {
        ApiCall::Power {
            operation,
            shutdown: (operation == GuestOperation::Shutdown).then_some(ShutdownTimeout {
                timeout: std::time::Duration::from_secs(180),
                on_timeout: ShutdownFallback::Stop,
            }),
        }
    }

    #[test]
    fn locks_and_templates_refuse_changes_and_not_reads() {
        let rollback = ApiCall::Rollback { name: "a".into() };
        let create = ApiCall::CreateSnapshot {
            name: "a".into(),
            description: None,
        };
        // (call, lock, template, refused because)
        let cases: Vec<(ApiCall, Option<&str>, bool, Option<&str>)> = vec![
            (power(GuestOperation::Start), None, false, None),
            (
                power(GuestOperation::Stop),
                Some("backup"),
                false,
                Some("a backup is running"),
            ),
            (
                power(GuestOperation::Shutdown),
                Some("migrate"),
                false,
                Some("locked (migrate"),
            ),
            (
                power(GuestOperation::Reboot),
                Some("snapshot"),
                false,
                Some("locked (snapshot"),
            ),
            (power(GuestOperation::Start), Some("suspended"), false, None),
            (
                power(GuestOperation::Stop),
                Some("suspended"),
                false,
                Some("hibernated"),
            ),
            (
                power(GuestOperation::Start),
                None,
                true,
                Some("is a template"),
            ),
            (
                create.clone(),
                Some("backup"),
                false,
                Some("cannot be snapshotted"),
            ),
            (create, None, true, Some("templates cannot be snapshotted")),
            (
                rollback.clone(),
                Some("rollback"),
                false,
                Some("cannot be rolled back"),
            ),
            (rollback, None, false, None),
            (ApiCall::ListSnapshots, Some("backup"), true, None),
            (ApiCall::Backups, Some("backup"), false, None),
        ];
        for (call, lock, template, refused) in cases {
            let got = refuse_by_guest_state(&call, &guest("vm:pve1:100", lock, template));
            match (refused, got) {
                (None, Ok(())) => {}
                (Some(why), Err(error)) => {
                    assert!(error.message.contains(why), "{call:?}: {}", error.message);
                    assert!(error.blocked, "{call:?}");
                    assert!(
                        error.message.contains("web (vm:pve1:100)"),
                        "{}",
                        error.message
                    );
                }
                (want, got) => panic!("{call:?} {lock:?} {template}: want {want:?}, got {got:?}"),
            }
        }
        // Only guests: a node named in a call is not judged here.
        let node = guest("node:pve1", Some("backup"), false);
        assert!(refuse_by_guest_state(&power(GuestOperation::Stop), &node).is_ok());
    }
}
