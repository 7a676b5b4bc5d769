//! Running the tool calls of one model reply: every call passes the gates in
//! call order (Gate 1 included); independent reads that run commands are
//! dispatched side by side (at most four at a time); results are
//! post-processed in call order. Writes and resolve calls run alone, after
//! everything proposed before them has finished.

use std::collections::HashMap;

use warden_protocol::{ErrorCode, FsmState, ToolKind};

use super::provider::{Message, ProposedToolCall};
use super::{
    Conversation, LoopEvent, TurnContext, emit_state_change, loop_detected, record_execs,
    rewritten_call, settle_approval,
};
use crate::executor::{Performed, Prepared, ProposedCall};

/// Reads dispatched together at most.
const MAX_PARALLEL: usize = 4;

struct Begun {
    index: usize,
    id: String,
    call: ProposedCall,
    step: Prepared,
}

/// Run a reply's calls; returns whether any succeeded.
pub(super) async fn run_calls(
    ctx: &mut TurnContext<'_, '_>,
    conversation: &mut Conversation,
    tool_calls: Vec<ProposedToolCall>,
    turn: usize,
    identical: &mut HashMap<String, usize>,
) -> bool {
    let mut any_ok = false;
    let mut batch: Vec<Begun> = Vec::new();
    for proposed in tool_calls {
        let index = conversation.next_call_index;
        conversation.next_call_index += 1;
        let kind = crate::tools::classify_call(&proposed.name, &proposed.arguments);

        if kind != ToolKind::Read {
            any_ok |= flush(ctx, conversation, &mut batch, turn).await;
        }
        let begun = begin(ctx, proposed, index, turn, identical, kind);
        match &begun.step {
            Prepared::Ready(ready) if ready.may_run_in_parallel() => {
                batch.push(begun);
                if batch.len() == MAX_PARALLEL {
                    any_ok |= flush(ctx, conversation, &mut batch, turn).await;
                }
            }
            Prepared::Ready(_) | Prepared::Done(_) => {
                any_ok |= flush(ctx, conversation, &mut batch, turn).await;
                any_ok |= complete(ctx, conversation, begun, None, turn).await;
            }
        }
    }
    any_ok |= flush(ctx, conversation, &mut batch, turn).await;
    any_ok
}

/// The call event, loop detection and the executor's gates.
fn begin(
    ctx: &mut TurnContext<'_, '_>,
    proposed: ProposedToolCall,
    index: usize,
    turn: usize,
    identical: &mut HashMap<String, usize>,
    kind: ToolKind,
) -> Begun {
    let call = ProposedCall {
        tool: proposed.name,
        arguments: proposed.arguments,
    };
    let proposed_id = proposed.id;
    ctx.events.emit(LoopEvent::ToolCall {
        turn,
        index,
        call_id: proposed_id.clone(),
        name: call.tool.clone(),
        arguments: call.arguments.clone(),
        kind,
    });
    let seen = identical
        .entry(format!("{}\u{0}{}", call.tool, call.arguments))
        .or_insert(0);
    *seen += 1;
    let step = if ctx.session.cancel.is_cancelled() {
        // The user stopped the turn: nothing more is started.
        Prepared::Done(super::failure(
            kind,
            ErrorCode::Cancelled,
            "cancelled by the user before it ran".to_string(),
        ))
    } else if *seen > ctx.limits.max_identical_calls {
        Prepared::Done(loop_detected(kind))
    } else {
        ctx.executor.prepare(ctx.session, &call, (ctx.clock)())
    };
    Begun {
        index,
        id: proposed_id,
        call,
        step,
    }
}

/// Dispatch the batched reads side by side, then post-process in order.
async fn flush(
    ctx: &mut TurnContext<'_, '_>,
    conversation: &mut Conversation,
    batch: &mut Vec<Begun>,
    turn: usize,
) -> bool {
    if batch.is_empty() {
        return false;
    }
    let executor = ctx.executor;
    // Concurrent on one task: a read waiting on its host holds no thread.
    let performed: Vec<Option<Performed>> =
        futures_util::future::join_all(batch.iter().map(|begun| async move {
            match &begun.step {
                Prepared::Ready(ready) => Some(executor.perform(ready).await),
                Prepared::Done(_) => None,
            }
        }))
        .await;
    let mut any_ok = false;
    for (begun, performed) in batch.drain(..).zip(performed) {
        any_ok |= complete(ctx, conversation, begun, performed, turn).await;
    }
    any_ok
}

/// Errors a model is expected to recover from by itself.
const RECOVERABLE: &[ErrorCode] = &[
    ErrorCode::StrictResolution,
    ErrorCode::FsmBlocked,
    ErrorCode::RoutingMismatch,
    ErrorCode::InvalidInput,
    ErrorCode::NotFound,
    ErrorCode::ReadOnlyViolation,
];

/// Auto-recovery bookkeeping: a recoverable error opens a pending recovery
/// for its tool; the next success of that tool closes it, counted as a
/// recovery.
fn track_recovery(conversation: &mut Conversation, tool: &str, outcome: &crate::executor::Outcome) {
    let pending = &mut conversation.pending_recoveries;
    match outcome.response.error_code() {
        Some(code)
            if RECOVERABLE.contains(&code)
                && !pending.iter().any(|(c, t)| *c == code && t == tool) =>
        {
            crate::telemetry::auto_recovery_attempt(code, tool);
            pending.push((code, tool.to_string()));
        }
        None if outcome.response.ok => pending.retain(|(code, t)| {
            let recovered = t == tool;
            if recovered {
                crate::telemetry::auto_recovery_success(*code, tool);
            }
            !recovered
        }),
        _ => {}
    }
}

/// Finish one call: dispatch it if nobody did, then the automatic rewrite,
/// the approval, the events and the tool message, in call order.
async fn complete(
    ctx: &mut TurnContext<'_, '_>,
    conversation: &mut Conversation,
    begun: Begun,
    performed: Option<Performed>,
    turn: usize,
) -> bool {
    let before: FsmState = ctx.session.fsm.state();
    let Begun {
        index,
        id,
        call,
        step,
    } = begun;
    let mut outcome = match step {
        Prepared::Done(outcome) => outcome,
        Prepared::Ready(ready) => {
            let performed = match performed {
                Some(performed) => performed,
                None => ctx.executor.perform(&ready).await,
            };
            ctx.executor
                .finish(ctx.session, ready, performed, (ctx.clock)())
        }
    };
    record_execs(ctx, &outcome);
    if outcome.response.error_code() == Some(ErrorCode::NonInteractive) {
        if let Some(rewritten) = rewritten_call(&call, &outcome) {
            let from = call.arguments["command"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let to = rewritten.arguments["command"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            ctx.events.emit(LoopEvent::AutoRewrite { from, to });
            crate::telemetry::auto_recovery_attempt(ErrorCode::NonInteractive, &call.tool);
            outcome = ctx
                .executor
                .execute(ctx.session, &rewritten, (ctx.clock)())
                .await;
            record_execs(ctx, &outcome);
            if outcome.response.ok {
                crate::telemetry::auto_recovery_success(ErrorCode::NonInteractive, &call.tool);
            }
        }
    }
    if outcome.response.error_code() == Some(ErrorCode::ApprovalRequired) {
        if let Some(approval) = outcome.approval.clone() {
            outcome = settle_approval(ctx, &approval, outcome).await;
        }
    }
    track_recovery(conversation, &call.tool, &outcome);
    ctx.events.emit(LoopEvent::ToolResult {
        turn,
        index,
        call_id: id.clone(),
        name: call.tool.clone(),
        ok: outcome.response.ok,
        error_code: outcome.response.error_code(),
        cached: outcome.response.meta.as_ref().is_some_and(|m| m.cached),
    });
    ctx.events.tool_output(index, &outcome.response);
    emit_state_change(ctx, before);
    let content = serde_json::to_string(&outcome.response).unwrap_or_else(|_| "{}".to_string());
    conversation.messages.push(Message::Tool {
        call_id: id,
        name: call.tool,
        content,
    });
    outcome.response.ok
}
