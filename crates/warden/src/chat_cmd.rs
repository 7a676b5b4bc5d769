//! `warden chat`: the REPL (see [`crate::repl`]), on this machine or, with
//! `--server`, on a running `warden serve` — the same prompt, slash
//! commands, display and approval prompts either way.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::common::{CommonArgs, cancel_on_ctrl_c};
use crate::local::{Local, LocalChat};
use crate::remote::session::{Output, RemoteChat};
use crate::ticker::Ticker;

#[derive(Args)]
pub struct ChatArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Resume a stored conversation (see `warden sessions`).
    #[arg(long)]
    session: Option<String>,
    #[command(flatten)]
    remote: crate::remote::RemoteArgs,
}

pub fn run(args: &ChatArgs) -> Result<ExitCode> {
    let ticker = Ticker::for_stderr();
    let verbosity = args.common.verbosity();
    if let Some(client) = args.remote.client()? {
        let mut chat = RemoteChat::open(
            client,
            args.session.as_deref(),
            args.common.level,
            "",
            Output::Terminal,
            &ticker,
        )?;
        return crate::repl::run(&mut chat, verbosity, &ticker);
    }
    let local = Local::open(args.common.load()?)?;
    cancel_on_ctrl_c(&local.cancel)?;
    let runner = local.runner(args.session.as_deref())?;
    let mut chat = LocalChat::new(local, runner, &ticker);
    crate::repl::run(&mut chat, verbosity, &ticker)
}
