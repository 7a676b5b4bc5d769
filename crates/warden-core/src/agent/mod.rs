//! The agentic loop for one user message: mentions are resolved first, then
//! the model proposes and the executor decides, call by call, until the
//! model answers (and Gate 2 lets the answer through) or a limit is hit.

use std::collections::HashMap;

use futures_util::future::{Either, select};
use serde::Serialize;
use serde_json::{Value, json};
use warden_protocol::{ApprovalDecision, CancelFlag, ErrorCode, FsmState, ToolKind};

use crate::executor::{Executor, Moment, Outcome, ProposedCall, Session};
use crate::ports::{Approval, ApprovalState, BoxFuture};

mod approval_wait;
mod calls;
pub mod cleanup;
pub mod compaction;
pub mod grounding;
pub mod mentions;
mod outcome;
pub mod phantom;
pub mod prompt;
pub mod provider;
pub mod usage;

pub use outcome::{TurnEnd, TurnResult};
use outcome::{TurnTally, failing_message, loop_message, model_failure_code};
use provider::{Message, ModelReply, ModelRequest, Provider, ProviderError, ToolOffer};

/// What a human (or a replay policy) decides on an approval request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Approved here (a terminal prompt, a replay policy): the loop records it.
    Approve,
    /// Denied here, with the reason: the loop records it.
    Deny(String),
    /// Leave it open: the call's result stays APPROVAL_REQUIRED.
    Pending,
    /// Decided elsewhere (another client of the server) and already in the
    /// approval store, in this state: approved, denied or expired.
    Recorded(ApprovalState),
}

/// Asks for a human decision. Async: a turn waiting for a human holds no
/// thread (the server wakes it when someone decides).
pub trait Approver: Send {
    fn decide<'a>(&'a mut self, approval: &'a Approval) -> BoxFuture<'a, Decision>;
}

/// One fixed answer to every approval request.
pub struct FixedApprover(pub Decision);

impl Approver for FixedApprover {
    fn decide<'a>(&'a mut self, _approval: &'a Approval) -> BoxFuture<'a, Decision> {
        Box::pin(std::future::ready(self.0.clone()))
    }
}

/// What happened, in order (the replay transcript's events).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LoopEvent {
    FsmState {
        state: FsmState,
    },
    ToolCall {
        turn: usize,
        index: usize,
        /// The provider's id for the call (stream events); not in transcripts.
        #[serde(skip_serializing)]
        call_id: String,
        name: String,
        arguments: Value,
        kind: ToolKind,
    },
    ToolResult {
        turn: usize,
        index: usize,
        #[serde(skip_serializing)]
        call_id: String,
        name: String,
        ok: bool,
        error_code: Option<ErrorCode>,
        cached: bool,
    },
    Exec {
        target: String,
        command: String,
        exit_code: i32,
    },
    ApprovalNeeded {
        approval_id: String,
        tool: String,
        target: String,
        command: String,
        #[serde(skip_serializing)]
        risk: String,
        #[serde(skip_serializing)]
        description: String,
    },
    ApprovalResolved {
        approval_id: String,
        decision: ApprovalDecision,
    },
    AutoRewrite {
        from: String,
        to: String,
    },
    PhantomDetected,
    /// The answer stands, but some of its facts are in no tool result of
    /// this turn nor in the user's words (each: the clause and what is
    /// missing). Additive: older transcripts simply lack it.
    AnswerUnverified {
        turn: usize,
        facts: Vec<String>,
    },
    ScriptExhausted,
    /// Tokens of one model call (real providers only).
    Usage {
        provider: String,
        model: String,
        input_tokens: u64,
        output_tokens: u64,
        cost_usd: Option<f64>,
    },
    AssistantText {
        turn: usize,
        text: String,
    },
}

#[derive(Debug, Clone, Copy)]
pub struct LoopLimits {
    /// Model calls per user message.
    pub max_model_calls: usize,
    /// The same tool and arguments more often than this is a loop.
    pub max_identical_calls: usize,
    /// Consecutive replies whose every call failed before tools are withheld.
    pub max_failed_replies: usize,
    pub budget: usage::Budget,
}

impl Default for LoopLimits {
    fn default() -> Self {
        LoopLimits {
            max_model_calls: 12,
            max_identical_calls: 3,
            max_failed_replies: 3,
            budget: usage::Budget::default(),
        }
    }
}

/// The conversation across user messages.
#[derive(Debug, Default)]
pub struct Conversation {
    pub messages: Vec<Message>,
    /// Tool calls proposed so far, across the whole conversation.
    pub next_call_index: usize,
    pub turn: usize,
    /// Tokens and cost spent, per provider and model.
    pub usage: usage::UsageLedger,
    /// Recoverable errors waiting for the model to recover, by (code, tool).
    pub pending_recoveries: Vec<(ErrorCode, String)>,
}

/// What the user sees when they cancel a turn.
pub const CANCELLED: &str = "Cancelled. Nothing more runs for this request.";

/// Reminders to stop investigating and answer.
const WRAP_UP_NUDGES: [(usize, &str); 2] = [
    (
        12,
        "You have made 12 tool calls for this question. Wrap up: answer with what you have found unless one more check is essential.",
    ),
    (
        18,
        "You have made 18 tool calls. Answer now with what you know, and say what is still unverified.",
    ),
];

/// Everything one turn needs. The turn is cancelled through
/// `session.cancel` (Ctrl-C, a cancel request).
pub struct TurnContext<'t, 'e> {
    pub executor: &'t Executor<'e>,
    pub session: &'t mut Session,
    pub provider: &'t mut dyn Provider,
    pub approver: &'t mut dyn Approver,
    pub clock: &'t (dyn Fn() -> Moment + Sync),
    pub events: &'t mut dyn EventSink,
    pub limits: LoopLimits,
    /// Receives text and thinking as it streams (the CLI prints it).
    pub on_delta: Option<&'t mut (dyn FnMut(provider::Delta<'_>) + Send)>,
}

/// Where the loop's events go: a transcript (replay), a terminal (chat) or a
/// stream (server). Events arrive in the order things happened.
pub trait EventSink: Send {
    fn emit(&mut self, event: LoopEvent);

    /// The full response of a tool call, for displays that show results:
    /// `response` as it came back (the operator's own terminal shows it),
    /// `model_sees` with secrets redacted (what the model, the store and
    /// any stream to elsewhere get). The transcript keeps only the outcome
    /// (`tool_result`).
    fn tool_output(
        &mut self,
        _index: usize,
        _response: &warden_protocol::ToolResponse,
        _model_sees: &serde_json::Value,
    ) {
    }
}

impl EventSink for Vec<LoopEvent> {
    fn emit(&mut self, event: LoopEvent) {
        self.push(event);
    }
}

/// Run the loop for one user message.
pub async fn run_turn(
    ctx: &mut TurnContext<'_, '_>,
    conversation: &mut Conversation,
    user_message: &str,
) -> TurnResult {
    conversation.turn += 1;
    let turn = conversation.turn;
    ctx.session.knowledge.turn = turn;
    ctx.session.knowledge.fresh_requested = crate::knowledge::asks_for_fresh_data(user_message);
    ctx.session.user_words = user_message.to_string();
    let before = ctx.session.fsm.state();
    let now = (ctx.clock)();
    let mention_notes = mentions::prefetch(
        &ctx.executor.inventory().snapshot(),
        ctx.session,
        user_message,
        now.session,
    );
    emit_state_change(ctx, before);
    conversation.messages.push(Message::user(user_message));
    if !mention_notes.is_empty() {
        conversation
            .messages
            .push(Message::system(mention_notes.join("\n")));
    }
    let mut identical: HashMap<String, usize> = HashMap::new();
    // What the answer may rest on: the user's words, Warden's notes, and
    // (as they finish) this turn's calls.
    let mut tally = TurnTally {
        evidence: grounding::Evidence::new(user_message),
        ..TurnTally::default()
    };
    mention_notes.iter().for_each(|n| tally.evidence.note(n));
    let mut failed_replies = 0;
    let mut held_answer: Option<Held> = None;
    // How the turn ends unless something below says otherwise.
    let mut end = TurnEnd::ModelCallLimit {
        calls: ctx.limits.max_model_calls,
    };
    let mut calls_this_turn = 0usize;
    let tools = if ctx.provider.reads_tool_schemas() {
        crate::tools::model_tools(ctx.executor.settings().toolset.as_deref())
    } else {
        Vec::new()
    };
    for model_call in 0..ctx.limits.max_model_calls {
        let last = model_call + 1 == ctx.limits.max_model_calls;
        // The brake never takes away the read that Gate 2 is waiting for.
        let verifying = ctx.session.fsm.can_final_answer().is_err();
        let braked = failed_replies >= ctx.limits.max_failed_replies && !verifying;
        let offer = if last || braked {
            ToolOffer::TextOnly
        } else {
            ToolOffer::Tools
        };
        {
            let (provider, model) = ctx.provider.identity();
            crate::telemetry::agentic_iteration(provider, model);
        }
        if let Some(message) = ctx.limits.budget.exceeded(&conversation.usage) {
            held_answer = Some(Held::Warden(message));
            end = TurnEnd::BudgetExceeded;
            break;
        }
        compaction::compact(
            &mut conversation.messages,
            compaction::KEEP_RECENT,
            compaction::MAX_TOOL_CHARS,
        );
        let cancel: CancelFlag = ctx.session.cancel.clone();
        if cancel.is_cancelled() {
            held_answer = Some(Held::Warden(CANCELLED.to_string()));
            end = TurnEnd::Cancelled;
            break;
        }
        let request = ModelRequest {
            messages: &conversation.messages,
            tools: &tools,
            offer,
            cancel: Some(&cancel),
        };
        let mut ignore = |_: provider::Delta<'_>| {};
        let on_delta: &mut (dyn FnMut(provider::Delta<'_>) + Send) = match ctx.on_delta.as_mut() {
            Some(sink) => &mut **sink,
            None => &mut ignore,
        };
        // Cancelling drops the model call (its connection closes) at once,
        // whatever the provider is waiting on.
        let answered = match select(
            ctx.provider.complete(&request, on_delta),
            cancel.cancelled(),
        )
        .await
        {
            Either::Left((answered, _)) => answered,
            Either::Right(((), _)) => Err(ProviderError::Cancelled),
        };
        let reply = match answered {
            Ok(reply) => reply,
            Err(ProviderError::ScriptExhausted) => {
                ctx.events.emit(LoopEvent::ScriptExhausted);
                end = TurnEnd::ScriptExhausted;
                break;
            }
            Err(ProviderError::Cancelled) => {
                held_answer = Some(Held::Warden(CANCELLED.to_string()));
                end = TurnEnd::Cancelled;
                break;
            }
            Err(error) => {
                let message = match &error {
                    // Never shown or acted on as if it were whole.
                    ProviderError::Truncated { .. } => format!(
                        "The model's answer was cut off before it finished ({error}); it is not shown as an answer. Ask again."
                    ),
                    _ => format!("The model could not answer: {error}"),
                };
                end = TurnEnd::ModelFailed {
                    code: model_failure_code(&error),
                    message: error.to_string(),
                };
                held_answer = Some(Held::Warden(message));
                break;
            }
        };
        let ModelReply {
            text,
            tool_calls,
            usage,
        } = reply;
        if let Some(usage) = usage {
            let (provider, model) = ctx.provider.identity();
            let cost_usd = conversation.usage.prices.cost(provider, model, usage);
            conversation.usage.record(provider, model, usage);
            ctx.events.emit(LoopEvent::Usage {
                provider: provider.to_string(),
                model: model.to_string(),
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
                cost_usd,
            });
        }
        conversation.messages.push(Message::Assistant {
            text: text.clone(),
            tool_calls: tool_calls.clone(),
        });
        if tool_calls.is_empty() {
            let answer = text.unwrap_or_default();
            // Gate 2: no final answer while a write is unverified.
            if let Err(block) = ctx.session.fsm.can_final_answer() {
                crate::telemetry::fsm_final_block(block.state);
                conversation.messages.push(Message::system(format!(
                    "{} {}",
                    block.message, block.recovery_hint
                )));
                held_answer = Some(Held::Model(answer));
                end = TurnEnd::Unverified;
                continue;
            }
            held_answer = Some(Held::Model(answer));
            end = TurnEnd::Answered;
            break;
        }
        let reply_calls = tool_calls.len();
        let any_ok = calls::run_calls(
            ctx,
            conversation,
            tool_calls,
            turn,
            &mut identical,
            &mut tally,
        )
        .await;
        calls_this_turn += reply_calls;
        for (threshold, nudge) in WRAP_UP_NUDGES {
            if calls_this_turn >= threshold && calls_this_turn - reply_calls < threshold {
                conversation.messages.push(Message::system(nudge));
            }
        }
        failed_replies = if any_ok { 0 } else { failed_replies + 1 };
        if let Some(tool) = tally.looping_tool.take() {
            held_answer = Some(Held::Warden(loop_message(&tool)));
            end = TurnEnd::LoopDetected { tool };
            break;
        }
        if ctx.session.cancel.is_cancelled() {
            held_answer = Some(Held::Warden(calls::cancelled_text(&tally)));
            end = TurnEnd::Cancelled;
            break;
        }
        // Tools were withheld and the model still only failed: stop.
        if failed_replies > ctx.limits.max_failed_replies && !verifying {
            held_answer = Some(Held::Warden(failing_message(
                failed_replies,
                &tally.failing_codes,
            )));
            end = TurnEnd::FailingCalls {
                codes: tally.failing_codes.clone(),
            };
            break;
        }
    }
    if end
        == (TurnEnd::ModelCallLimit {
            calls: ctx.limits.max_model_calls,
        })
        && held_answer.is_none()
    {
        held_answer = Some(Held::Warden(format!(
            "Stopped: {} model calls for this message did not produce an answer. Nothing more runs for this request.",
            ctx.limits.max_model_calls
        )));
    }
    let final_text = held_answer.map(|held| {
        // Only the model's own words are checked for claims; Warden's stop
        // messages state what Warden did.
        let answer = match held {
            Held::Model(answer) => answer,
            Held::Warden(text) => return text,
        };
        let (text, retracted) = finish_answer(ctx, answer, &tally.evidence, turn);
        match retracted {
            Finished::Retracted => end = TurnEnd::Retracted,
            Finished::Unverified => end = TurnEnd::Unverified,
            Finished::AsGiven => {}
        }
        text
    });
    if let Some(text) = &final_text {
        ctx.events.emit(LoopEvent::AssistantText {
            turn,
            text: text.clone(),
        });
    }
    TurnResult {
        final_text,
        end,
        rests_on_failure: tally.rests_on_failure(),
        pending_approvals: tally.pending_approvals,
        refused_writes: tally.refused_writes,
    }
}

/// The answer a turn ends with, by who wrote it.
enum Held {
    /// The model's (or the router's) reply.
    Model(String),
    /// Warden's own words: a stop, a cancellation, a model failure.
    Warden(String),
}

/// What finishing did to an answer.
enum Finished {
    AsGiven,
    Retracted,
    Unverified,
}

/// Grounding (phantom detection), and an honest word when a write stays
/// unverified: retract an answer whose facts nothing showed, mark one
/// whose facts the calls did not show.
fn finish_answer(
    ctx: &mut TurnContext<'_, '_>,
    answer: String,
    evidence: &grounding::Evidence,
    turn: usize,
) -> (String, Finished) {
    if ctx.session.fsm.can_final_answer().is_err() {
        return (
            grounding::unverified_write_text(evidence),
            Finished::Unverified,
        );
    }
    // The router's templates over tool results are Warden's own words.
    if ctx.provider.last_text_is_deterministic() {
        return (answer, Finished::AsGiven);
    }
    match grounding::judge(&answer, evidence) {
        grounding::Judgement::Grounded => (answer, Finished::AsGiven),
        grounding::Judgement::Retract(_) => {
            let (provider, model) = ctx.provider.identity();
            crate::telemetry::phantom_detected(provider, model);
            ctx.events.emit(LoopEvent::PhantomDetected);
            (
                phantom::PHANTOM_REPLACEMENT.to_string(),
                Finished::Retracted,
            )
        }
        grounding::Judgement::Unverified(gaps) => {
            ctx.events.emit(LoopEvent::AnswerUnverified {
                turn,
                facts: gaps.iter().map(grounding::Unsupported::summary).collect(),
            });
            (answer, Finished::AsGiven)
        }
    }
}

fn emit_state_change(ctx: &mut TurnContext<'_, '_>, before: FsmState) {
    let after = ctx.session.fsm.state();
    if after != before {
        ctx.events.emit(LoopEvent::FsmState { state: after });
    }
}

fn loop_detected(kind: ToolKind) -> Outcome {
    let error = warden_protocol::ToolError::new(
        ErrorCode::LoopDetected,
        "the same call was made too many times",
    )
    .with_hint("use the results you already have, or change the approach");
    Outcome {
        kind,
        response: warden_protocol::ToolResponse::failure(error),
        execs: Vec::new(),
        approval: None,
        transition: None,
    }
}

/// A call that failed with `code` before or instead of running.
fn failure(kind: ToolKind, code: ErrorCode, message: String) -> Outcome {
    Outcome {
        kind,
        response: warden_protocol::ToolResponse::failure(warden_protocol::ToolError::new(
            code, message,
        )),
        execs: Vec::new(),
        approval: None,
        transition: None,
    }
}

/// The same call with the suggested bounded command, for reads only:
/// Warden never runs a write nobody proposed.
fn rewritten_call(call: &ProposedCall, outcome: &Outcome) -> Option<ProposedCall> {
    let error = outcome.response.error.as_ref()?;
    let rewrite = error.details.extra.get("rewrite")?.as_str()?;
    if !warden_policy::classify(rewrite).intent.is_read_only() {
        return None;
    }
    let mut arguments = call.arguments.clone();
    arguments.get_mut("command")?;
    arguments["command"] = json!(rewrite);
    Some(ProposedCall {
        tool: call.tool.clone(),
        arguments,
    })
}

#[cfg(test)]
mod tests;
