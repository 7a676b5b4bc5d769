//! Starting and stopping the server: where it may listen, the data
//! directory made private, TLS, the first admin, metrics, the listener,
//! one hyper connection task per client, and the graceful
//! shutdown (no new turns → running turns get a deadline → the rest are
//! cancelled and audited → streams end → connections close).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tower::ServiceExt;
use warden_world::World;

use warden_store::{StoreError, Tightened};

use crate::auth::{
    AccountError, BootstrapAdmin, LoginLimiter, adopt_admin_password_file, bootstrap_admin,
};
use crate::config::{ListenCheck, ServerConfig, TlsMode};
use crate::live::{ApprovalWaiters, Sessions};
use crate::state::{AppState, HumanAction, Lifecycle, Transport, now_ms};
use crate::tls::{TlsError, TlsSetup};

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("creating the first admin: {0}")]
    Account(#[from] AccountError),
    #[error("cannot listen on {addr}: {message}")]
    Bind { addr: SocketAddr, message: String },
    #[error(
        "refusing to serve plain HTTP on {addr}, beyond loopback: passwords, cookies and tokens would cross the network unencrypted. Serve TLS (--tls-self-signed, or --tls-cert and --tls-key), listen on 127.0.0.1 behind a TLS proxy, or accept the risk with --insecure-http"
    )]
    InsecureListen { addr: SocketAddr },
    #[error("making the data directory private: {0}")]
    Private(StoreError),
    #[error("the world was built without agents (WorldBuilder::agents)")]
    NoAgents,
    #[error("{0}")]
    Internal(String),
}

/// A running server.
pub struct Started {
    pub local_addr: SocketAddr,
    /// SHA-256 of the served certificate, under TLS.
    pub tls_fingerprint: Option<String>,
    /// The first admin, when this start created it (show the password once).
    pub bootstrap_admin: Option<BootstrapAdmin>,
    /// What in the data directory this start made private (files an
    /// earlier release left readable by others).
    pub tightened: Vec<Tightened>,
    /// Said at every start (plain HTTP beyond loopback).
    pub warnings: Vec<String>,
    shutdown: ShutdownHandle,
    task: JoinHandle<ShutdownReport>,
}

/// What the graceful shutdown did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShutdownReport {
    /// Turns still running at the deadline, cancelled and audited.
    pub cancelled_turns: usize,
}

/// Starts the graceful shutdown (SIGTERM, SIGINT, tests).
#[derive(Clone)]
pub struct ShutdownHandle(Arc<watch::Sender<bool>>);

impl ShutdownHandle {
    pub fn shutdown(&self) {
        self.0.send_replace(true);
    }
}

impl Started {
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Wait until the server has shut down.
    pub async fn wait(self) -> Result<ShutdownReport, ServerError> {
        self.task
            .await
            .map_err(|e| ServerError::Internal(format!("the server task failed: {e}")))
    }
}

/// How long connections get to finish their last response at shutdown.
const CLOSE_CONNECTIONS: Duration = Duration::from_secs(5);
/// How long cancelled turns get to stop and record what they did.
const CANCELLED_TURNS_STOP: Duration = Duration::from_secs(10);
const TLS_HANDSHAKE: Duration = Duration::from_secs(10);
const HEADER_READ: Duration = Duration::from_secs(30);

/// Start serving `world` (built with agents). Returns once the listener is
/// bound: the server answers `/api/health` from then on.
pub async fn start(config: ServerConfig, world: Arc<World>) -> Result<Started, ServerError> {
    let mut warnings = Vec::new();
    match config.listen_check() {
        ListenCheck::Fine => {}
        ListenCheck::Warn(warning) => {
            tracing::warn!("{warning}");
            warnings.push(warning);
        }
        ListenCheck::Refused => {
            return Err(ServerError::InsecureListen {
                addr: config.listen,
            });
        }
    }
    let tls = match &config.tls {
        TlsMode::Off => None,
        TlsMode::Files { cert, key } => Some(crate::tls::from_files(cert, key)?),
        TlsMode::SelfSigned => Some(crate::tls::self_signed(&config.data_dir)?),
    };
    // No tool output may carry the served key (issue 17).
    if let Some((key, cert)) = crate::tls::files(&config.tls, &config.data_dir) {
        crate::tls::watch_private_key(&world.known_secrets, &key, &cert)?;
    }
    // Whatever made them (an earlier release, a copy, a restore): the
    // directory 0700, every file in it 0600.
    let tightened =
        warden_store::tighten_data_dir(&config.data_dir).map_err(ServerError::Private)?;
    for change in &tightened {
        tracing::warn!(%change, "made private");
    }
    // An earlier release's first admin who never changed the password:
    // it is a one-time password from now on.
    if adopt_admin_password_file(&world.store, &config.data_dir)? {
        tracing::warn!(
            "the first admin's password is still the generated one: the next login with it must set a new one"
        );
    }
    let metrics = match crate::metrics::install() {
        Ok(handle) => {
            crate::metrics::spawn_upkeep(handle.clone());
            Some(handle)
        }
        Err(error) => {
            tracing::warn!(%error, "serving without metrics");
            None
        }
    };
    let (router, openapi) = crate::routes::build();
    let openapi_json = openapi
        .to_json()
        .map_err(|e| ServerError::Internal(format!("OpenAPI document: {e}")))?;
    let agents = world.agents.clone().ok_or(ServerError::NoAgents)?;
    let app = Arc::new(AppState {
        transport: if tls.is_some() {
            Transport::Tls
        } else {
            Transport::Plain
        },
        config,
        store: Arc::clone(&world.store),
        world,
        agents,
        sessions: Sessions::default(),
        installation: Arc::default(),
        waiters: ApprovalWaiters::default(),
        limiter: LoginLimiter::default(),
        metrics,
        lifecycle: Lifecycle::default(),
        started: Instant::now(),
        openapi_json: Arc::from(openapi_json),
    });
    let listener = TcpListener::bind(app.config.listen)
        .await
        .map_err(|e| ServerError::Bind {
            addr: app.config.listen,
            message: e.to_string(),
        })?;
    let local_addr = listener
        .local_addr()
        .map_err(|e| ServerError::Internal(e.to_string()))?;
    let service = crate::routes::app(router, Arc::clone(&app));
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let tls_fingerprint = tls.as_ref().map(|t| t.fingerprint.clone());
    spawn_eviction(Arc::clone(&app));
    tokio::spawn(crate::live::installation::watch_inventory(
        Arc::clone(&app.installation),
        Arc::clone(&app.world.backends.inventory),
        app.lifecycle.closing(),
    ));
    let admin_store = Arc::clone(&app.store);
    let known_secrets = Arc::clone(&app.world.known_secrets);
    let data_dir = app.config.data_dir.clone();
    let task = tokio::spawn(serve(app, listener, service, tls, shutdown_rx));
    // After the listener is up: health answers while the first admin's
    // password is hashed (argon2id takes a while on purpose).
    let bootstrap =
        tokio::task::spawn_blocking(move || bootstrap_admin(&admin_store, &data_dir, now_ms()))
            .await
            .map_err(|e| ServerError::Internal(e.to_string()))??;
    if let Some(admin) = &bootstrap {
        let watched = known_secrets
            .update(|known| known.add("generated admin password", admin.password.as_bytes()));
        if let Err(error) = watched {
            tracing::warn!(%error, "the generated admin password is not watched for in tool output");
        }
    }
    Ok(Started {
        local_addr,
        tls_fingerprint,
        bootstrap_admin: bootstrap,
        tightened,
        warnings,
        shutdown: ShutdownHandle(Arc::new(shutdown_tx)),
        task,
    })
}

async fn serve(
    app: Arc<AppState>,
    listener: TcpListener,
    service: axum::Router,
    tls: Option<TlsSetup>,
    mut shutdown: watch::Receiver<bool>,
) -> ShutdownReport {
    let acceptor = tls.map(|t| tokio_rustls::TlsAcceptor::from(t.config));
    let (close_tx, close_rx) = watch::channel(false);
    // Every connection task holds a clone; the count says how many live.
    let connections = Arc::new(());
    let mut draining: Option<std::pin::Pin<Box<dyn Future<Output = ShutdownReport> + Send>>> = None;
    let report = loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (tcp, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // Out of file descriptors and the like: breathe, go on.
                        tracing::warn!(%error, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = tcp.set_nodelay(true);
                let service = service.clone();
                let acceptor = acceptor.clone();
                let close = close_rx.clone();
                let token = Arc::clone(&connections);
                tokio::spawn(async move {
                    let _token = token;
                    match acceptor {
                        None => connection(tcp, peer, service, close).await,
                        Some(acceptor) => {
                            match tokio::time::timeout(TLS_HANDSHAKE, acceptor.accept(tcp)).await {
                                Ok(Ok(stream)) => connection(stream, peer, service, close).await,
                                Ok(Err(error)) => tracing::debug!(%error, %peer, "TLS handshake failed"),
                                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                            }
                        }
                    }
                });
            }
            changed = shutdown.changed(), if draining.is_none() => {
                if changed.is_err() || *shutdown.borrow() {
                    // Accepting goes on while turns drain: approvals can
                    // still be decided, by new clients too.
                    draining = Some(Box::pin(drain(Arc::clone(&app))));
                }
            }
            report = async {
                match draining.as_mut() {
                    Some(drain) => drain.await,
                    None => std::future::pending().await,
                }
            } => break report,
        }
    };
    drop(listener);
    close_tx.send_replace(true);
    let deadline = Instant::now() + CLOSE_CONNECTIONS;
    while Arc::strong_count(&connections) > 1 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    report
}

async fn connection<S>(
    stream: S,
    peer: SocketAddr,
    service: axum::Router,
    mut close: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let handler = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        service.clone().oneshot(request.map(axum::body::Body::new))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ);
    let conn = builder
        .serve_connection(TokioIo::new(stream), handler)
        .with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, %peer, "connection ended with an error");
            }
        }
        () = closing_of(&mut close) => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// Idle sessions leave memory now and then.
fn spawn_eviction(app: Arc<AppState>) {
    let every =
        (app.config.session_idle_ttl / 4).clamp(Duration::from_millis(50), Duration::from_secs(60));
    tokio::spawn(async move {
        let mut closing = app.lifecycle.closing();
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                () = closing_of(&mut closing) => return,
            }
            let gone = app.sessions.evict_idle(app.config.session_idle_ttl);
            if gone > 0 {
                tracing::debug!(gone, "idle sessions left memory");
                crate::metrics::sessions(&app);
            }
        }
    });
}

/// Completes when `close` turns true (or its sender is gone).
async fn closing_of(close: &mut watch::Receiver<bool>) {
    while !*close.borrow_and_update() {
        if close.changed().await.is_err() {
            return;
        }
    }
}

/// No new turns; running ones get the grace period, then are cancelled
/// (and audited); then every event stream ends.
async fn drain(app: Arc<AppState>) -> ShutdownReport {
    app.lifecycle.drain();
    let deadline = Instant::now() + app.config.shutdown_grace;
    wait_for_turns(&app, deadline).await;
    let busy: Vec<_> = app
        .sessions
        .all()
        .into_iter()
        .filter(|l| l.is_busy())
        .collect();
    for live in &busy {
        live.cancel.cancel();
        let detail = format!(
            "turn {} cancelled: the server is shutting down",
            live.current_turn()
        );
        app.audit_human(HumanAction {
            session_id: &live.id,
            actor: "system",
            tool: "turn",
            target: None,
            decision: "cancelled",
            detail: &detail,
        });
    }
    if !busy.is_empty() {
        wait_for_turns(&app, Instant::now() + CANCELLED_TURNS_STOP).await;
    }
    app.lifecycle.close();
    app.agents.close_all();
    ShutdownReport {
        cancelled_turns: busy.len(),
    }
}

async fn wait_for_turns(app: &AppState, deadline: Instant) {
    loop {
        let notified = app.lifecycle.turn_ended.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if !app.sessions.all().iter().any(|l| l.is_busy()) {
            return;
        }
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        // Re-checked at least every 100 ms, in case a wake-up is missed.
        let _ =
            tokio::time::timeout((deadline - now).min(Duration::from_millis(100)), notified).await;
    }
}
