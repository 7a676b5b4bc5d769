//! A write that needs approval, inside a turn: the approval is announced,
//! the approver decides (a terminal prompt, the server's waiting turn, a
//! fixed answer in tests), and an approved call runs through every gate but
//! the approval again. Denial and expiry become the model's tool result.

use serde_json::json;
use warden_protocol::{ApprovalDecision, ErrorCode, FileBefore};

use super::{Decision, LoopEvent, TurnContext, failure};
use crate::executor::{Outcome, ProposedCall};
use crate::ports::{Approval, ApprovalState};

pub(super) fn record_execs(ctx: &mut TurnContext<'_, '_>, outcome: &Outcome) {
    for exec in &outcome.execs {
        ctx.events.emit(LoopEvent::Exec {
            target: exec.target.clone(),
            command: exec.command.clone(),
            exit_code: exec.exit_code,
        });
    }
}

pub(super) async fn settle_approval(
    ctx: &mut TurnContext<'_, '_>,
    approval: &Approval,
    pending: Outcome,
) -> Outcome {
    let with_before = keep_file_before(ctx, approval).await;
    let approval = with_before.as_ref().unwrap_or(approval);
    ctx.events.emit(LoopEvent::ApprovalNeeded {
        approval_id: approval.id.clone(),
        tool: approval.tool.clone(),
        target: approval.target.clone(),
        command: approval.command.clone(),
        risk: approval.risk.clone(),
        description: approval.description.clone(),
    });
    let decision = ctx.approver.decide(approval).await;
    let now = (ctx.clock)();
    match decision {
        Decision::Pending => pending,
        Decision::Recorded(ApprovalState::Approved) => {
            ctx.events.emit(LoopEvent::ApprovalResolved {
                approval_id: approval.id.clone(),
                decision: ApprovalDecision::Approved,
            });
            run_approved(ctx, approval).await
        }
        Decision::Recorded(ApprovalState::Denied) => {
            let reason = ctx
                .executor
                .approvals()
                .get(&approval.id)
                .ok()
                .and_then(|a| a.reason)
                .unwrap_or_else(|| "no reason given".to_string());
            ctx.events.emit(LoopEvent::ApprovalResolved {
                approval_id: approval.id.clone(),
                decision: ApprovalDecision::Denied,
            });
            failure(
                pending.kind,
                ErrorCode::ApprovalDenied,
                format!("Command denied: {reason}"),
            )
        }
        Decision::Recorded(
            ApprovalState::Pending | ApprovalState::Expired | ApprovalState::Consumed,
        ) => {
            // Nobody decided in time (or it was used elsewhere): it did not run here.
            ctx.events.emit(LoopEvent::ApprovalResolved {
                approval_id: approval.id.clone(),
                decision: ApprovalDecision::Expired,
            });
            failure(
                pending.kind,
                ErrorCode::ApprovalExpired,
                "the approval request expired before anyone decided; nothing ran".to_string(),
            )
        }
        Decision::Approve => {
            let store = ctx.executor.approvals();
            if let Err(error) =
                store.decide(&approval.id, ApprovalState::Approved, None, now.wall_ms)
            {
                return failure(pending.kind, ErrorCode::PolicyBlocked, error.to_string());
            }
            ctx.events.emit(LoopEvent::ApprovalResolved {
                approval_id: approval.id.clone(),
                decision: ApprovalDecision::Approved,
            });
            run_approved(ctx, approval).await
        }
        Decision::Deny(reason) => {
            let store = ctx.executor.approvals();
            let _ = store.decide(
                &approval.id,
                ApprovalState::Denied,
                Some(reason.clone()),
                now.wall_ms,
            );
            ctx.events.emit(LoopEvent::ApprovalResolved {
                approval_id: approval.id.clone(),
                decision: ApprovalDecision::Denied,
            });
            failure(
                pending.kind,
                ErrorCode::ApprovalDenied,
                format!("Command denied: {reason}"),
            )
        }
    }
}

/// Run the stored call of an approved approval (every gate but the approval again).
pub(super) async fn run_approved(ctx: &mut TurnContext<'_, '_>, approval: &Approval) -> Outcome {
    let outcome = ctx
        .executor
        .execute_approved(ctx.session, &approval.id, (ctx.clock)())
        .await;
    record_execs(ctx, &outcome);
    outcome
}

/// A file edit that replaces content waits for approval with the file as
/// it is now, read through the executor like any read (gated, redacted,
/// audited) and kept with the approval, so whoever decides sees what the
/// change loses. `None` for other calls.
async fn keep_file_before(ctx: &mut TurnContext<'_, '_>, approval: &Approval) -> Option<Approval> {
    let arguments = &approval.arguments;
    let replaces = approval.tool == "file_edit"
        && matches!(arguments["action"].as_str(), Some("write" | "replace"));
    let path = arguments["path"].as_str().filter(|_| replaces)?;
    let read = ProposedCall {
        tool: "file_edit".to_string(),
        arguments: json!({"action": "read", "target": approval.target, "path": path}),
    };
    let outcome = ctx
        .executor
        .execute(ctx.session, &read, (ctx.clock)())
        .await;
    record_execs(ctx, &outcome);
    let before = file_before(&outcome);
    if let Err(error) = ctx
        .executor
        .approvals()
        .keep_file_before(&approval.id, &before)
    {
        tracing::warn!(%error, approval = %approval.id, "cannot keep the file before the edit");
    }
    let mut approval = approval.clone();
    approval.file_before = Some(before);
    Some(approval)
}

/// The read's answer as the file before an edit: its content (capped), or
/// absent, or why it could not be read.
fn file_before(outcome: &Outcome) -> FileBefore {
    let response = &outcome.response;
    if response.ok {
        let text = response
            .data
            .as_ref()
            .and_then(|d| d["stdout"].as_str())
            .unwrap_or_default();
        let cut = (0..=FileBefore::MAX_BYTES.min(text.len()))
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        return FileBefore {
            content: Some(text[..cut].to_string()),
            truncated: cut < text.len() || response.meta.as_ref().is_some_and(|m| m.truncated),
            unreadable: None,
        };
    }
    let error = response.error.as_ref();
    let stderr = error
        .and_then(|e| e.details.extra.get("output"))
        .and_then(|o| o["stderr"].as_str())
        .unwrap_or_default();
    let absent = stderr.contains("No such file or directory");
    FileBefore {
        content: None,
        truncated: false,
        unreadable: (!absent).then(|| {
            error.map_or_else(
                || "no answer".to_string(),
                |e| format!("{} ({})", e.message, e.code.as_str()),
            )
        }),
    }
}
