//! Approvals whose session is gone: a restart, or an approver deciding from
//! another terminal after the asking process ended. The stored call runs in
//! a fresh session bound to the approval's session id, its target looked up
//! again in the live inventory (that lookup is the discovery), through every
//! gate but the approval; a verification read follows, as after any write.

use serde_json::json;
use warden_protocol::{ErrorCode, ResourceId, ToolError, ToolKind};

use super::{Authorization, Executor, Moment, Outcome, ProposedCall, Session};
use crate::context::Registration;
use crate::ports::Approval;
use crate::tools::ToolCall;
use crate::tools::args::{ControlArgs, DockerArgs, FileEditArgs, SnapshotArgs};

/// What running a stored approval did.
pub struct StoredRun {
    /// The session it ran in (FSM in VERIFYING after a dispatched write).
    pub session: Session,
    pub outcome: Outcome,
    /// The read that checks the write, when the write was dispatched.
    pub verification: Option<Outcome>,
}

impl Executor<'_> {
    /// Run an approved approval out of band: re-resolve its target, run the
    /// stored call (never arguments from anyone else), then verify.
    pub async fn run_stored_approval(&self, approval_id: &str, at: Moment) -> StoredRun {
        let approval = match self.ports.approvals.get(approval_id) {
            Ok(approval) => approval,
            Err(error) => {
                let session = Session::new("orphan");
                let outcome = self.blocked(
                    &session,
                    "control",
                    None,
                    &format!("run stored approval {approval_id}"),
                    ToolKind::Write,
                    ToolError::new(ErrorCode::NotFound, error.to_string()),
                );
                return StoredRun {
                    session,
                    outcome,
                    verification: None,
                };
            }
        };
        let mut session = Session::new(approval.session_id.clone());
        if let Err(error) = self.rediscover(&mut session, &approval, at) {
            let outcome = self.blocked(
                &session,
                &approval.tool,
                Some(&approval.target),
                &approval.command,
                ToolKind::Write,
                error,
            );
            return StoredRun {
                session,
                outcome,
                verification: None,
            };
        }
        let outcome = self.execute_approved(&mut session, approval_id, at).await;
        let dispatched = !outcome.execs.is_empty();
        let verification = match verification_for(&approval.tool, &approval.arguments) {
            Some(call) if dispatched => Some(self.execute(&mut session, &call, at).await),
            Some(_) | None => None,
        };
        StoredRun {
            session,
            outcome,
            verification,
        }
    }

    /// The approval's target, found again in the live inventory, with its
    /// routing parents: the discovery a write needs.
    fn rediscover(
        &self,
        session: &mut Session,
        approval: &Approval,
        at: Moment,
    ) -> Result<(), ToolError> {
        if approval.target.is_empty() {
            // Nothing to find again (a note): the approval of this exact
            // call stands for the discovery its session made.
            session.fsm.on_discovery();
            return Ok(());
        }
        let id: ResourceId = approval.target.parse().map_err(|_| {
            ToolError::new(
                ErrorCode::InvalidInput,
                format!("the approval names an invalid target `{}`", approval.target),
            )
        })?;
        let inventory = self.ports.inventory.snapshot();
        let mut chain = inventory.chain(&id);
        // A guest that migrated since the approval was asked for: followed
        // to its new id, if it is still the guest the approval names.
        let mut moved = None;
        if chain.is_empty() {
            if let Some(now) = self.ports.inventory.moved_to(&id) {
                if let Some(resource) = inventory.get(&now) {
                    refuse_another_guest(approval, resource)?;
                    chain = inventory.chain(&now);
                    moved = Some(now);
                }
            }
        }
        let Some((target, parents)) = chain.split_first() else {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "{} is no longer in the inventory; the approved call was not run",
                    approval.target
                ),
            ));
        };
        for parent in parents {
            session
                .context
                .register((*parent).clone(), Registration::RoutingParent, at.session);
        }
        // The stored call names its target as the asker did ("thishost");
        // in this session that name means the resource found by its id.
        let mut target = (*target).clone();
        if let Some(named) = approval.arguments.get("target").and_then(|t| t.as_str()) {
            let known = named == target.id.to_string()
                || target.name.eq_ignore_ascii_case(named)
                || target.aliases.iter().any(|a| a.eq_ignore_ascii_case(named));
            if !known {
                target.aliases.push(named.to_string());
            }
        }
        session
            .context
            .register(target, Registration::Explicit, at.session);
        if let Some(now) = moved {
            session.note_move(id, now);
        }
        session.fsm.on_discovery();
        Ok(())
    }
}

/// The name of the guest an approval was granted for: the stored call's
/// target when it names one, else the name its description was written
/// with (`control on web: …`).
fn granted_for(approval: &Approval) -> Option<String> {
    let named = approval.arguments.get("target").and_then(|t| t.as_str());
    if let Some(named) = named.filter(|n| n.parse::<ResourceId>().is_err()) {
        return Some(named.to_string());
    }
    let rest = approval
        .description
        .strip_prefix(&format!("{} on ", approval.tool))?;
    let (name, _) = rest.split_once(": ")?;
    (!name.is_empty()).then(|| name.to_string())
}

/// A vmid now held by another guest (another name) is not the guest the
/// approval was granted for: refused.
fn refuse_another_guest(
    approval: &Approval,
    now: &warden_protocol::Resource,
) -> Result<(), ToolError> {
    let same = granted_for(approval).is_some_and(|name| {
        now.name.eq_ignore_ascii_case(&name)
            || now.aliases.iter().any(|a| a.eq_ignore_ascii_case(&name))
            || now.id.to_string() == name
    });
    if same {
        return Ok(());
    }
    Err(ToolError::new(
        ErrorCode::NotFound,
        format!(
            "{} is no longer in the inventory, and {} now holds its id on another node: it is not the guest this approval was granted for ({}), so the approved call was not run",
            approval.target,
            now.id,
            granted_for(approval).unwrap_or_else(|| "unnamed".into())
        ),
    )
    .with_hint("ask again naming the guest you mean"))
}

/// The read that shows whether a write did what it meant to (after a stored
/// approval ran, or after a write was interrupted once sent).
pub fn verification_for(tool: &str, arguments: &serde_json::Value) -> Option<ProposedCall> {
    let call = ToolCall::parse(tool, arguments).ok()?;
    let (tool, arguments) = match call {
        ToolCall::Control(ControlArgs::Service {
            target, service, ..
        }) => {
            let unit = if service.ends_with(".service") {
                service
            } else {
                format!("{service}.service")
            };
            (
                "read",
                json!({"action": "exec", "target": target, "command": format!(
                    "systemctl show --no-pager --property=Id,ActiveState,SubState,Result,ActiveEnterTimestamp -- {}",
                    super::commands::quote(&unit)
                )}),
            )
        }
        ToolCall::Docker(DockerArgs::Control { target, .. } | DockerArgs::Update { target }) => {
            ("docker", json!({"action": "inspect", "target": target}))
        }
        ToolCall::FileEdit(
            FileEditArgs::Write { target, path, .. }
            | FileEditArgs::Append { target, path, .. }
            | FileEditArgs::Replace { target, path, .. },
        ) => (
            "file_edit",
            json!({"action": "read", "target": target, "path": path}),
        ),
        ToolCall::Control(
            ControlArgs::Guest { target, .. } | ControlArgs::Command { target, .. },
        ) => ("query", json!({"action": "health", "target": target})),
        ToolCall::Snapshot(
            SnapshotArgs::Create { target, .. } | SnapshotArgs::Rollback { target, .. },
        ) => ("snapshot", json!({"action": "list", "target": target})),
        _ => return None,
    };
    Some(ProposedCall {
        tool: tool.to_string(),
        arguments,
    })
}

impl Executor<'_> {
    /// Re-run the stored call of an approved approval (never arguments the
    /// model sends again). Every gate but the approval runs again; the
    /// approval is used up only when they all pass and the call is about to
    /// run, so a call a gate refuses (its target gone) can be tried again.
    pub async fn execute_approved(
        &self,
        session: &mut Session,
        approval_id: &str,
        at: Moment,
    ) -> Outcome {
        let refused = |error: crate::ports::ApprovalError| {
            let code = match error {
                crate::ports::ApprovalError::Denied(_) => ErrorCode::ApprovalDenied,
                _ => ErrorCode::PolicyBlocked,
            };
            ToolError::new(code, error.to_string())
        };
        let approval = match self
            .ports
            .approvals
            .get(approval_id)
            .and_then(|a| crate::ports::check_consumable(&a, at.wall_ms).map(|()| a))
        {
            Ok(approval) => approval,
            Err(error) => {
                return self.blocked(
                    session,
                    "control",
                    None,
                    &format!("approval {approval_id}"),
                    ToolKind::Write,
                    refused(error),
                );
            }
        };
        if approval.session_id != session.id {
            let error = ToolError::new(
                ErrorCode::PolicyBlocked,
                "the approval belongs to another session",
            );
            return self.blocked(
                session,
                &approval.tool,
                None,
                &approval.command,
                ToolKind::Write,
                error,
            );
        }
        let call = ProposedCall {
            tool: approval.tool.clone(),
            arguments: approval.arguments.clone(),
        };
        let ready = match self.prepare_with(session, &call, at, Authorization::Approved(&approval))
        {
            super::Prepared::Done(outcome) => return outcome,
            super::Prepared::Ready(ready) => ready,
        };
        // Used up now, atomically: of two runs racing, one runs.
        if let Err(error) = self.ports.approvals.consume(approval_id, at.wall_ms) {
            return self.blocked(
                session,
                &approval.tool,
                Some(&approval.target),
                &approval.command,
                ToolKind::Write,
                refused(error),
            );
        }
        let performed = self.perform(&ready).await;
        self.finish(session, ready, performed, at)
    }
}
