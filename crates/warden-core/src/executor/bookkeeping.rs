//! The executor's bookkeeping around the gates: turning a call that needs
//! a human into a stored approval, a refusal into an audited outcome, and
//! one audit line into a record.

use std::time::Instant;

use serde_json::Value;
use warden_protocol::{ErrorCode, Resource, ToolError, ToolKind, ToolResponse};

use super::commands::Plan;
use super::{Executor, Moment, Outcome, ProposedCall, Session, arguments_hash, snapshot_first};
use crate::ports::{Approval, ApprovalState, AuditRecord};
use crate::tools::ToolCall;

/// Who the executor's own records name as their actor: the proposer of the
/// call (the model or the router; the executor cannot tell which).
const PROPOSER: &str = "assistant";

/// One audit record as the executor fills it in.
pub(super) struct AuditLine<'x> {
    pub(super) tool: &'x str,
    pub(super) target: Option<&'x str>,
    pub(super) decision: &'x str,
    pub(super) code: Option<ErrorCode>,
    /// The command (or call) the record concerns.
    pub(super) command: &'x str,
    pub(super) reason: Option<&'x str>,
}

impl Executor<'_> {
    pub(super) fn request_approval(
        &self,
        session: &Session,
        proposed: &ProposedCall,
        call: &ToolCall,
        target: Option<&Resource>,
        plan: &Plan,
        at: Moment,
    ) -> Result<Approval, ToolError> {
        let command = plan_command(plan, proposed, target);
        let risk = warden_policy::classify(&command).risk;
        // What the approver is told about undoing it (Proxmox guests).
        let support = |r: &Resource| {
            self.guest_api
                .serves(Some(r))
                .then(|| self.guest_api.snapshot_support(r))
        };
        let inventory = self.ports.inventory.snapshot();
        let chain = target.map(|t| {
            let mut chain = inventory.chain(&t.id);
            if chain.is_empty() {
                chain.push(t);
            }
            chain
        });
        let snapshot = match &chain {
            Some(chain) => {
                // `always` on a guest PVE cannot snapshot: no approval.
                snapshot_first::refuse_unsnapshottable(
                    &self.settings.snapshots,
                    call,
                    chain,
                    &support,
                )?;
                snapshot_first::snapshot_offer(&self.settings.snapshots, call, chain, &support)
            }
            None => None,
        };
        let undoable = snapshot
            .as_ref()
            .map(|s| format!(" — {}", s.undoable))
            .unwrap_or_default();
        let id = crate::ports::new_approval_id()
            .map_err(|e| ToolError::new(ErrorCode::Internal, e.to_string()))?;
        let approval = Approval {
            id,
            session_id: session.id.clone(),
            tool: proposed.tool.clone(),
            target: target.map(|t| t.id.to_string()).unwrap_or_default(),
            arguments_hash: arguments_hash(&proposed.tool, &proposed.arguments),
            arguments: proposed.arguments.clone(),
            command: command.clone(),
            risk: risk.as_str().to_string(),
            description: format!(
                "{} on {}: {command}{undoable}",
                call.name(),
                target.map_or("-".to_string(), |t| t.name.clone())
            ),
            created_at_ms: at.wall_ms,
            expires_at_ms: at.wall_ms
                + u64::try_from(self.settings.approval_ttl.as_millis()).unwrap_or(u64::MAX),
            state: ApprovalState::Pending,
            reason: None,
            decided_by: None,
            decided_at_ms: None,
            snapshot,
            file_before: None,
        };
        self.ports
            .approvals
            .create(approval.clone())
            .map_err(|e| ToolError::new(ErrorCode::Internal, e.to_string()))?;
        Ok(approval)
    }

    pub(super) fn blocked(
        &self,
        session: &Session,
        tool: &str,
        target: Option<&str>,
        command: &str,
        kind: ToolKind,
        error: ToolError,
    ) -> Outcome {
        let audited = self.audit(
            session,
            AuditLine {
                tool,
                target,
                decision: "blocked",
                code: Some(error.code),
                command,
                reason: Some(&error.message),
            },
            Instant::now(),
        );
        let mut response = ToolResponse::failure(error);
        if let Err(audit_error) = audited {
            response
                .meta
                .get_or_insert_with(Default::default)
                .audit_error = Some(audit_error.to_string());
        }
        Outcome {
            kind,
            response,
            execs: Vec::new(),
            approval: None,
            transition: None,
        }
    }

    pub(super) fn audit(
        &self,
        session: &Session,
        line: AuditLine<'_>,
        started: Instant,
    ) -> Result<(), crate::ports::AuditError> {
        self.ports.audit.append(AuditRecord {
            session_id: session.id.clone(),
            actor: PROPOSER.to_string(),
            tool: line.tool.to_string(),
            target: line.target.map(str::to_string),
            decision: line.decision.to_string(),
            code: line.code.map(|c| c.as_str().to_string()),
            command: line.command.chars().take(2000).collect(),
            reason: line.reason.map(|r| r.chars().take(500).collect()),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }
}

/// The command a plan runs, for approvals and the audit log.
pub(super) fn plan_command(
    plan: &Plan,
    proposed: &ProposedCall,
    target: Option<&Resource>,
) -> String {
    match plan {
        Plan::Run(planned) => planned.command.clone(),
        Plan::Api(call) => call.as_command_line(target).1,
        Plan::Replace { path, old, new } => format!("replace `{old}` with `{new}` in {path}"),
        Plan::Internal => call_command(&proposed.tool, &proposed.arguments),
    }
}

/// The command a refused call concerns: its `command` argument, else the
/// tool and its arguments.
pub(super) fn call_command(tool: &str, arguments: &Value) -> String {
    match arguments.get("command").and_then(Value::as_str) {
        Some(command) => command.to_string(),
        None => format!("{tool} {arguments}"),
    }
}
