//! The one REPL of `warden chat`, whether the turns run here or on a server
//! (`--server`): the level in the prompt, slash commands handled locally,
//! tool calls and the elapsed-time line as they run, the answer, and the
//! resume hint on the way out. Ctrl-C cancels the running turn; at the idle
//! prompt a second Ctrl-C in a row (or Ctrl-D) leaves.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use warden_protocol::{ControlLevel, RouteSummary};

use crate::display::{Progress, TerminalDisplay, Verbosity, finish_text};
use crate::ticker::Ticker;

/// How one turn ended, as the REPL reports it.
pub struct Finished {
    pub final_text: Option<String>,
    pub route: Option<RouteSummary>,
    /// How long the turn took (known when it ran here).
    pub elapsed: Option<Duration>,
}

/// Where a conversation's turns run: this machine or a server.
pub trait ChatBackend {
    /// Lines that open the REPL (where, which model).
    fn banner(&self) -> Vec<String>;
    fn session_id(&self) -> String;
    fn level(&self) -> ControlLevel;
    /// Change the level; returns the level now in force (a server may cap it).
    fn set_level(&mut self, level: ControlLevel) -> Result<ControlLevel>;
    /// Forget what the session discovered (FSM and context together).
    fn reset(&mut self) -> Result<()>;
    /// One message; `display` shows it as it streams.
    fn turn(&mut self, text: &str, display: &mut TerminalDisplay) -> Result<Finished>;
    /// What to say on the way out.
    fn resume_hint(&self) -> String;
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

/// Run the REPL until the user leaves.
pub fn run(
    backend: &mut dyn ChatBackend,
    mut verbosity: Verbosity,
    ticker: &Ticker,
) -> Result<ExitCode> {
    for line in backend.banner() {
        println!("{line}");
    }
    println!(
        "control level: {} · session {} · /help for commands, Ctrl-D to leave",
        backend.level(),
        backend.session_id()
    );
    println!();
    let mut editor = DefaultEditor::new().context("starting the line editor")?;
    let history = history_path();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    let mut input = IdlePrompt::default();
    loop {
        let prompt = format!("warden[{}]> ", backend.level());
        let Some(line) = input.next_line(&mut editor, &prompt)? else {
            break;
        };
        if let Some(command) = line.strip_prefix('/') {
            match slash_command(command, backend, &mut verbosity) {
                Flow::Continue => continue,
                Flow::Quit => break,
            }
        }
        let mut display = TerminalDisplay::new(verbosity, Progress::Stdout, ticker.clone());
        match backend.turn(&line, &mut display) {
            Ok(finished) => {
                finish_text(&display.take_streamed(), finished.final_text.as_deref());
                if verbosity == Verbosity::Verbose {
                    if let Some(route) = &finished.route {
                        let took = finished
                            .elapsed
                            .map(|e| format!("; turn {} ms", e.as_millis()))
                            .unwrap_or_default();
                        eprintln!(
                            "  · routed by {} ({}) in {} µs{took}",
                            route.stage, route.route, route.routing_us
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
    println!("{}", backend.resume_hint());
    Ok(ExitCode::SUCCESS)
}

enum Flow {
    Continue,
    Quit,
}

fn slash_command(command: &str, backend: &mut dyn ChatBackend, verbosity: &mut Verbosity) -> Flow {
    let mut words = command.split_whitespace();
    match words.next().unwrap_or_default() {
        "quit" | "exit" | "q" => return Flow::Quit,
        "reset" => match backend.reset() {
            Ok(()) => {
                println!("Forgot what this session discovered; the conversation history stays.")
            }
            Err(error) => println!("not reset: {error:#}"),
        },
        "level" => match words.next().map(warden_world::config::parse_level_arg) {
            Some(Ok(level)) => match backend.set_level(level) {
                Ok(now) if now == level => println!("control level: {now}"),
                Ok(now) => println!("control level: {now} (the server allows no more than that)"),
                Err(error) => println!("control level unchanged ({}): {error:#}", backend.level()),
            },
            Some(Err(error)) => println!("{error}"),
            None => println!(
                "control level: {} (change with /level read_only|controlled|autonomous)",
                backend.level()
            ),
        },
        "verbose" => {
            *verbosity = match verbosity {
                Verbosity::Normal => Verbosity::Verbose,
                Verbosity::Verbose => Verbosity::Normal,
            };
            println!("verbose: {}", *verbosity == Verbosity::Verbose);
        }
        "session" => println!("session {}", backend.session_id()),
        "help" | "?" => println!("{HELP}"),
        other => println!("unknown command /{other}\n{HELP}"),
    }
    Flow::Continue
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
