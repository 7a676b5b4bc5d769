//! How a turn looks: the stream events of `warden-protocol` on a terminal
//! (tool calls and results as they run, the streamed answer), or as JSON
//! lines (`warden ask --json`). The same display shows a turn run here and
//! a turn run by a server (`--server`): both arrive as [`StreamEvent`]s.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use serde_json::Value;
use warden_core::agent::LoopEvent;
use warden_core::turn::TurnSink;
use warden_protocol::{ErrorCode, EventEnvelope, StreamEvent, ToolResponse};

use crate::style::Paint;
use crate::ticker::Ticker;

/// Whether to show routing, gates, commands and timings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    Normal,
    Verbose,
}

/// Where tool lines go: the REPL keeps everything on stdout; `ask` keeps
/// stdout for the answer and writes progress to stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Stdout,
    Stderr,
}

pub struct TerminalDisplay {
    pub verbosity: Verbosity,
    progress: Progress,
    ticker: Ticker,
    paint: Paint,
    /// Calls started and not finished, by call id.
    running: HashSet<String>,
    /// The unredacted response of a call run here, until its `tool_end`.
    raw: HashMap<String, ToolResponse>,
    /// Answer text printed as it streamed.
    streamed: String,
}

impl TerminalDisplay {
    pub fn new(verbosity: Verbosity, progress: Progress, ticker: Ticker) -> Self {
        TerminalDisplay {
            verbosity,
            progress,
            ticker,
            paint: match progress {
                Progress::Stdout => Paint::stdout(),
                Progress::Stderr => Paint::stderr(),
            },
            running: HashSet::new(),
            raw: HashMap::new(),
            streamed: String::new(),
        }
    }

    /// The answer text printed so far (and forget it: a new turn starts).
    pub fn take_streamed(&mut self) -> String {
        std::mem::take(&mut self.streamed)
    }

    fn line(&mut self, text: &str) {
        self.ticker.stop();
        match self.progress {
            Progress::Stdout => {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{text}");
                let _ = out.flush();
            }
            Progress::Stderr => eprintln!("{text}"),
        }
    }

    fn verbose(&mut self, text: &str) {
        if self.verbosity == Verbosity::Verbose {
            self.ticker.stop();
            eprintln!("  · {text}");
        }
    }

    /// One event, as a person should see it.
    pub fn show(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TurnStart { .. } | StreamEvent::Done { .. } => {}
            StreamEvent::Content { text } => {
                self.ticker.stop();
                self.streamed.push_str(text);
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            StreamEvent::Thinking { text } => {
                if self.verbosity == Verbosity::Verbose {
                    self.ticker.stop();
                    eprint!("{text}");
                }
            }
            StreamEvent::ToolStart {
                call_id,
                name,
                arguments,
                kind,
                ..
            } => {
                let described = describe_call(name, arguments);
                let kind = self.paint.dim(&format!("[{kind}]"));
                self.line(&format!("→ {described} {kind}"));
                self.running.insert(call_id.clone());
                self.ticker.start(described);
            }
            StreamEvent::ToolEnd {
                call_id,
                name,
                ok,
                error_code,
                cached,
                duration_ms,
                output,
            } => {
                self.running.remove(call_id);
                let cached = if *cached {
                    ", from this session's knowledge"
                } else {
                    ""
                };
                let (tick, cross) = (self.paint.green("✓"), self.paint.red("✗"));
                match (ok, error_code) {
                    (true, _) => self.line(&format!("  {tick} {name} ({duration_ms} ms{cached})")),
                    (false, Some(code)) => {
                        self.line(&format!("  {cross} {name}: {code} ({duration_ms} ms)"))
                    }
                    (false, None) => self.line(&format!("  {cross} {name} ({duration_ms} ms)")),
                }
                let raw = self.raw.remove(call_id);
                self.show_result(raw, output);
                if !self.running.is_empty() {
                    self.ticker
                        .start(format!("{} call(s) running", self.running.len()));
                }
            }
            // The approval prompt (here, or the remote driver's) shows it.
            StreamEvent::ApprovalNeeded { .. } => {}
            StreamEvent::ApprovalResolved {
                approval_id,
                decision,
                by,
            } => {
                let by = by.as_ref().map(|b| format!(" by {b}")).unwrap_or_default();
                self.line(&format!("  approval {approval_id}: {decision}{by}"));
            }
            StreamEvent::FsmState { state } => self.verbose(&format!("session state: {state}")),
            StreamEvent::Usage {
                provider,
                model,
                input_tokens,
                output_tokens,
                cost_usd,
            } => self.verbose(&format!(
                "{provider}/{model}: {input_tokens} tokens in, {output_tokens} out{}",
                cost_usd.map(|c| format!(", ${c:.4}")).unwrap_or_default()
            )),
            StreamEvent::Error { code, message } => self.show_error(code, message),
        }
    }

    fn show_error(&mut self, code: &str, message: &str) {
        match code {
            "PHANTOM_DETECTED" => {
                let warning = self.paint.red(
                    "  ⚠ RETRACTED: the answer claimed results that no tool call showed; it was replaced",
                );
                self.line(&warning);
            }
            // The answer stands, but some of it no tool result showed.
            "ANSWER_UNVERIFIED" => {
                let warning = self.paint.yellow(&format!(
                    "  ⚠ UNVERIFIED: {}",
                    message.strip_prefix("unverified: ").unwrap_or(message)
                ));
                self.line(&warning);
            }
            // Warden itself failed: always worth a line.
            "UNAVAILABLE" | "INTERNAL" => self.line(&format!("  ! {message}")),
            // The answer says the rest in words.
            _ => self.verbose(&format!("{code}: {message}")),
        }
    }

    /// What a call returned: the first line of an error; with `-v` the
    /// result itself (the real output for calls run here, the redacted
    /// one a server sends otherwise).
    fn show_result(&mut self, raw: Option<ToolResponse>, output: &str) {
        let seen: Option<Value> = raw
            .as_ref()
            .and_then(|r| serde_json::to_value(r).ok())
            .or_else(|| serde_json::from_str(output).ok());
        let Some(seen) = seen else {
            return;
        };
        let error = &seen["error"];
        if self.verbosity != Verbosity::Verbose {
            let required = error["code"].as_str() == Some(ErrorCode::ApprovalRequired.as_str());
            if let Some(message) = error["message"].as_str().filter(|_| !required) {
                self.line(&format!("    {}", first_line(message)));
            }
            return;
        }
        if let (Some(code), Some(message)) = (error["code"].as_str(), error["message"].as_str()) {
            self.verbose(&format!("{code}: {message}"));
            if let Some(hint) = error["details"]["recovery_hint"].as_str() {
                self.verbose(&format!("hint: {hint}"));
            }
        }
        let pretty = serde_json::to_string_pretty(&seen).unwrap_or_default();
        for line in shown_output(&pretty, VERBOSE_OUTPUT_LINES) {
            self.verbose(&format!("│ {line}"));
        }
        let redacted: Option<Value> = serde_json::from_str(output).ok();
        if raw.is_some() && redacted.as_ref() != Some(&seen) {
            self.verbose("(the model saw this with secrets redacted)");
        }
    }
}

impl TurnSink for TerminalDisplay {
    fn event(&mut self, event: StreamEvent) {
        self.show(&event);
    }

    fn raw_output(&mut self, call_id: &str, response: &ToolResponse) {
        self.raw.insert(call_id.to_string(), response.clone());
    }

    fn notice(&mut self, text: &str) {
        self.ticker.stop();
        eprintln!("… {text}");
    }

    fn detail(&mut self, event: &LoopEvent) {
        match event {
            LoopEvent::Exec {
                target,
                command,
                exit_code,
            } => self.verbose(&format!("ran on {target}: `{command}` → exit {exit_code}")),
            LoopEvent::AutoRewrite { from, to } => self.line(&format!(
                "  ↻ `{from}` never ends; ran the bounded `{to}` instead"
            )),
            _ => {}
        }
    }
}

/// `read exec host:web1: df -h` from a call's arguments.
pub fn describe_call(tool: &str, arguments: &Value) -> String {
    let action = arguments["action"].as_str().unwrap_or("");
    let target = arguments["target"].as_str().unwrap_or("");
    let detail = [
        "command",
        "path",
        "service",
        "operation",
        "metric",
        "note",
        "query",
        "text",
    ]
    .iter()
    .find_map(|k| arguments[*k].as_str().map(|v| v.to_string()))
    .unwrap_or_default();
    let mut text = tool.to_string();
    for part in [action, target] {
        if !part.is_empty() {
            text.push(' ');
            text.push_str(part);
        }
    }
    if !detail.is_empty() {
        text.push_str(": ");
        text.push_str(&detail);
    }
    text
}

/// Lines of tool output shown with `-v`.
const VERBOSE_OUTPUT_LINES: usize = 40;

/// The first `limit` lines (each cut to 200 characters), and how many more.
fn shown_output(text: &str, limit: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown: Vec<String> = lines
        .iter()
        .take(limit)
        .map(|line| match line.char_indices().nth(200) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => (*line).to_string(),
        })
        .collect();
    if lines.len() > limit {
        shown.push(format!("… {} more lines", lines.len() - limit));
    }
    shown
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
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

/// Stream events as JSON lines on stdout, numbered per session: what
/// `warden ask --json` prints (the same objects the server's stream sends).
pub struct JsonLines {
    session_id: String,
    seq: u64,
}

impl JsonLines {
    pub fn new(session_id: &str) -> Self {
        JsonLines {
            session_id: session_id.to_string(),
            seq: 0,
        }
    }

    pub fn write(&mut self, event: StreamEvent) {
        self.seq += 1;
        let envelope = EventEnvelope::new(self.session_id.clone(), self.seq, event);
        if let Ok(line) = serde_json::to_string(&envelope) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}

impl TurnSink for JsonLines {
    fn event(&mut self, event: StreamEvent) {
        self.write(event);
    }
}
