//! `warden chat`: the REPL. Tool calls and results show as they run, writes
//! ask y/N with the exact command and target, Ctrl-C cancels the running
//! turn (not the program), `/reset`, `/level`, history across runs.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use warden_core::agent::provider::Delta;
use warden_core::ports::Inventory;

use crate::approver::TerminalApprover;
use crate::ask_cmd::finish_text;
use crate::common::{CommonArgs, cancel_on_ctrl_c};
use crate::config::parse_level_arg;
use crate::conversation::Chat;
use crate::display::{Progress, TerminalDisplay, Verbosity, print_delta};
use crate::world::World;

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

const HELP: &str = "\
/reset                 forget what this session discovered (FSM and context)
/level LEVEL           read_only | controlled | autonomous
/verbose               toggle routing, gate and timing details
/session               show this conversation's id (resume with --session ID)
/help                  this text;  /quit or Ctrl-D to leave
Anything else is a request: try \"disk usage\", \"is ssh running\", \"logs of nginx\".";

fn history_path() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("warden").join("history"))
}

pub fn run(args: &ChatArgs) -> Result<ExitCode> {
    if let Some(client) = args.remote.client()? {
        return run_remote(&client, args);
    }
    let world = World::open(args.common.load()?)?;
    cancel_on_ctrl_c(&world.cancel)?;
    let mut chat = Chat::open(&world, args.session.as_deref())?;
    let mut verbosity = args.common.verbosity();
    banner(&world, &chat);
    let mut editor = DefaultEditor::new().context("starting the line editor")?;
    let history = history_path();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    let mut approver = TerminalApprover::for_stdin(&world.cancel);
    let mut input = IdlePrompt::default();
    loop {
        let prompt = format!("warden[{}]> ", chat.level());
        let Some(line) = input.next_line(&mut editor, &prompt)? else {
            break;
        };
        let line = line.as_str();
        if let Some(command) = line.strip_prefix('/') {
            match slash_command(command, &mut chat, &mut verbosity) {
                Flow::Continue => continue,
                Flow::Quit => break,
            }
        }
        let mut display = TerminalDisplay::new(verbosity, Progress::Stdout);
        let mut streamed = String::new();
        let mut on_delta = |delta: Delta<'_>| {
            if let Delta::Text(text) = delta {
                streamed.push_str(text);
            }
            print_delta(delta, verbosity);
        };
        match world
            .runtime
            .block_on(chat.turn(line, &mut display, &mut approver, &mut on_delta))
        {
            Ok(outcome) => {
                finish_text(&streamed, outcome.final_text.as_deref());
                if verbosity == Verbosity::Verbose {
                    if let Some(route) = &outcome.route {
                        eprintln!(
                            "  · routed by {} ({}) in {} µs; turn {} ms",
                            route.stage.as_str(),
                            route.route,
                            route.elapsed.as_micros(),
                            outcome.elapsed.as_millis()
                        );
                    }
                }
            }
            Err(error) => eprintln!("warden: {error:#}"),
        }
        println!();
    }
    if let Some(path) = &history {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.save_history(path);
    }
    println!(
        "session {} saved; resume with `warden chat --session {}`",
        chat.session_id, chat.session_id
    );
    Ok(ExitCode::SUCCESS)
}

enum Flow {
    Continue,
    Quit,
}

fn slash_command(command: &str, chat: &mut Chat<'_>, verbosity: &mut Verbosity) -> Flow {
    let mut words = command.split_whitespace();
    match words.next().unwrap_or_default() {
        "quit" | "exit" | "q" => return Flow::Quit,
        "reset" => {
            chat.reset();
            println!("Forgot what this session discovered; the conversation history stays.");
        }
        "level" => match words.next().map(parse_level_arg) {
            Some(Ok(level)) => match chat.set_level(level) {
                Ok(()) => println!("control level: {level}"),
                Err(error) => println!("control level unchanged ({}): {error}", chat.level()),
            },
            Some(Err(error)) => println!("{error}"),
            None => println!(
                "control level: {} (change with /level read_only|controlled|autonomous)",
                chat.level()
            ),
        },
        "verbose" => {
            *verbosity = match verbosity {
                Verbosity::Normal => Verbosity::Verbose,
                Verbosity::Verbose => Verbosity::Normal,
            };
            println!("verbose: {}", *verbosity == Verbosity::Verbose);
        }
        "session" => println!("session {}", chat.session_id),
        "help" | "?" => println!("{HELP}"),
        other => println!("unknown command /{other}\n{HELP}"),
    }
    Flow::Continue
}

fn banner(world: &World, chat: &Chat<'_>) {
    let snapshot = world.inventory.snapshot();
    let resources = snapshot.all();
    let host = resources
        .first()
        .map(|r| r.id.to_string())
        .unwrap_or_else(|| "no host".into());
    let model = match chat.model_identity() {
        Some((provider, model)) => format!("{provider}/{model}"),
        None => "none (the router answers; set WARDEN_PROVIDER to add one)".into(),
    };
    println!("Warden on {host} ({} resources known)", resources.len());
    println!("model: {model}");
    println!(
        "control level: {} · session {} · /help for commands, Ctrl-D to leave",
        chat.level(),
        chat.session_id
    );
    println!();
}

/// The REPL against a server: one server session for the whole chat.
fn run_remote(client: &crate::remote::RemoteClient, args: &ChatArgs) -> Result<ExitCode> {
    use crate::remote::session::{Output, create_session, run_turn};
    let runtime = crate::common::runtime()?;
    let cancel = warden_protocol::CancelFlag::new();
    cancel_on_ctrl_c(&cancel)?;
    let mut editor = DefaultEditor::new().context("starting the line editor")?;
    let mut session = args.session.clone();
    println!(
        "Warden at {} (Ctrl-D to leave)",
        args.remote.server.as_deref().unwrap_or("?")
    );
    let mut input = IdlePrompt::default();
    loop {
        let Some(line) = input.next_line(&mut editor, "warden> ")? else {
            break;
        };
        let line = line.as_str();
        cancel.reset();
        let id = match &session {
            Some(id) => id.clone(),
            None => {
                let id = runtime.block_on(create_session(client, line, args.common.level))?;
                session = Some(id.clone());
                id
            }
        };
        match runtime.block_on(run_turn(client, &id, line, Output::Terminal, &cancel)) {
            Ok(reading) => {
                crate::ask_cmd::finish_text(&reading.streamed, reading.final_text.as_deref())
            }
            Err(error) => eprintln!("warden: {error:#}"),
        }
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

/// The idle prompt: Ctrl-C clears the line, a second one in a row quits, as
/// does Ctrl-D. Blank lines are skipped; every line read goes to history.
#[derive(Default)]
struct IdlePrompt {
    interrupted: bool,
}

impl IdlePrompt {
    /// The next non-blank line, trimmed; `None` when the user leaves.
    fn next_line(&mut self, editor: &mut DefaultEditor, prompt: &str) -> Result<Option<String>> {
        loop {
            match editor.readline(prompt) {
                Ok(line) => {
                    self.interrupted = false;
                    let line = line.trim();
                    if line.is_empty() {
                        continue;
                    }
                    let _ = editor.add_history_entry(line);
                    return Ok(Some(line.to_string()));
                }
                Err(ReadlineError::Interrupted) if self.interrupted => return Ok(None),
                Err(ReadlineError::Interrupted) => {
                    self.interrupted = true;
                    eprintln!("(Ctrl-C again or Ctrl-D to quit)");
                }
                Err(ReadlineError::Eof) => return Ok(None),
                Err(error) => return Err(error).context("reading input"),
            }
        }
    }
}
