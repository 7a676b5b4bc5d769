//! One turn of a live session, on its own task, through the one turn runner
//! (`warden_core::turn`), as `warden ask` runs it. The HTTP request that
//! starts it returns at once; a client that disconnects from the stream
//! stops nothing.

use std::sync::Arc;

use warden_protocol::StreamEvent;

use super::approvals::ServerApprover;
use super::session::LiveSession;
use super::sink::StreamSink;
use crate::auth::Person;
use crate::error::ApiError;
use crate::state::AppState;

/// Start a turn; returns its number. 409 while another runs, 503 while
/// the server shuts down.
pub fn start_turn(
    app: &Arc<AppState>,
    live: &Arc<LiveSession>,
    text: String,
    by: &Person,
) -> Result<u64, ApiError> {
    if !app.lifecycle.accepting_turns() {
        return Err(ApiError::Unavailable(
            "the server is shutting down; no new turns".to_string(),
        ));
    }
    let turn = live.begin_turn(by.as_str())?;
    // Re-armed here, before the task starts: a cancel that arrives right
    // after the 202 is not lost.
    live.cancel.reset();
    crate::metrics::turn_started();
    let task = tokio::spawn(run(Arc::clone(app), Arc::clone(live), text, by.clone()));
    let app = Arc::clone(app);
    let live = Arc::clone(live);
    tokio::spawn(async move {
        if let Err(error) = task.await {
            // The turn panicked: say so, and free the session.
            tracing::error!(%error, session = %live.id, "turn task failed");
            live.events.push(&StreamEvent::Error {
                code: "INTERNAL".to_string(),
                message: "the turn failed unexpectedly".to_string(),
            });
            live.end_turn();
            live.events.push(&StreamEvent::Done {
                turn,
                final_text: None,
                route: None,
                outcome: None,
            });
        }
        crate::metrics::turn_ended();
        app.lifecycle.turn_ended.notify_waiters();
    });
    Ok(turn)
}

async fn run(app: Arc<AppState>, live: Arc<LiveSession>, text: String, by: Person) {
    let mut runner = Arc::clone(&live.runner).lock_owned().await;
    let level = live.level();
    if runner.level() != level {
        // The system prompt lists the inventory: off the async workers.
        let world = Arc::clone(&app.world);
        runner = tokio::task::spawn_blocking(move || {
            runner.set_level(&world.backends, level);
            runner
        })
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
    }
    let mut sink = StreamSink::new(Arc::clone(&live), Arc::clone(&app.installation));
    let mut approver = ServerApprover {
        app: Arc::clone(&app),
        live: Arc::clone(&live),
        requested_by: by,
    };
    let report = runner
        .run(&app.world.backends, &text, &mut approver, &mut sink)
        .await;
    live.set_title_if_empty(&text);
    // Idle before `done`: a client that reacts to `done` may post at once.
    // The next turn waits for this one's lock, so its events come after.
    live.end_turn();
    live.events.push(&report.done_event());
}
