//! `warden ask "…"`: one request, one answer, and an exit code that says how
//! it went (see [`crate::exit_codes`]). `--json` prints the turn's stream
//! events as JSON lines (`spec/api.md`: the answer in `content` events, the
//! final text in `done`); every failure is an `error` event with a code,
//! then `done`. With `--server` the server runs the turn and the terminal
//! shows its stream the same way.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::approver::TerminalApprover;
use crate::common::{CommonArgs, cancel_on_ctrl_c};
use crate::display::{JsonLines, Progress, TerminalDisplay, Verbosity, finish_text};
use crate::exit_codes::{ASK_EXIT_CODES, AskExit};
use crate::local::Local;
use crate::remote::session::{Output, RemoteChat, json_failure};
use crate::remote::{RemoteArgs, RemoteClient};
use crate::ticker::Ticker;

#[derive(Args)]
#[command(after_help = ASK_EXIT_CODES)]
pub struct AskArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Print stream events as JSON lines instead of text.
    #[arg(long)]
    json: bool,
    /// Continue a stored conversation.
    #[arg(long)]
    session: Option<String>,
    /// The request, e.g. "disk usage" or "is ssh running".
    #[arg(required = true, num_args = 1..)]
    request: Vec<String>,
    #[command(flatten)]
    remote: RemoteArgs,
}

pub fn run(args: &AskArgs) -> Result<ExitCode> {
    let text = args.request.join(" ");
    if let Some(client) = args.remote.client()? {
        return run_remote(args, client, &text);
    }
    let session = args.session.as_deref().unwrap_or("-");
    let opened = args.common.load().and_then(Local::open);
    let local = match opened {
        Ok(local) => local,
        Err(error) if args.json => {
            json_failure(session, "CONFIGURATION", &error);
            return Ok(AskExit::Usage.code());
        }
        Err(error) => return Err(error),
    };
    cancel_on_ctrl_c(&local.cancel)?;
    let mut runner = match local.runner(args.session.as_deref()) {
        Ok(runner) => runner,
        Err(error) if args.json => {
            json_failure(session, "SESSION", &error);
            return Ok(AskExit::Usage.code());
        }
        Err(error) => return Err(error),
    };
    let ticker = Ticker::for_stderr();
    let mut approver = TerminalApprover::for_stdin(&local.cancel, &ticker);
    if args.json {
        let mut out = JsonLines::new(runner.id());
        let report = local.turn(&mut runner, &text, &mut out, &mut approver);
        out.write(report.done_event());
        return Ok(AskExit::from(report.verdict()).code());
    }
    let verbosity = args.common.verbosity();
    let mut display = TerminalDisplay::new(verbosity, Progress::Stderr, ticker);
    let report = local.turn(&mut runner, &text, &mut display, &mut approver);
    finish_text(&display.take_streamed(), report.final_text.as_deref());
    if verbosity == Verbosity::Verbose {
        if let Some(route) = &report.route {
            eprintln!(
                "  · routed by {} ({}{}) in {} µs; turn took {} ms; session {}",
                route.stage.as_str(),
                route.route,
                route
                    .target
                    .as_ref()
                    .map(|t| format!(", target {t}"))
                    .unwrap_or_default(),
                route.elapsed.as_micros(),
                report.elapsed.as_millis(),
                runner.id()
            );
        }
    }
    Ok(AskExit::from(report.verdict()).code())
}

/// The same request through a server: it runs the turn, this terminal
/// shows the stream and answers approval prompts.
fn run_remote(args: &AskArgs, client: RemoteClient, text: &str) -> Result<ExitCode> {
    let output = if args.json {
        Output::JsonLines
    } else {
        Output::Terminal
    };
    let ticker = Ticker::for_stderr();
    let mut chat = RemoteChat::open(
        client,
        args.session.as_deref(),
        args.common.level,
        text,
        output,
        &ticker,
    )?;
    let mut display = TerminalDisplay::new(args.common.verbosity(), Progress::Stderr, ticker);
    let turn = chat.run_turn(text, &mut display)?;
    if output == Output::Terminal {
        finish_text(&display.take_streamed(), turn.final_text.as_deref());
        if turn.left_waiting {
            eprintln!(
                "session {} waits for the approval on the server",
                chat.session_id()
            );
        }
    }
    Ok(AskExit::from(turn.verdict).code())
}
