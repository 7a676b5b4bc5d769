//! The one turn runner. Every front end runs a user message through
//! [`TurnRunner::run`]: `warden ask` and `warden chat` on this machine, the
//! server's sessions (which `ask --server` and `chat --server` drive), and
//! Patrol's triage. It owns one conversation (FSM, ResolvedContext and
//! knowledge in memory; messages in the store), takes the effective
//! [`TurnConfig`], runs the agentic loop behind the router, and reports in
//! the one event vocabulary of `warden-protocol` through a [`TurnSink`]:
//!
//! `turn_start` → content, tool calls, approvals, FSM moves, usage → a
//! closing `error` when the turn failed → the turn is stored → the caller
//! sends [`TurnReport::done_event`] (after its own bookkeeping, e.g. the
//! server marks the session idle first).
//!
//! - [`config`]: [`TurnConfig`], what a turn is configured with;
//! - `stream`: the loop's events as stream events ([`TurnSink`]);
//! - `outcome`: how a turn went ([`Verdict`], the `done` event's outcome,
//!   the closing `error`).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use warden_llm::{Message, Provider};
use warden_protocol::{ControlLevel, RouteSummary, StreamEvent, TurnOutcome};

use crate::agent::prompt::system_prompt;
use crate::agent::{Approver, Conversation, TurnContext, TurnResult, run_turn};
use crate::executor::{Moment, Session};
use crate::ports::{Backends, ConversationStoreError, Inventory, TurnRecord};
use crate::router::{Declined, RouteInfo, Router};

pub mod config;
mod outcome;
mod stream;

pub use config::TurnConfig;
pub use outcome::{Verdict, closing_error, outcome_of, verdict};
pub use stream::TurnSink;

/// Why a conversation could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error("no stored session `{0}` (see `warden sessions`)")]
    NoSuchSession(String),
    #[error("session {session}: stored message {index} is corrupt: {reason}")]
    CorruptMessage {
        session: String,
        index: usize,
        reason: String,
    },
    #[error(transparent)]
    Store(#[from] ConversationStoreError),
}

/// What one turn produced.
#[derive(Debug)]
pub struct TurnReport {
    pub turn: u64,
    pub final_text: Option<String>,
    /// How the loop ended and what it left pending or refused.
    pub result: TurnResult,
    pub outcome: TurnOutcome,
    pub route: Option<RouteInfo>,
    pub elapsed: Duration,
    /// Whether the turn's messages and usage were stored.
    pub stored: Result<(), ConversationStoreError>,
}

impl TurnReport {
    pub fn route_summary(&self) -> Option<RouteSummary> {
        self.route.as_ref().map(route_summary)
    }

    /// The `done` event that closes the turn.
    pub fn done_event(&self) -> StreamEvent {
        StreamEvent::Done {
            turn: self.turn,
            final_text: self.final_text.clone(),
            route: self.route_summary(),
            outcome: Some(self.outcome.clone()),
        }
    }

    pub fn verdict(&self) -> Verdict {
        verdict(&self.outcome, self.route_summary().as_ref())
    }
}

/// A request the router answered with a refusal counts as one: a change
/// it would not or could not make is a refused write, a target that does
/// not resolve a failure the answer rests on.
fn with_refusals(mut result: TurnResult, declined: Option<Declined>) -> TurnResult {
    match declined {
        Some(Declined::Write) => result.refused_writes = result.refused_writes.max(1),
        Some(Declined::Unresolved) => result.rests_on_failure = true,
        None => {}
    }
    result
}

fn route_summary(info: &RouteInfo) -> RouteSummary {
    RouteSummary {
        stage: info.stage.as_str().to_string(),
        route: info.route.to_string(),
        target: info.target.clone(),
        routing_us: u64::try_from(info.elapsed.as_micros()).unwrap_or(u64::MAX),
    }
}

/// Milliseconds since the Unix epoch.
pub fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// The names the system prompt lists (the first twenty resources).
pub fn prompt_names(inventory: &dyn Inventory) -> Vec<String> {
    inventory
        .snapshot()
        .all()
        .iter()
        .take(20)
        .map(|r| format!("{} ({})", r.name, r.id))
        .collect()
}

/// One conversation and the runner of its turns.
pub struct TurnRunner {
    id: String,
    /// Session truth, in memory only (FSM, ResolvedContext, knowledge).
    pub session: Session,
    conversation: Conversation,
    router: Router,
    config: Arc<TurnConfig>,
    level: ControlLevel,
    /// Messages already in the store.
    persisted: usize,
    started: Instant,
    /// User turns so far, stored ones included.
    turns: u64,
}

impl TurnRunner {
    /// A new conversation at `level`; it is stored with its first turn.
    /// `model` is what the router hands what it cannot route (`None`:
    /// the router alone).
    pub fn new(
        backends: &Backends,
        config: Arc<TurnConfig>,
        id: String,
        level: ControlLevel,
        model: Option<Box<dyn Provider + Send>>,
    ) -> Self {
        TurnRunner::with_history(backends, config, id, level, model, Vec::new())
    }

    /// A stored conversation, its history loaded; FSM and context start
    /// fresh (a resumed session discovers again).
    pub fn resume(
        backends: &Backends,
        config: Arc<TurnConfig>,
        id: String,
        level: ControlLevel,
        model: Option<Box<dyn Provider + Send>>,
    ) -> Result<Self, TurnError> {
        let store = &backends.conversations;
        if !store.exists(&id)? {
            return Err(TurnError::NoSuchSession(id));
        }
        let mut history = Vec::new();
        for (index, json) in store.messages(&id)?.iter().enumerate() {
            let message: Message =
                serde_json::from_str(json).map_err(|e| TurnError::CorruptMessage {
                    session: id.clone(),
                    index,
                    reason: e.to_string(),
                })?;
            history.push(message);
        }
        Ok(TurnRunner::with_history(
            backends, config, id, level, model, history,
        ))
    }

    fn with_history(
        backends: &Backends,
        config: Arc<TurnConfig>,
        id: String,
        level: ControlLevel,
        model: Option<Box<dyn Provider + Send>>,
        history: Vec<Message>,
    ) -> Self {
        let turns = history
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .count();
        let mut conversation = Conversation {
            messages: history,
            ..Conversation::default()
        };
        let mut persisted = conversation.messages.len();
        // The system prompt describes this run (level, resources), so a
        // resumed conversation gets a fresh one in memory.
        let prompt = Message::system(system_prompt(
            level,
            &prompt_names(backends.inventory.as_ref()),
        ));
        match conversation.messages.first_mut() {
            Some(first @ Message::System { .. }) => *first = prompt,
            _ => {
                conversation.messages.insert(0, prompt);
                if persisted > 0 {
                    // Not stored: the stored history stays as it was.
                    persisted += 1;
                }
            }
        }
        conversation.usage.prices = config.prices.clone();
        TurnRunner {
            session: Session::new(id.clone()),
            id,
            conversation,
            router: Router::new(Arc::clone(&backends.inventory), model),
            config,
            level,
            persisted,
            started: Instant::now(),
            turns: u64::try_from(turns).unwrap_or(u64::MAX),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn level(&self) -> ControlLevel {
        self.level
    }

    /// User turns so far (the next one is this plus one).
    pub fn turns(&self) -> u64 {
        self.turns
    }

    /// Change the control level from the next call on; the system prompt
    /// says the new one.
    pub fn set_level(&mut self, backends: &Backends, level: ControlLevel) {
        if level == self.level {
            return;
        }
        self.level = level;
        self.refresh_prompt(backends);
    }

    /// The system prompt as of now: the level and the resources the live
    /// inventory holds (an agent that enrolled since is named), rewritten
    /// only when it changed.
    fn refresh_prompt(&mut self, backends: &Backends) {
        let names = prompt_names(backends.inventory.as_ref());
        let prompt = system_prompt(self.level, &names);
        if let Some(first @ Message::System { .. }) = self.conversation.messages.first_mut() {
            if !matches!(first, Message::System { text } if *text == prompt) {
                *first = Message::system(prompt);
            }
        }
    }

    /// Forget what this session discovered (FSM and context together).
    pub fn reset(&mut self) {
        self.session.reset();
    }

    /// Provider and model behind the router, if one is configured.
    pub fn model_identity(&self) -> Option<(&str, &str)> {
        self.router.model_identity()
    }

    /// Run one user message. The turn is cancelled through
    /// `self.session.cancel`, which the caller re-arms before a turn (so a
    /// cancel that arrives before the turn starts is not lost).
    pub async fn run(
        &mut self,
        backends: &Backends,
        text: &str,
        approver: &mut dyn Approver,
        sink: &mut dyn TurnSink,
    ) -> TurnReport {
        let turn_started = Instant::now();
        self.refresh_prompt(backends);
        self.turns += 1;
        let turn = self.turns;
        sink.event(StreamEvent::TurnStart {
            turn,
            text: text.to_string(),
        });
        let tokens_used = match backends.conversations.tokens_used(&self.id) {
            Ok(tokens) => tokens,
            Err(error) => {
                // A budget that cannot be read is not a budget to ignore.
                tracing::warn!(%error, session = %self.id, "cannot read the tokens spent");
                self.config.budget_tokens.unwrap_or(0)
            }
        };
        let limits = self.config.limits(tokens_used);
        let executor = backends.executor(self.config.settings(self.level));
        let started = self.started;
        let clock = move || Moment {
            session: started.elapsed(),
            wall_ms: wall_ms(),
        };
        let session_id = self.id.clone();
        let adapter = std::sync::Mutex::new(stream::StreamAdapter::new(
            sink,
            backends.approvals.as_ref(),
            &session_id,
            wall_ms,
        ));
        let result = {
            // Deltas and loop events reach the sink through one lock, in
            // the order they happen.
            let mut events = stream::Shared(&adapter);
            let mut on_delta = |delta: warden_llm::Delta<'_>| stream::lock(&adapter).delta(delta);
            let mut ctx = TurnContext {
                executor: &executor,
                session: &mut self.session,
                provider: &mut self.router,
                approver,
                clock: &clock,
                events: &mut events,
                limits,
                on_delta: Some(&mut on_delta),
            };
            run_turn(&mut ctx, &mut self.conversation, text).await
        };
        let result = with_refusals(result, self.router.declined());
        let mut adapter = adapter
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        adapter.flush();
        let usage = std::mem::take(&mut adapter.usage);
        let route = self.router.last_route().cloned();
        let summary = route.as_ref().map(route_summary);
        if let Some((code, message)) = closing_error(&result, summary.as_ref()) {
            adapter.sink().event(StreamEvent::Error { code, message });
        }
        let stored = self.persist(backends, text, usage).await;
        if let Err(error) = &stored {
            tracing::error!(%error, session = %self.id, "cannot store the conversation");
            adapter.sink().event(StreamEvent::Error {
                code: "UNAVAILABLE".to_string(),
                message: format!("the conversation could not be stored: {error}"),
            });
        }
        TurnReport {
            turn,
            final_text: result.final_text.clone(),
            outcome: outcome_of(&result),
            result,
            route,
            elapsed: turn_started.elapsed(),
            stored,
        }
    }

    /// Store the messages added since the last turn and the turn's usage,
    /// together. Each stored message is capped like a model reply.
    async fn persist(
        &mut self,
        backends: &Backends,
        title: &str,
        usage: Vec<crate::ports::UsageRecord>,
    ) -> Result<(), ConversationStoreError> {
        let cap = self.config.max_reply_bytes;
        let messages = self.conversation.messages[self.persisted..]
            .iter()
            .map(|m| serde_json::to_string(&m.capped(cap)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ConversationStoreError(e.to_string()))?;
        backends
            .conversations
            .save_turn(TurnRecord {
                session_id: self.id.clone(),
                messages,
                title: title.to_string(),
                usage,
                at_ms: wall_ms(),
            })
            .await?;
        self.persisted = self.conversation.messages.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
