//! Flags shared by the commands that talk to hosts, and the Ctrl-C wiring.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use warden_protocol::{CancelFlag, ControlLevel};

use crate::config::{Config, Overrides, parse_level_arg};
use crate::display::Verbosity;

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
        Config::load(&Overrides {
            config: self.config.clone(),
            db: self.db.clone(),
            level: self.level,
        })
    }

    pub fn verbosity(&self) -> Verbosity {
        if self.verbose {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        }
    }
}

/// Ctrl-C cancels the running turn (the flag); a second Ctrl-C while the
/// first is still being handled ends the program.
pub fn cancel_on_ctrl_c(flag: &CancelFlag) -> Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT])
        .context("installing the Ctrl-C handler")?;
    let flag = flag.clone();
    std::thread::Builder::new()
        .name("ctrl-c".into())
        .spawn(move || {
            for _ in signals.forever() {
                if flag.is_cancelled() {
                    std::process::exit(130);
                }
                flag.cancel();
            }
        })
        .context("starting the Ctrl-C handler")?;
    Ok(())
}

/// The runtime a CLI command drives its async work on: one thread (the
/// terminal is the only client), plus the blocking pool for local commands.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}
