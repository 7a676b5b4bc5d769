//! A write that needs approval, inside a turn: the approval is announced,
//! the approver decides (a terminal prompt, the server's waiting turn, a
//! fixed answer in tests), and an approved call runs through every gate but
//! the approval again. Denial and expiry become the model's tool result.

use warden_protocol::{ApprovalDecision, ErrorCode};

use super::{Decision, LoopEvent, TurnContext, failure};
use crate::executor::Outcome;
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
