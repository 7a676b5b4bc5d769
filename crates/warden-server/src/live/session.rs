//! One live session and the registry of them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Instant;

use warden_core::turn::{TurnError, TurnRunner};
use warden_protocol::views::{SessionState, SessionView, rfc3339};
use warden_protocol::{CancelFlag, ControlLevel, FsmState};

use super::events::{EventLog, Retention};
use crate::auth::secrets::new_id;
use crate::config::cap_level;
use crate::error::ApiError;
use crate::state::{AppState, now_ms};

#[derive(Debug, Clone)]
struct Status {
    state: SessionState,
    /// Who posted the running turn's message.
    by: Option<String>,
}

pub struct LiveSession {
    pub id: String,
    pub created_at_ms: u64,
    title: Mutex<String>,
    level: Mutex<ControlLevel>,
    status: Mutex<Status>,
    fsm: Mutex<FsmState>,
    pub events: EventLog,
    /// The running turn's cancellation (shared with its `Session`).
    pub cancel: CancelFlag,
    /// The conversation and its turn runner: only the running turn holds it.
    pub runner: Arc<tokio::sync::Mutex<TurnRunner>>,
    /// The last turn number handed out.
    turns: AtomicU64,
    /// When a turn last ended (or the session was loaded).
    last_active: Mutex<Instant>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LiveSession {
    pub fn view(&self) -> SessionView {
        SessionView {
            id: self.id.clone(),
            title: lock(&self.title).clone(),
            control_level: self.level(),
            created_at: rfc3339(self.created_at_ms),
            state: lock(&self.status).state,
            fsm_state: lock(&self.fsm).as_str().to_string(),
        }
    }

    pub fn level(&self) -> ControlLevel {
        *lock(&self.level)
    }

    /// Takes effect from the next turn.
    pub fn set_level(&self, level: ControlLevel) {
        *lock(&self.level) = level;
    }

    pub fn set_title_if_empty(&self, text: &str) {
        let mut title = lock(&self.title);
        if title.is_empty() {
            *title = text.chars().take(80).collect();
        }
    }

    pub fn set_fsm(&self, state: FsmState) {
        *lock(&self.fsm) = state;
    }

    pub fn state(&self) -> SessionState {
        lock(&self.status).state
    }

    /// Who posted the running turn's message.
    pub fn turn_author(&self) -> Option<String> {
        lock(&self.status).by.clone()
    }

    /// Idle → running; the new turn's number. 409 while a turn runs.
    pub fn begin_turn(&self, by: &str) -> Result<u64, ApiError> {
        let mut status = lock(&self.status);
        match status.state {
            SessionState::Idle => {
                status.state = SessionState::Running;
                status.by = Some(by.to_string());
                Ok(self.turns.fetch_add(1, Ordering::SeqCst) + 1)
            }
            SessionState::Running | SessionState::WaitingApproval => Err(ApiError::conflict(
                "a turn is running in this session; wait for it or cancel it",
                Some("running"),
            )),
        }
    }

    pub fn set_waiting(&self, waiting: bool) {
        let mut status = lock(&self.status);
        if status.state != SessionState::Idle {
            status.state = if waiting {
                SessionState::WaitingApproval
            } else {
                SessionState::Running
            };
        }
    }

    pub fn end_turn(&self) {
        let mut status = lock(&self.status);
        status.state = SessionState::Idle;
        status.by = None;
        *lock(&self.last_active) = Instant::now();
    }

    /// Idle, nobody streaming, nothing for `ttl`.
    fn evictable(&self, ttl: std::time::Duration) -> bool {
        !self.is_busy()
            && self.events.subscribers() == 0
            && lock(&self.last_active).elapsed() >= ttl
    }

    /// The number of the last turn started.
    pub fn current_turn(&self) -> u64 {
        self.turns.load(Ordering::SeqCst)
    }

    pub fn is_busy(&self) -> bool {
        self.state() != SessionState::Idle
    }
}

/// The live sessions of this process.
#[derive(Default)]
pub struct Sessions {
    map: RwLock<HashMap<String, Arc<LiveSession>>>,
}

impl Sessions {
    pub fn get(&self, id: &str) -> Option<Arc<LiveSession>> {
        self.map
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    pub fn all(&self) -> Vec<Arc<LiveSession>> {
        self.map
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    pub fn len(&self) -> usize {
        self.map
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drop sessions idle for `ttl` from memory; returns how many went.
    pub fn evict_idle(&self, ttl: std::time::Duration) -> usize {
        let mut map = self.map.write().unwrap_or_else(PoisonError::into_inner);
        let before = map.len();
        // Only what nobody else holds (a request, a turn, a stream) goes.
        map.retain(|_, live| Arc::strong_count(live) > 1 || !live.evictable(ttl));
        before - map.len()
    }

    /// Keep the first one in when two requests bring the same session back.
    fn insert(&self, live: LiveSession) -> Arc<LiveSession> {
        let mut map = self.map.write().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(map.entry(live.id.clone()).or_insert_with(|| Arc::new(live)))
    }

    /// A new session, stored at once so that it is listed. Its level is
    /// the one asked for, else the configured `control_level`, capped by
    /// the server's ceiling.
    pub async fn create(
        app: &Arc<AppState>,
        title: Option<String>,
        level: Option<ControlLevel>,
    ) -> Result<Arc<LiveSession>, ApiError> {
        let id = new_id("s-").map_err(|e| ApiError::Unavailable(e.to_string()))?;
        let title: String = title.unwrap_or_default().chars().take(200).collect();
        let now = now_ms();
        app.store
            .create_session(&id, &title, now)
            .map_err(ApiError::store)?;
        let level = cap_level(
            level.unwrap_or(app.world.turn.control_level),
            app.config.max_control_level,
        );
        let live = build(app, id, title, now, level, Loading::New).await?;
        Ok(app.sessions.insert(live))
    }

    /// The live session, or the stored one brought back (history loaded,
    /// FSM and context fresh). `NotFound` when neither exists.
    pub async fn get_or_load(app: &Arc<AppState>, id: &str) -> Result<Arc<LiveSession>, ApiError> {
        if let Some(live) = app.sessions.get(id) {
            return Ok(live);
        }
        let summary = app
            .store
            .session_summary(id)
            .map_err(ApiError::store)?
            .ok_or_else(|| ApiError::NotFound(format!("no session `{id}`")))?;
        let level = cap_level(app.world.turn.control_level, app.config.max_control_level);
        let live = build(
            app,
            summary.id,
            summary.title,
            summary.created_at_ms,
            level,
            Loading::Stored,
        )
        .await?;
        Ok(app.sessions.insert(live))
    }
}

/// Whether a session's history is in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loading {
    New,
    Stored,
}

async fn build(
    app: &Arc<AppState>,
    id: String,
    title: String,
    created_at_ms: u64,
    level: ControlLevel,
    loading: Loading,
) -> Result<LiveSession, ApiError> {
    // Off the async workers: the inventory for the system prompt may be
    // discovered now, and the history read from the store.
    let world = Arc::clone(&app.world);
    let runner_id = id.clone();
    let mut runner = tokio::task::spawn_blocking(move || match loading {
        Loading::New => Ok(world.new_runner(runner_id, level)),
        Loading::Stored => world.resume_runner(runner_id, level),
    })
    .await
    .map_err(|e| ApiError::Unavailable(format!("opening the session failed: {e}")))?
    .map_err(|e| match e {
        TurnError::NoSuchSession(id) => ApiError::NotFound(format!("no session `{id}`")),
        other => ApiError::Unavailable(other.to_string()),
    })?;
    let cancel = CancelFlag::new();
    runner.session.cancel = cancel.clone();
    let fsm = runner.session.fsm.state();
    Ok(LiveSession {
        events: EventLog::new(&id, Retention::default()),
        id,
        created_at_ms,
        title: Mutex::new(title),
        level: Mutex::new(level),
        status: Mutex::new(Status {
            state: SessionState::Idle,
            by: None,
        }),
        fsm: Mutex::new(fsm),
        cancel,
        turns: AtomicU64::new(runner.turns()),
        runner: Arc::new(tokio::sync::Mutex::new(runner)),
        last_active: Mutex::new(Instant::now()),
    })
}

/// A session's stream follows its log; holding the session keeps it
/// loaded while a client follows it.
impl super::events::Replay for LiveSession {
    fn replay_after(&self, after: u64) -> Vec<super::events::StoredEvent> {
        self.events.after(after)
    }

    fn wake(&self) -> tokio::sync::watch::Receiver<u64> {
        self.events.subscribe()
    }

    fn newest(&self) -> u64 {
        self.events.last_seq()
    }
}
