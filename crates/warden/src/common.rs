//! Flags shared by the commands that talk to hosts, and the Ctrl-C wiring.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use warden_protocol::{CancelFlag, ControlLevel};

use crate::display::Verbosity;
use warden_world::config::parse_level_arg;
use warden_world::{Config, Overrides};

#[derive(Args, Clone, Debug, Default)]
pub struct CommonArgs {
    /// Config file (default: $WARDEN_CONFIG, else ~/.config/warden/config.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The database (default: $WARDEN_DB, else ~/.local/share/warden/warden.db).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Control level for this run: read_only, controlled or autonomous.
    #[arg(long, value_parser = parse_level_arg)]
    pub level: Option<ControlLevel>,
    /// Show routing decisions, gates, commands and timings (on stderr).
    #[arg(long, short)]
    pub verbose: bool,
}

impl CommonArgs {
    pub fn load(&self) -> Result<Config> {
        Ok(Config::load(&Overrides {
            config: self.config.clone(),
            db: self.db.clone(),
            level: self.level,
        })?)
    }

    pub fn verbosity(&self) -> Verbosity {
        if self.verbose {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        }
    }
}

/// How long commands get between SIGTERM and SIGKILL when Warden exits.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// Signals for the commands that run turns (`ask`, `chat`, `approvals
/// approve`): Ctrl-C cancels the running turn (the flag: its command is
/// stopped and the turn ends honestly); a second Ctrl-C while the first is
/// still being handled, SIGTERM or SIGHUP end Warden, after every command it
/// started has been stopped (SIGTERM, a grace, SIGKILL).
/// The signal that is ending Warden (SIGTERM, SIGHUP, a second SIGINT),
/// once one arrived: whichever thread finishes first exits with 128 + it.
static TERMINATING: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// The signal ending Warden, if one is.
pub fn terminating_signal() -> Option<i32> {
    match TERMINATING.load(std::sync::atomic::Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

pub fn cancel_on_ctrl_c(flag: &CancelFlag) -> Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        .context("installing the signal handlers")?;
    let flag = flag.clone();
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if signal == SIGINT && !flag.is_cancelled() {
                    flag.cancel();
                    continue;
                }
                // Said first: the turn may end (cancelled) before this thread
                // is done, and Warden must still exit as this signal says.
                TERMINATING.store(signal, std::sync::atomic::Ordering::SeqCst);
                // Nothing new starts now, and the turn stops issuing calls.
                flag.cancel();
                stop_commands();
                std::process::exit(128 + signal);
            }
        })
        .context("starting the signal handler")?;
    Ok(())
}

/// Stops every command this process still runs, saying so when there were
/// any. Called on the way out, normal or not (a normal exit finds none).
pub fn stop_commands() {
    let shutdown = warden_infra::terminate_all(SHUTDOWN_GRACE);
    if shutdown.commands > 0 {
        let killed = match shutdown.killed {
            0 => String::new(),
            n => format!(" ({n} needed SIGKILL)"),
        };
        eprintln!(
            "warden: stopped {} running command(s){killed}",
            shutdown.commands
        );
    }
}

/// When this process was started as the commands' watchdog (the executor
/// re-executes this binary so that commands die with Warden, even a Warden
/// killed with SIGKILL), be that watchdog, then exit; otherwise return at
/// once.
/// `warden __warden-confine … -- COMMAND`: confine, become the command.
pub fn run_as_launcher_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() == Some(OsStr::new(warden_confine::CONFINE_ARG)) {
        warden_confine::run_confined(args);
    }
}

/// Nothing Warden runs can read this process's memory or environment
/// (see [`warden_confine::harden_this_process`]).
pub fn harden_this_process() {
    if let Err(error) = warden_confine::harden_this_process() {
        eprintln!("warden: warning: this process stays dumpable: {error}");
    }
}

pub fn run_as_watchdog_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(warden_infra::runner::WATCHDOG_ARG)) {
        return;
    }
    match warden_infra::runner::run_watchdog(args) {
        Ok(()) => std::process::exit(0),
        Err(error) => {
            eprintln!("warden: {error}");
            std::process::exit(2)
        }
    }
}

/// The runtime a CLI command drives its async work on: one thread (the
/// terminal is the only client); local commands are awaited on it.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// A server's data directory (`--data-dir`, else `$WARDEN_DATA_DIR`, else
/// the user's), created private, and its database: the configuration's
/// `db` when set (as `warden serve --config` uses it), else `warden.db` there.
/// What earlier releases left readable is made private, and said.
pub fn open_data_dir(
    flag: Option<PathBuf>,
    config: Option<PathBuf>,
) -> Result<(PathBuf, std::sync::Arc<warden_store::Store>)> {
    let dir = warden_world::storage::server_data_dir(flag)?;
    let config = Config::load(&Overrides {
        config,
        ..Overrides::default()
    })?;
    let store = warden_world::storage::open_in_data_dir(&dir, config.db.value)?;
    say_tightened(&store);
    Ok((dir, store))
}

/// The database `--db`, `$WARDEN_DB` or the configuration names, else the
/// default one; what earlier releases left readable is made private, and
/// said on stderr.
pub fn open_store(configured: Option<PathBuf>) -> Result<std::sync::Arc<warden_store::Store>> {
    let store = warden_world::storage::open(configured)?;
    say_tightened(&store);
    Ok(store)
}

/// What opening the database made private (files an earlier release left
/// readable by others), one line each on stderr.
pub fn say_tightened(store: &warden_store::Store) {
    for change in store.tightened() {
        eprintln!("warden: made private: {change}");
    }
}

/// Commands on this machine start through the confinement launcher: the
/// small `warden-confine` installed beside this program (it starts about
/// 2 ms faster), else this very program, whose `main` becomes the launcher
/// when asked to ([`run_as_launcher_if_asked`]).
pub fn this_program_launches() -> warden_infra::confinement::Launching {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("warden-confine")))
        .filter(|launcher| launcher.is_file());
    warden_infra::confinement::Launching::Program(
        beside.unwrap_or_else(|| std::path::PathBuf::from("/proc/self/exe")),
    )
}
