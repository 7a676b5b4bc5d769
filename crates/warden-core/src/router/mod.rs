//! The deterministic router: Warden without a language model. It is a
//! [`Provider`] like any model, so every route goes through the same loop,
//! executor, gates, approvals, verification and audit; it only *proposes*
//! tool calls and words its answers from their results.
//!
//! A request goes through four stages, in order, one folder each:
//!
//! 1. `recognise/`: the text → an [`Intent`]. Regex fast paths, then a
//!    parser for requests that are shell commands, then keyword
//!    heuristics; the nearest phrasings for text that matched none.
//! 2. `plan/`: the intent and the inventory → a [`Plan`]: its names
//!    resolved to resources (or services on a host), the route it takes.
//!    `decide.rs` then says whether the router claims the request: with a
//!    model configured only what it is sure of (a fast path or a parse
//!    whose names resolve as the request describes them), the rest goes
//!    to the model; without one, an unmatched request gets the nearest
//!    supported phrasings.
//! 3. `routes/`: the plan carried out one [`Step`] per model call, each
//!    from the results of the calls before ([`Progress`], [`next_step`]);
//!    every change is discovered, checked, written (with approval) and
//!    verified.
//! 4. `render/`: the tool results → the answer's text.
//!
//! `markers.rs` holds the `@@warden:` lines a route's command prints and
//! its answer splits on. Here: [`Router`], the provider that runs the
//! stages turn by turn, and [`route`], the first two without running
//! anything (`warden explain`, `--verbose`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use warden_llm::{
    BoxFuture, Delta, Message, ModelReply, ModelRequest, ProposedToolCall, Provider, ProviderError,
    ToolOffer,
};

use crate::ports::Inventory;

mod decide;
mod markers;
pub mod plan;
mod recognise;
pub mod render;
mod routes;

/// The command in a request that is itself a shell command ("df -h",
/// "$ uptime", "uptime on h2"), and the machine it is aimed at.
pub use crate::text::{TypedCommand, typed_command};
pub use intent::{Intent, Stage};
pub use plan::resolve;
pub use plan::{Call, Plan, Step};
pub use recognise::intent;
pub use render::explain;
pub use routes::{Progress, next_step};

/// What routing decided for the current request, and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteInfo {
    pub stage: Stage,
    /// The intent's name (`metric`, `logs`, …), `llm` or `unmatched`.
    pub route: &'static str,
    pub target: Option<String>,
    /// Why: the pattern, parse or keywords that matched, or why the model
    /// got the request.
    pub reason: String,
    /// Recognising and planning, not running the calls.
    pub elapsed: Duration,
    /// Answered with a refusal instead of being carried out.
    pub declined: Option<Declined>,
}

/// A request the router answered with a refusal: how it counts for whoever
/// asked (`warden ask`'s exit code, the `error` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declined {
    /// A change that cannot or may not be made: a refused write.
    Write,
    /// A read whose target does not resolve (an unknown machine or name):
    /// the answer rests on a failure.
    Unresolved,
}

/// Route a request without running anything (`warden explain`, `--verbose`).
pub fn route(
    inventory: &dyn Inventory,
    text: &str,
    model_available: bool,
) -> (RouteInfo, Option<Plan>) {
    let started = Instant::now();
    let decision = decide::decide(&inventory.snapshot(), text, model_available);
    let info = RouteInfo {
        stage: decision.stage,
        route: decision.route,
        target: decision.plan.as_ref().and_then(Plan::target),
        reason: decision.reason,
        elapsed: started.elapsed(),
        declined: decision.declined,
    };
    (info, decision.plan)
}

/// A plan being carried out during one user turn.
struct Active {
    progress: Progress,
    pending: Vec<String>,
    answer: Option<String>,
}

enum TurnState {
    Idle,
    Routing(Box<Active>),
    Delegating,
}

/// The router as a provider, with an optional model for what it cannot route.
pub struct Router {
    inventory: Arc<dyn Inventory>,
    fallback: Option<Box<dyn Provider + Send>>,
    users_seen: usize,
    state: TurnState,
    last_route: Option<RouteInfo>,
    next_call: usize,
}

impl Router {
    pub fn new(inventory: Arc<dyn Inventory>, fallback: Option<Box<dyn Provider + Send>>) -> Self {
        Router {
            inventory,
            fallback,
            users_seen: 0,
            state: TurnState::Idle,
            last_route: None,
            next_call: 0,
        }
    }

    /// How the latest request was routed.
    pub fn last_route(&self) -> Option<&RouteInfo> {
        self.last_route.as_ref()
    }

    /// Whether the latest request was answered with a refusal: at routing,
    /// or by a route that found its change could not be made.
    pub fn declined(&self) -> Option<Declined> {
        let routed = self.last_route.as_ref().and_then(|r| r.declined);
        let found = match &self.state {
            TurnState::Routing(active) if active.progress.declined() => Some(Declined::Write),
            TurnState::Routing(_) | TurnState::Idle | TurnState::Delegating => None,
        };
        routed.or(found)
    }

    pub fn has_model(&self) -> bool {
        self.fallback.is_some()
    }

    /// Provider and model behind the router, if one is configured.
    pub fn model_identity(&self) -> Option<(&str, &str)> {
        self.fallback.as_ref().map(|m| m.identity())
    }

    fn start_turn(&mut self, text: &str) {
        let (info, plan) = route(self.inventory.as_ref(), text, self.fallback.is_some());
        self.state = match plan {
            Some(plan) => TurnState::Routing(Box::new(Active {
                progress: Progress::new(plan),
                pending: Vec::new(),
                answer: None,
            })),
            None => TurnState::Delegating,
        };
        self.last_route = Some(info);
    }
}

impl Provider for Router {
    fn complete<'a>(
        &'a mut self,
        request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        if let Some(routed) = self.complete_routed(request, on_delta) {
            return Box::pin(std::future::ready(routed));
        }
        match self.fallback.as_mut() {
            Some(model) => model.complete(request, on_delta),
            None => Box::pin(std::future::ready(Err(ProviderError::Config(
                "no model is configured".into(),
            )))),
        }
    }

    fn identity(&self) -> (&str, &str) {
        match (&self.state, &self.fallback) {
            (TurnState::Delegating, Some(model)) => model.identity(),
            _ => ("router", "deterministic"),
        }
    }

    fn last_text_is_deterministic(&self) -> bool {
        !matches!(self.state, TurnState::Delegating)
    }

    /// Only the model behind the router reads them.
    fn reads_tool_schemas(&self) -> bool {
        self.fallback.is_some()
    }
}

impl Router {
    /// A routed step, or `None` when this request belongs to the model.
    fn complete_routed(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Option<Result<ModelReply, ProviderError>> {
        let users: Vec<&str> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::User { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if users.len() != self.users_seen {
            self.users_seen = users.len();
            self.start_turn(users.last().copied().unwrap_or_default());
        }
        let active = match &mut self.state {
            TurnState::Delegating => return None,
            TurnState::Idle => {
                return Some(Err(ProviderError::Failed("no request to route".into())));
            }
            TurnState::Routing(active) => active,
        };
        let last: Vec<Value> = active
            .pending
            .iter()
            .map(|id| result_of(request.messages, id))
            .collect();
        // Asked again after answering: Gate 2 held the answer. Repeat it;
        // every write route verifies before it answers, so this is rare.
        let step = match &active.answer {
            Some(answer) => Step::Answer(answer.clone()),
            None => active.progress.advance(&last),
        };
        Some(match step {
            Step::Calls(_) if request.offer == ToolOffer::TextOnly => {
                let text = format!(
                    "I stopped before finishing: no more tool calls were allowed in this turn (after {} calls).",
                    active.progress.calls()
                );
                on_delta(Delta::Text(&text));
                active.answer = Some(text.clone());
                Ok(text_reply(text))
            }
            Step::Calls(calls) => {
                let mut tool_calls = Vec::with_capacity(calls.len());
                active.pending.clear();
                for call in calls {
                    self.next_call += 1;
                    let id = format!("route-{}", self.next_call);
                    active.pending.push(id.clone());
                    tool_calls.push(ProposedToolCall::new(id, call.tool, call.arguments));
                }
                Ok(ModelReply {
                    text: None,
                    tool_calls,
                    usage: None,
                })
            }
            Step::Answer(text) | Step::Decline(text) => {
                on_delta(Delta::Text(&text));
                active.pending.clear();
                active.answer = Some(text.clone());
                Ok(text_reply(text))
            }
        })
    }
}

fn text_reply(text: String) -> ModelReply {
    ModelReply {
        text: Some(text),
        tool_calls: Vec::new(),
        usage: None,
    }
}

/// The result the loop recorded for a call id, as JSON (`Null` if none).
fn result_of(messages: &[Message], id: &str) -> Value {
    messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Tool {
                call_id, content, ..
            } if call_id == id => Some(serde_json::from_str(content).unwrap_or(Value::Null)),
            _ => None,
        })
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests;
