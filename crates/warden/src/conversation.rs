//! One conversation: session state in memory (FSM, ResolvedContext), its
//! history in the store (so `--session ID` resumes it), usage recorded per
//! model call, and the turn runner shared by `chat` and `ask`.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use warden_core::agent::prompt::system_prompt;
use warden_core::agent::provider::{Delta, Message};
use warden_core::agent::usage::Budget;
use warden_core::agent::{
    Approver, Conversation, EventSink, LoopEvent, LoopLimits, TurnContext, TurnResult, run_turn,
};
use warden_core::executor::{Executor, Moment, Session};
use warden_core::ports::{AuditError, AuditRecord, AuditSink, Inventory};
use warden_core::router::{RouteInfo, Router};
use warden_protocol::{ControlLevel, ToolResponse};
use warden_store::UsageRow;

use crate::storage::now_ms;
use crate::world::World;

pub struct Chat<'w> {
    world: &'w World,
    executor: Executor<'w>,
    router: Router<'w>,
    pub session: Session,
    conversation: Conversation,
    pub session_id: String,
    /// Messages already in the store.
    persisted: usize,
    started: Instant,
}

/// What one turn produced.
pub struct TurnOutcome {
    pub final_text: Option<String>,
    /// How the loop ended, what it left pending or refused.
    pub result: TurnResult,
    pub route: Option<RouteInfo>,
    pub elapsed: std::time::Duration,
}

impl TurnOutcome {
    /// `warden ask`'s reading of this turn.
    pub fn exit(&self) -> crate::exit_codes::AskExit {
        crate::exit_codes::classify(&self.result, self.route.as_ref().map(|r| r.stage))
    }
}

fn new_session_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "s-{}-{:04x}",
        now_ms(),
        (nanos as u64 ^ u64::from(std::process::id())) & 0xffff
    )
}

impl<'w> Chat<'w> {
    /// A new conversation, or the stored one with `resume`.
    pub fn open(world: &'w World, resume: Option<&str>) -> Result<Chat<'w>> {
        let router = world.router();
        let mut conversation = Conversation::default();
        let session_id = match resume {
            Some(id) => {
                if !world.store.session_exists(id)? {
                    bail!("no stored session `{id}` (see `warden sessions`)");
                }
                for (i, json) in world.store.messages(id)?.iter().enumerate() {
                    let message: Message = serde_json::from_str(json)
                        .with_context(|| format!("session {id}: stored message {i} is corrupt"))?;
                    conversation.messages.push(message);
                }
                id.to_string()
            }
            None => new_session_id(),
        };
        let mut persisted = conversation.messages.len();
        // The system prompt describes this run (level, resources), so a
        // resumed conversation gets a fresh one in memory.
        let names: Vec<String> = world
            .inventory
            .snapshot()
            .all()
            .iter()
            .take(20)
            .map(|r| format!("{} ({})", r.name, r.id))
            .collect();
        let prompt = Message::system(system_prompt(world.config.control_level.value, &names));
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
        for (model, price) in &world.config.pricing {
            for provider in ["openai", "ollama", "anthropic", "gemini"] {
                conversation
                    .usage
                    .prices
                    .set(provider, model, price.input, price.output);
            }
        }
        Ok(Chat {
            world,
            executor: world.executor(),
            router,
            session: Session {
                cancel: world.cancel.clone(),
                ..Session::new(session_id.clone())
            },
            conversation,
            session_id,
            persisted,
            started: Instant::now(),
        })
    }

    pub fn model_identity(&self) -> Option<(String, String)> {
        self.router
            .model_identity()
            .map(|(p, m)| (p.to_string(), m.to_string()))
    }

    pub fn level(&self) -> ControlLevel {
        self.executor.settings().control_level
    }

    /// Change the control level; audited as the local operator's decision,
    /// and not changed when it cannot be audited.
    pub fn set_level(&mut self, level: ControlLevel) -> Result<(), AuditError> {
        let before = self.level();
        self.world.audit.append(AuditRecord {
            session_id: self.session_id.clone(),
            actor: crate::storage::local_operator(),
            tool: "session".into(),
            target: None,
            decision: "level_changed".into(),
            code: None,
            command: format!("/level {level}"),
            reason: Some(format!("from {before} to {level}")),
            duration_ms: 0,
        })?;
        self.executor.set_control_level(level);
        Ok(())
    }

    /// Forget what this session discovered (FSM and context together).
    pub fn reset(&mut self) {
        self.session.reset();
    }

    /// Run one user message through the loop.
    pub async fn turn(
        &mut self,
        text: &str,
        display: &mut dyn EventSink,
        approver: &mut dyn Approver,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<TurnOutcome> {
        let turn_started = Instant::now();
        self.world.cancel.reset();
        let budget = match self.world.config.budget_tokens.value {
            Some(max) => {
                let used = self.world.store.session_tokens(&self.session_id)?;
                Budget {
                    max_tokens: Some(max.saturating_sub(used)),
                }
            }
            None => Budget::default(),
        };
        let limits = LoopLimits {
            budget,
            max_model_calls: self.world.config.max_model_calls.value,
            ..LoopLimits::default()
        };
        let started = self.started;
        let clock = move || Moment {
            session: started.elapsed(),
            wall_ms: now_ms(),
        };
        let mut sink = Recording {
            display,
            store: &self.world.store,
            session_id: &self.session_id,
            error: None,
        };
        let result = {
            let mut ctx = TurnContext {
                executor: &self.executor,
                session: &mut self.session,
                provider: &mut self.router,
                approver,
                clock: &clock,
                events: &mut sink,
                limits,
                on_delta: Some(on_delta),
            };
            run_turn(&mut ctx, &mut self.conversation, text).await
        };
        let record_error = sink.error.take();
        self.persist(text)?;
        if let Some(error) = record_error {
            return Err(error.context("recording usage"));
        }
        Ok(TurnOutcome {
            final_text: result.final_text.clone(),
            result,
            route: self.router.last_route().cloned(),
            elapsed: turn_started.elapsed(),
        })
    }

    /// Store the messages added since the last turn, in one transaction.
    fn persist(&mut self, title: &str) -> Result<()> {
        // Each stored message is capped like a model reply.
        let cap = self.world.config.max_reply_bytes.value;
        let new: Vec<String> = self.conversation.messages[self.persisted..]
            .iter()
            .map(|m| serde_json::to_string(&m.capped(cap)))
            .collect::<Result<_, _>>()?;
        self.world
            .store
            .append_messages(&self.session_id, &new, Some(title), now_ms())
            .context("saving the conversation")?;
        self.persisted = self.conversation.messages.len();
        Ok(())
    }
}

/// Forwards events to the display and records usage in the store.
struct Recording<'a> {
    display: &'a mut dyn EventSink,
    store: &'a warden_store::Store,
    session_id: &'a str,
    error: Option<anyhow::Error>,
}

impl EventSink for Recording<'_> {
    fn emit(&mut self, event: LoopEvent) {
        if let LoopEvent::Usage {
            provider,
            model,
            input_tokens,
            output_tokens,
            cost_usd,
        } = &event
        {
            let row = UsageRow {
                session_id: self.session_id.to_string(),
                provider: provider.clone(),
                model: model.clone(),
                input_tokens: *input_tokens,
                output_tokens: *output_tokens,
                cost_usd: *cost_usd,
                at_ms: now_ms(),
            };
            if let Err(error) = self.store.record_usage(&row) {
                self.error.get_or_insert(error.into());
            }
        }
        self.display.emit(event);
    }

    fn tool_output(
        &mut self,
        index: usize,
        response: &ToolResponse,
        model_sees: &serde_json::Value,
    ) {
        self.display.tool_output(index, response, model_sees);
    }
}
