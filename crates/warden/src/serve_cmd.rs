//! `warden serve`: the control plane on this machine. Builds the server's
//! ports from the local machine (as the CLI does), or from a scenario file
//! with the hidden `--simulate`, runs the server on a multi-threaded
//! runtime, and shuts it down gracefully on SIGTERM or SIGINT.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use warden_protocol::ControlLevel;
use warden_server::{
    FourEyes, ListenCheck, MetricsAccess, PlainHttp, ServerConfig, ServerError, TlsMode,
};
use warden_world::agents::AgentSettings;
use warden_world::config::parse_level_arg;
use warden_world::world::Deciders;
use warden_world::{Config, Overrides, Source, WorldBuilder};

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on. Beyond loopback, serve TLS (or give --insecure-http).
    #[arg(long, default_value = "127.0.0.1:7878")]
    listen: SocketAddr,
    /// Serve plain HTTP on an address beyond loopback (behind a TLS proxy);
    /// every start warns that credentials cross the network unencrypted.
    #[arg(long)]
    insecure_http: bool,
    /// Where the database, TLS material and the first admin's password live
    /// (default: $WARDEN_DATA_DIR, else ~/.local/share/warden).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Serve TLS with this certificate chain (PEM); needs --tls-key.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Serve TLS with a self-signed certificate kept in the data directory;
    /// its SHA-256 fingerprint is printed at start.
    #[arg(long, conflicts_with = "tls_cert")]
    tls_self_signed: bool,
    /// No session may exceed this control level: read_only, controlled or autonomous.
    #[arg(long, value_parser = parse_level_arg, default_value = "controlled")]
    max_control_level: ControlLevel,
    /// Serve /metrics without credentials.
    #[arg(long)]
    metrics_public: bool,
    /// No credential of the person whose message caused a request (their
    /// login, any token they own) may approve it.
    #[arg(long)]
    four_eyes: bool,
    /// How long an approval request waits for a human, in seconds
    /// (overrides the configuration's `approval_ttl_secs`).
    #[arg(long)]
    approval_ttl_secs: Option<u64>,
    /// On SIGTERM, how long running turns may still take, in seconds.
    #[arg(long, default_value_t = 10)]
    shutdown_grace_secs: u64,
    /// How often the server pings each connected agent, in seconds (three
    /// missed pongs close its connection).
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    agent_heartbeat_secs: u64,
    /// Config file for the model, pricing and command limits
    /// (default: $WARDEN_CONFIG, else ~/.config/warden/config.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Use a replay scenario's inventory and host answers instead of this machine.
    #[arg(long, hide = true)]
    simulate: Option<PathBuf>,
}

fn server_config(args: &ServeArgs, data_dir: PathBuf) -> ServerConfig {
    let mut server = ServerConfig::new(data_dir);
    server.listen = args.listen;
    server.tls = match (&args.tls_cert, &args.tls_key, args.tls_self_signed) {
        (Some(cert), Some(key), _) => TlsMode::Files {
            cert: cert.clone(),
            key: key.clone(),
        },
        (_, _, true) => TlsMode::SelfSigned,
        _ => TlsMode::Off,
    };
    server.plain_http = if args.insecure_http {
        PlainHttp::AnyAddress
    } else {
        PlainHttp::LoopbackOnly
    };
    server.max_control_level = args.max_control_level;
    server.metrics = if args.metrics_public {
        MetricsAccess::Public
    } else {
        MetricsAccess::Viewer
    };
    server.four_eyes = if args.four_eyes {
        FourEyes::On
    } else {
        FourEyes::Off
    };
    server.shutdown_grace = Duration::from_secs(args.shutdown_grace_secs);
    server
}

/// How agents are treated: the heartbeat flag, and the same `[exec]`
/// limits as commands on this machine.
fn agent_settings(args: &ServeArgs, config: &Config) -> AgentSettings {
    AgentSettings {
        heartbeat: Duration::from_secs(args.agent_heartbeat_secs),
        command_timeout: config.exec_timeout.value,
        max_output_bytes: u64::try_from(config.exec_max_output.value).unwrap_or(u64::MAX),
    }
}

pub fn run(args: &ServeArgs) -> Result<ExitCode> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .try_init();
    let mut config = Config::load(&Overrides {
        config: args.config.clone(),
        db: None,
        level: None,
    })?;
    if let Some(secs) = args.approval_ttl_secs {
        config.set_approval_ttl(secs, Source::Flag("--approval-ttl-secs"))?;
    }
    let data_dir = warden_world::storage::server_data_dir(args.data_dir.clone())?;
    let server = server_config(args, data_dir.clone());
    // Before anything is opened or created.
    if server.listen_check() == ListenCheck::Refused {
        return Err(ServerError::InsecureListen { addr: args.listen }.into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Commands and model set-up run on the blocking pool; waiting
        // sessions hold no thread, so the pool stays small.
        .max_blocking_threads(64)
        .build()
        .context("starting the async runtime")?;
    let agents = agent_settings(args, &config);
    let mut builder = WorldBuilder::new(config)
        .server_data_dir(data_dir.clone())
        .deciders(Deciders::Named("system".into()))
        .agents(agents)
        .launching(crate::common::this_program_launches());
    for (path, label) in [
        (&args.tls_key, "the server's TLS private key"),
        (&args.tls_cert, "the server's TLS certificate"),
    ] {
        if let Some(path) = path {
            builder = builder.protect(path.clone(), label);
        }
    }
    if let Some(file) = &args.simulate {
        let (inventory, hosts) = crate::serve_world::load(file)?;
        builder = builder.simulated(warden_world::Simulated::new(inventory, hosts));
    }
    let world = Arc::new(
        runtime
            .block_on(builder.build())
            .context("building the world")?,
    );
    for problem in world.problems() {
        eprintln!("warden serve: {problem}");
    }
    // Probed now, so that the start says which mode is in force.
    let confinement = world.confinement().mode().clone();
    // Said with the start report, with what the server itself tightens.
    let opened_tightened = world.store.tightened().to_vec();
    raise_open_files_limit();
    let served = runtime.block_on(async move {
        let inventory = Arc::clone(&world.backends.inventory);
        let started = warden_server::start(server, world).await?;
        // Discover this machine in the background: neither start-up nor
        // the first request waits for it.
        tokio::task::spawn_blocking(move || inventory.snapshot());
        announce(&started, &data_dir, &opened_tightened, &confinement)?;
        let handle = started.shutdown_handle();
        wait_for_signal().await?;
        eprintln!("warden serve: shutting down (running turns get their grace period)");
        tokio::spawn(async {
            // A second signal ends at once.
            if wait_for_signal().await.is_ok() {
                std::process::exit(130);
            }
        });
        handle.shutdown();
        let report = started.wait().await?;
        if report.cancelled_turns > 0 {
            eprintln!(
                "warden serve: {} running turn(s) cancelled and audited",
                report.cancelled_turns
            );
        }
        Ok::<_, anyhow::Error>(())
    });
    // Whatever still runs on the blocking pool (a command past its turn)
    // does not hold the exit up.
    runtime.shutdown_timeout(Duration::from_secs(5));
    served?;
    Ok(ExitCode::SUCCESS)
}

/// One connection is one file descriptor: allow as many as the hard limit.
fn raise_open_files_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        limit.current = limit.maximum;
        if let Err(error) = setrlimit(Resource::Nofile, limit) {
            eprintln!("warden serve: cannot raise the open files limit: {error}");
        }
    }
}

fn announce(
    started: &warden_server::Started,
    data_dir: &std::path::Path,
    opened_tightened: &[warden_store::Tightened],
    confinement: &warden_confine::Mode,
) -> Result<()> {
    for warning in &started.warnings {
        eprintln!("warden serve: WARNING: {warning}");
    }
    match confinement {
        warden_confine::Mode::Namespaces => {}
        warden_confine::Mode::PolicyOnly { .. } | warden_confine::Mode::Off => {
            eprintln!("warden serve: WARNING: {}", confinement.describe());
        }
    }
    let mut out = std::io::stdout().lock();
    let scheme = if started.tls_fingerprint.is_some() {
        "https"
    } else {
        "http"
    };
    writeln!(
        out,
        "warden serve: listening on {scheme}://{} (data in {})",
        started.local_addr,
        data_dir.display()
    )?;
    if let Some(fingerprint) = &started.tls_fingerprint {
        writeln!(out, "TLS certificate SHA-256 fingerprint: {fingerprint}")?;
    }
    writeln!(out, "warden serve: {}", confinement.describe())?;
    for change in opened_tightened.iter().chain(&started.tightened) {
        writeln!(out, "warden serve: made private: {change}")?;
    }
    if let Some(admin) = &started.bootstrap_admin {
        writeln!(
            out,
            "First start: created user `{}` with password: {}",
            admin.username, admin.password
        )?;
        writeln!(
            out,
            "  (a one-time password: shown once, and in {} until the first login with it, which must set a new one)",
            admin.password_file.display(),
        )?;
    }
    out.flush()?;
    Ok(())
}

async fn wait_for_signal() -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    Ok(())
}
