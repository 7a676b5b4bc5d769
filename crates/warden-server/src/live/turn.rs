//! One turn of a live session, on its own task: the same loop, executor,
//! FSM and router as the CLI (`warden_core::agent::run_turn`). The HTTP
//! request that starts it returns at once; a client that disconnects from
//! the stream stops nothing.

use std::sync::Arc;

use warden_core::agent::prompt::system_prompt;
use warden_core::agent::provider::{Delta, Message};
use warden_core::agent::usage::Budget;
use warden_core::agent::{LoopLimits, TurnContext, run_turn};
use warden_core::executor::Moment;
use warden_protocol::RouteSummary;
use warden_store::UsageRow;

use super::approvals::ServerApprover;
use super::events::SessionEvent;
use super::session::{LiveSession, prompt_names};
use super::sink::{StreamSink, push_delta};
use crate::error::ApiError;
use crate::state::{AppState, now_ms};

/// Start a turn; returns its number. 409 while another runs, 503 while
/// the server shuts down.
pub fn start_turn(
    app: &Arc<AppState>,
    live: &Arc<LiveSession>,
    text: String,
    by: &str,
) -> Result<usize, ApiError> {
    if !app.lifecycle.accepting_turns() {
        return Err(ApiError::Unavailable(
            "the server is shutting down; no new turns".to_string(),
        ));
    }
    let turn = live.begin_turn(by)?;
    // Re-armed here, before the task starts: a cancel that arrives right
    // after the 202 is not lost.
    live.cancel.reset();
    crate::metrics::turn_started();
    let task = tokio::spawn(run(
        Arc::clone(app),
        Arc::clone(live),
        text,
        turn,
        by.to_string(),
    ));
    let app = Arc::clone(app);
    let live = Arc::clone(live);
    tokio::spawn(async move {
        if let Err(error) = task.await {
            // The turn panicked: say so, and free the session.
            tracing::error!(%error, session = %live.id, "turn task failed");
            live.events.push(&SessionEvent::Error {
                code: "INTERNAL".to_string(),
                message: "the turn failed unexpectedly".to_string(),
            });
            live.events.push(&SessionEvent::Done {
                turn,
                final_text: None,
                route: None,
            });
            live.end_turn();
        }
        crate::metrics::turn_ended();
        app.lifecycle.turn_ended.notify_waiters();
    });
    Ok(turn)
}

async fn run(app: Arc<AppState>, live: Arc<LiveSession>, text: String, turn: usize, by: String) {
    let mut core = Arc::clone(&live.core).lock_owned().await;
    let core = &mut *core;
    let level = live.level();
    if core.executor.settings().control_level != level {
        core.executor.set_control_level(level);
        let names_app = Arc::clone(&app);
        let names = tokio::task::spawn_blocking(move || prompt_names(&names_app))
            .await
            .unwrap_or_default();
        if let Some(first @ Message::System { .. }) = core.conversation.messages.first_mut() {
            *first = Message::system(system_prompt(level, &names));
        }
    }
    live.events.push(&SessionEvent::TurnStart {
        turn,
        text: text.clone(),
    });
    let budget = match app.config.budget_tokens {
        Some(max) => {
            let used = app.store.session_tokens(&live.id).unwrap_or(0);
            Budget {
                max_tokens: Some(max.saturating_sub(used)),
            }
        }
        None => Budget::default(),
    };
    let limits = LoopLimits {
        budget,
        ..LoopLimits::default()
    };
    let started = core.started;
    let clock = move || Moment {
        session: started.elapsed(),
        wall_ms: now_ms(),
    };
    let mut sink = StreamSink::new(Arc::clone(&app), Arc::clone(&live));
    let mut approver = ServerApprover {
        app: Arc::clone(&app),
        live: Arc::clone(&live),
        requested_by: by,
    };
    let delta_live = Arc::clone(&live);
    let mut on_delta = move |delta: Delta<'_>| push_delta(&delta_live, delta);
    let result = {
        let mut ctx = TurnContext {
            executor: &core.executor,
            session: &mut core.session,
            provider: &mut core.router,
            approver: &mut approver,
            clock: &clock,
            events: &mut sink,
            limits,
            on_delta: Some(&mut on_delta),
        };
        run_turn(&mut ctx, &mut core.conversation, &text).await
    };
    sink.flush();
    if live.cancel.is_cancelled() {
        live.events.push(&SessionEvent::Error {
            code: "CANCELLED".to_string(),
            message: "the turn was cancelled".to_string(),
        });
    }
    live.set_title_if_empty(&text);
    let usage = std::mem::take(&mut sink.usage);
    if let Err(error) = persist(&app, &live, core, &text, usage).await {
        tracing::error!(%error, session = %live.id, "cannot store the conversation");
        live.events.push(&SessionEvent::Error {
            code: "UNAVAILABLE".to_string(),
            message: "the conversation could not be stored".to_string(),
        });
    }
    let route = core.router.last_route().map(|r| RouteSummary {
        stage: r.stage.as_str().to_string(),
        route: r.route.to_string(),
        target: r.target.clone(),
        routing_us: u64::try_from(r.elapsed.as_micros()).unwrap_or(u64::MAX),
    });
    // Idle before `done`: a client that reacts to `done` may post at once.
    // The next turn waits for this one's lock, so its events come after.
    live.end_turn();
    live.events.push(&SessionEvent::Done {
        turn,
        final_text: result.final_text,
        route,
    });
}

/// Store the messages added since the last turn, in one transaction, and
/// the turn's usage, on the store writer (a thousand turns ending together
/// must not stall the workers that stream everyone else's tokens).
async fn persist(
    app: &AppState,
    live: &LiveSession,
    core: &mut super::session::Core,
    title: &str,
    usage: Vec<UsageRow>,
) -> Result<(), String> {
    let new: Vec<String> = core.conversation.messages[core.persisted..]
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let (id, title) = (live.id.clone(), title.to_string());
    app.writer
        .write(move |store| {
            store.append_messages(&id, &new, Some(&title), now_ms())?;
            usage.iter().try_for_each(|row| store.record_usage(row))
        })
        .await
        .map_err(|e| e.to_string())?;
    core.persisted = core.conversation.messages.len();
    Ok(())
}
