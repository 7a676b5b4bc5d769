//! `warden ask "…"`: one request, one answer, and an exit code that says how
//! it went (see [`crate::exit_codes`]). `--json` prints the stream events of
//! DESIGN.md as JSON lines (the answer in `content` events, the final text
//! in `done`); every failure is an `error` event with a code, then `done`.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use warden_protocol::{RouteSummary, StreamEvent};

use crate::approver::TerminalApprover;
use crate::common::{CommonArgs, cancel_on_ctrl_c};
use crate::conversation::{Chat, TurnOutcome};
use crate::display::{JsonLines, JsonSink, Progress, TerminalDisplay, Verbosity, print_delta};
use crate::exit_codes::{ASK_EXIT_CODES, AskExit, closing_error};
use crate::remote::{self, RemoteArgs};
use crate::world::World;

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
        let cancel = warden_protocol::CancelFlag::new();
        cancel_on_ctrl_c(&cancel)?;
        let output = if args.json {
            remote::session::Output::JsonLines
        } else {
            remote::session::Output::Terminal
        };
        let exit = crate::common::runtime()?.block_on(remote::session::ask(
            &client,
            args.session.as_deref(),
            &text,
            args.common.level,
            output,
            &cancel,
        ))?;
        return Ok(exit.code());
    }
    if args.json {
        return run_json(args, &text);
    }
    let world = World::open(args.common.load()?)?;
    cancel_on_ctrl_c(&world.cancel)?;
    let mut approver = TerminalApprover::for_stdin(&world.cancel);
    let mut chat = Chat::open(&world, args.session.as_deref())?;
    let verbosity = args.common.verbosity();
    let mut display = TerminalDisplay::new(verbosity, Progress::Stderr);
    let mut streamed = String::new();
    let outcome =
        world
            .runtime
            .block_on(chat.turn(&text, &mut display, &mut approver, &mut |delta| {
                if let warden_core::agent::provider::Delta::Text(t) = delta {
                    streamed.push_str(t);
                }
                print_delta(delta, verbosity);
            }))?;
    finish_text(&streamed, outcome.final_text.as_deref());
    if verbosity == Verbosity::Verbose {
        if let Some(route) = &outcome.route {
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
                outcome.elapsed.as_millis(),
                chat.session_id
            );
        }
    }
    Ok(outcome.exit().code())
}

/// The streamed text, then the final text if it differs (a phantom claim
/// was replaced, or Gate 2 held an earlier answer).
pub fn finish_text(streamed: &str, final_text: Option<&str>) {
    match final_text {
        Some(text) if streamed.trim().ends_with(text.trim()) => {
            if !streamed.ends_with('\n') {
                println!();
            }
        }
        Some(text) => {
            if !streamed.is_empty() && !streamed.ends_with('\n') {
                println!();
            }
            println!("{text}");
        }
        None if !streamed.is_empty() && !streamed.ends_with('\n') => println!(),
        None => println!("(no answer)"),
    }
}

/// A failure before the turn could start, as `error` then `done`.
fn json_failure(session_id: &str, code: &str, error: &anyhow::Error) -> ExitCode {
    let out = JsonLines::new(session_id);
    out.write(StreamEvent::Error {
        code: Some(code.to_string()),
        message: format!("{error:#}"),
    });
    out.write(StreamEvent::Done {
        final_text: None,
        route: None,
    });
    AskExit::Usage.code()
}

fn run_json(args: &AskArgs, text: &str) -> Result<ExitCode> {
    let session = args.session.as_deref().unwrap_or("-");
    let world = match args.common.load().and_then(World::open) {
        Ok(world) => world,
        Err(error) => return Ok(json_failure(session, "CONFIGURATION", &error)),
    };
    cancel_on_ctrl_c(&world.cancel)?;
    let mut approver = TerminalApprover::for_stdin(&world.cancel);
    let mut chat = match Chat::open(&world, args.session.as_deref()) {
        Ok(chat) => chat,
        Err(error) => return Ok(json_failure(session, "SESSION", &error)),
    };
    let out = JsonLines::new(&chat.session_id);
    let mut sink = JsonSink(&out);
    let result = world
        .runtime
        .block_on(chat.turn(text, &mut sink, &mut approver, &mut |delta| {
            out.delta(delta)
        }));
    match result {
        Ok(outcome) => {
            let exit = outcome.exit();
            if let Some((code, message)) = closing_error(&outcome.result, exit) {
                out.write(StreamEvent::Error {
                    code: Some(code),
                    message,
                });
            }
            out.write(done_event(outcome));
            Ok(exit.code())
        }
        Err(error) => {
            out.write(StreamEvent::Error {
                code: Some("INTERNAL".to_string()),
                message: format!("{error:#}"),
            });
            out.write(StreamEvent::Done {
                final_text: None,
                route: None,
            });
            Ok(AskExit::Usage.code())
        }
    }
}

fn done_event(outcome: TurnOutcome) -> StreamEvent {
    let route = outcome.route.as_ref().map(|r| RouteSummary {
        stage: r.stage.as_str().to_string(),
        route: r.route.to_string(),
        target: r.target.clone(),
        routing_us: u64::try_from(r.elapsed.as_micros()).unwrap_or(u64::MAX),
    });
    StreamEvent::Done {
        final_text: outcome.final_text,
        route,
    }
}
