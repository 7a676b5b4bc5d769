//! Running the tool calls of one model reply: every call passes the gates in
//! call order (Gate 1 included); independent reads that run commands are
//! dispatched side by side (at most four at a time); results are
//! post-processed in call order. Writes and resolve calls run alone, after
//! everything proposed before them has finished.

use std::collections::HashMap;

use warden_protocol::{ErrorCode, FsmState, ToolKind};

use warden_protocol::CancelFlag;

use super::approval_wait::{record_execs, settle_approval};
use super::outcome::TurnTally;
use super::provider::{Message, ProposedToolCall};
use super::{
    CANCELLED, Conversation, LoopEvent, TurnContext, emit_state_change, loop_detected,
    rewritten_call,
};
use crate::executor::{Outcome, Performed, Prepared, ProposedCall, verification_for};

/// Reads of one reply in flight at once, over all targets: a fan-out
/// over a fleet waits on its slowest host once, not once per handful.
const MAX_PARALLEL: usize = 64;

/// Reads in flight at once on one target: a host is not flooded.
const MAX_PARALLEL_PER_TARGET: usize = 4;

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
    tally: &mut TurnTally,
) -> bool {
    let mut any_ok = false;
    let mut batch: Vec<Begun> = Vec::new();
    let mut codes: Vec<ErrorCode> = Vec::new();
    for proposed in tool_calls {
        let index = conversation.next_call_index;
        conversation.next_call_index += 1;
        let kind = crate::tools::classify_call(&proposed.name, &proposed.arguments);

        if kind != ToolKind::Read {
            any_ok |= flush(ctx, conversation, &mut batch, turn, tally, &mut codes).await;
        }
        let begun = begin(ctx, proposed, index, turn, identical, kind);
        match &begun.step {
            Prepared::Ready(ready) if ready.may_run_in_parallel() => batch.push(begun),
            Prepared::Ready(_) | Prepared::Done(_) => {
                any_ok |= flush(ctx, conversation, &mut batch, turn, tally, &mut codes).await;
                let outcome = complete(ctx, conversation, begun, None, turn, tally).await;
                any_ok |= note(outcome, &mut codes);
            }
        }
    }
    any_ok |= flush(ctx, conversation, &mut batch, turn, tally, &mut codes).await;
    if !any_ok {
        tally.failing_codes = codes;
    }
    any_ok
}

/// Whether the call succeeded; a failure's code is kept for the brake.
fn note(outcome: Option<ErrorCode>, codes: &mut Vec<ErrorCode>) -> bool {
    match outcome {
        None => true,
        Some(code) => {
            codes.push(code);
            false
        }
    }
}

/// The answer of a turn the user cancelled, honest about writes that were
/// interrupted after they were sent.
pub(super) fn cancelled_text(tally: &TurnTally) -> String {
    if tally.interrupted_writes.is_empty() {
        return CANCELLED.to_string();
    }
    format!(
        "Cancelled, but a change was already sent and may have happened:\n{}",
        tally.interrupted_writes.join("\n")
    )
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
    tally: &mut TurnTally,
    codes: &mut Vec<ErrorCode>,
) -> bool {
    if batch.is_empty() {
        return false;
    }
    let performed = perform_side_by_side(ctx.executor, batch).await;
    let mut any_ok = false;
    for (begun, performed) in batch.drain(..).zip(performed) {
        let outcome = complete(ctx, conversation, begun, performed, turn, tally).await;
        any_ok |= note(outcome, codes);
    }
    any_ok
}

/// Run the batch's ready reads concurrently on this task (a read waiting on
/// its host holds no thread), at most [`MAX_PARALLEL`] at once and
/// [`MAX_PARALLEL_PER_TARGET`] per target, starting them in call order;
/// the results come back in call order.
async fn perform_side_by_side(
    executor: &crate::executor::Executor<'_>,
    batch: &[Begun],
) -> Vec<Option<Performed>> {
    use futures_util::StreamExt;
    use futures_util::stream::FuturesUnordered;

    let mut performed: Vec<Option<Performed>> = batch.iter().map(|_| None).collect();
    let mut waiting: Vec<usize> = (0..batch.len())
        .filter(|&i| matches!(batch[i].step, Prepared::Ready(_)))
        .collect();
    let target = |i: usize| match &batch[i].step {
        Prepared::Ready(ready) => ready.target_key(),
        Prepared::Done(_) => "",
    };
    let mut per_target: HashMap<&str, usize> = HashMap::new();
    let mut running = FuturesUnordered::new();
    loop {
        let mut next = 0;
        while running.len() < MAX_PARALLEL && next < waiting.len() {
            let index = waiting[next];
            let busy = per_target.entry(target(index)).or_insert(0);
            if *busy >= MAX_PARALLEL_PER_TARGET {
                next += 1;
                continue;
            }
            *busy += 1;
            waiting.remove(next);
            if let Prepared::Ready(ready) = &batch[index].step {
                running.push(async move { (index, executor.perform(ready).await) });
            }
        }
        let Some((index, result)) = running.next().await else {
            break;
        };
        if let Some(busy) = per_target.get_mut(target(index)) {
            *busy = busy.saturating_sub(1);
        }
        performed[index] = Some(result);
    }
    performed
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
/// the approval, the events and the tool message, in call order. Returns
/// the call's error code (`None`: it succeeded).
async fn complete(
    ctx: &mut TurnContext<'_, '_>,
    conversation: &mut Conversation,
    begun: Begun,
    performed: Option<Performed>,
    turn: usize,
    tally: &mut TurnTally,
) -> Option<ErrorCode> {
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
    tally.record(&call.tool, &call.arguments, outcome.kind, &outcome.response);
    ctx.events.emit(LoopEvent::ToolResult {
        turn,
        index,
        call_id: id.clone(),
        name: call.tool.clone(),
        ok: outcome.response.ok,
        error_code: outcome.response.error_code(),
        cached: outcome.response.meta.as_ref().is_some_and(|m| m.cached),
    });
    // Secrets never reach the model or the store; the terminal shows the
    // real output.
    let model_sees = redacted(&outcome.response);
    ctx.events
        .tool_output(index, &outcome.response, &model_sees);
    tally
        .evidence
        .record(&call.tool, &call.arguments, outcome.kind, &model_sees);
    emit_state_change(ctx, before);
    let content = serde_json::to_string(&model_sees).unwrap_or_else(|_| "{}".to_string());
    conversation.messages.push(Message::Tool {
        call_id: id,
        name: call.tool.clone(),
        content,
    });
    if interrupted_after_sending(&outcome) && ctx.session.cancel.is_cancelled() {
        let checked = verify_interrupted(ctx, conversation, &call, turn).await;
        tally.interrupted_writes.push(checked);
    }
    if outcome.response.ok {
        None
    } else {
        Some(
            outcome
                .response
                .error_code()
                .unwrap_or(ErrorCode::ExecutionFailed),
        )
    }
}

/// A write that was sent to a host and then interrupted or timed out.
fn interrupted_after_sending(outcome: &Outcome) -> bool {
    outcome.kind == ToolKind::Write
        && outcome
            .response
            .error
            .as_ref()
            .is_some_and(|e| e.details.extra.contains_key("possibly_applied"))
}

/// The user cancelled while a write was running: the change may have
/// happened, so the read that checks it runs anyway (with a flag of its
/// own), is shown and audited like any call, and the answer says what it saw.
async fn verify_interrupted(
    ctx: &mut TurnContext<'_, '_>,
    conversation: &mut Conversation,
    write: &ProposedCall,
    turn: usize,
) -> String {
    let what = describe(write);
    let Some(check) = verification_for(&write.tool, &write.arguments) else {
        return format!("- {what}: nothing can check it automatically; check it yourself.");
    };
    let index = conversation.next_call_index;
    conversation.next_call_index += 1;
    let call_id = format!("verify-{index}");
    let kind = crate::tools::classify_call(&check.tool, &check.arguments);
    ctx.events.emit(LoopEvent::ToolCall {
        turn,
        index,
        call_id: call_id.clone(),
        name: check.tool.clone(),
        arguments: check.arguments.clone(),
        kind,
    });
    let turn_cancel = std::mem::replace(&mut ctx.session.cancel, CancelFlag::new());
    let outcome = ctx
        .executor
        .execute(ctx.session, &check, (ctx.clock)())
        .await;
    ctx.session.cancel = turn_cancel;
    record_execs(ctx, &outcome);
    ctx.events.emit(LoopEvent::ToolResult {
        turn,
        index,
        call_id,
        name: check.tool.clone(),
        ok: outcome.response.ok,
        error_code: outcome.response.error_code(),
        cached: false,
    });
    let model_sees = redacted(&outcome.response);
    ctx.events
        .tool_output(index, &outcome.response, &model_sees);
    let seen = match (&model_sees["data"], &outcome.response.error) {
        (data @ serde_json::Value::Object(_), _) => data
            .get("stdout")
            .and_then(|s| s.as_str())
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|| data.to_string()),
        (_, Some(error)) => format!("the check failed: {}", error.message),
        (_, None) => String::new(),
    };
    format!("- {what}; the check afterwards showed:\n{seen}")
}

/// `control service web1 (restart nginx)`, for the user.
fn describe(call: &ProposedCall) -> String {
    let field = |key: &str| call.arguments.get(key).and_then(|v| v.as_str());
    let mut text = call.tool.clone();
    for part in [field("action"), field("target")].into_iter().flatten() {
        text.push(' ');
        text.push_str(part);
    }
    let detail: Vec<&str> = ["operation", "service", "command", "path"]
        .into_iter()
        .filter_map(field)
        .collect();
    if !detail.is_empty() {
        text.push_str(&format!(" ({})", detail.join(" ")));
    }
    text
}

/// A tool response as the model (and the store) may see it: every secret
/// replaced by a marker naming what was removed.
fn redacted(response: &warden_protocol::ToolResponse) -> serde_json::Value {
    let mut value = serde_json::to_value(response).unwrap_or(serde_json::Value::Null);
    crate::redact::redact_json(&mut value);
    value
}
