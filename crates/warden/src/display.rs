//! How a turn looks: on a terminal (tool calls and results as they run,
//! approval prompts, the streamed answer) or as JSON lines of the stream
//! events of DESIGN.md (`warden ask --json`).

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use serde_json::Value;

use crate::style::Paint;
use crate::ticker::Ticker;
use warden_core::agent::provider::Delta;
use warden_core::agent::{EventSink, LoopEvent};
use warden_protocol::{EventEnvelope, StreamEvent, ToolResponse};

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
    pub progress: Progress,
    started: HashMap<usize, Instant>,
    ticker: Ticker,
    paint: Paint,
}

impl TerminalDisplay {
    pub fn new(verbosity: Verbosity, progress: Progress) -> Self {
        TerminalDisplay {
            verbosity,
            progress,
            started: HashMap::new(),
            ticker: Ticker::for_stderr(),
            paint: match progress {
                Progress::Stdout => Paint::stdout(),
                Progress::Stderr => Paint::stderr(),
            },
        }
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

impl EventSink for TerminalDisplay {
    fn emit(&mut self, event: LoopEvent) {
        match event {
            LoopEvent::ToolCall {
                index,
                name,
                arguments,
                kind,
                ..
            } => {
                self.started.insert(index, Instant::now());
                let described = describe_call(&name, &arguments);
                let kind = self.paint.dim(&format!("[{kind}]"));
                self.line(&format!("→ {described} {kind}"));
                self.ticker.start(described);
            }
            LoopEvent::ToolResult {
                index,
                name,
                ok,
                error_code,
                cached,
                ..
            } => {
                let ms = self
                    .started
                    .remove(&index)
                    .map(|t| t.elapsed().as_millis())
                    .unwrap_or(0);
                let cached = if cached {
                    ", from this session's knowledge"
                } else {
                    ""
                };
                let (tick, cross) = (self.paint.green("✓"), self.paint.red("✗"));
                match (ok, error_code) {
                    (true, _) => self.line(&format!("  {tick} {name} ({ms} ms{cached})")),
                    (false, Some(code)) => {
                        self.line(&format!("  {cross} {name}: {code} ({ms} ms)"))
                    }
                    (false, None) => self.line(&format!("  {cross} {name} ({ms} ms)")),
                }
                if !self.started.is_empty() {
                    self.ticker
                        .start(format!("{} call(s) running", self.started.len()));
                }
            }
            LoopEvent::Exec {
                target,
                command,
                exit_code,
            } => self.verbose(&format!("ran on {target}: `{command}` → exit {exit_code}")),
            LoopEvent::FsmState { state } => self.verbose(&format!("session state: {state}")),
            LoopEvent::ApprovalNeeded { .. } => {}
            LoopEvent::ApprovalResolved {
                approval_id,
                decision,
            } => self.line(&format!("  approval {approval_id}: {decision}")),
            LoopEvent::AutoRewrite { from, to } => self.line(&format!(
                "  ↻ `{from}` never ends; ran the bounded `{to}` instead"
            )),
            LoopEvent::PhantomDetected => {
                let warning = self.paint.red(
                    "  ⚠ RETRACTED: the answer claimed results that no tool call showed; it was replaced",
                );
                self.line(&warning)
            }
            LoopEvent::ScriptExhausted => {}
            LoopEvent::Usage {
                provider,
                model,
                input_tokens,
                output_tokens,
                cost_usd,
            } => self.verbose(&format!(
                "{provider}/{model}: {input_tokens} tokens in, {output_tokens} out{}",
                cost_usd.map(|c| format!(", ${c:.4}")).unwrap_or_default()
            )),
            LoopEvent::AssistantText { .. } => {}
        }
    }

    fn tool_output(&mut self, _index: usize, response: &ToolResponse, model_sees: &Value) {
        if self.verbosity != Verbosity::Verbose {
            if let Some(error) = &response.error {
                if error.code != warden_protocol::ErrorCode::ApprovalRequired {
                    self.line(&format!("    {}", first_line(&error.message)));
                }
            }
            return;
        }
        if let Some(error) = &response.error {
            self.verbose(&format!("{}: {}", error.code, error.message));
            if let Some(hint) = &error.details.recovery_hint {
                self.verbose(&format!("hint: {hint}"));
            }
        }
        // The result, cut to a screenful: the real output on the operator's
        // own terminal, with a note when the model saw secrets redacted.
        let seen = serde_json::to_string_pretty(response).unwrap_or_default();
        for line in shown_output(&seen, VERBOSE_OUTPUT_LINES) {
            self.verbose(&format!("│ {line}"));
        }
        if serde_json::to_value(response).ok().as_ref() != Some(model_sees) {
            self.verbose("(the model saw this with secrets redacted)");
        }
    }
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

/// Prints streamed answer text as it arrives.
pub fn print_delta(delta: Delta<'_>, verbosity: Verbosity) {
    match delta {
        Delta::Text(text) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
        Delta::Thinking(text) if verbosity == Verbosity::Verbose => eprint!("{text}"),
        Delta::Thinking(_) => {}
        Delta::Notice(text) => eprintln!("… {text}"),
    }
}

/// JSON lines of stream events, numbered per session.
pub struct JsonLines {
    session_id: String,
    seq: AtomicU64,
    started: Mutex<HashMap<usize, Instant>>,
}

impl JsonLines {
    pub fn new(session_id: &str) -> Self {
        JsonLines {
            session_id: session_id.to_string(),
            seq: AtomicU64::new(0),
            started: Mutex::new(HashMap::new()),
        }
    }

    pub fn write(&self, event: StreamEvent) {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let envelope = EventEnvelope::new(self.session_id.clone(), seq, event);
        if let Ok(line) = serde_json::to_string(&envelope) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }

    pub fn delta(&self, delta: Delta<'_>) {
        match delta {
            Delta::Text(text) => self.write(StreamEvent::Content {
                text: text.to_string(),
            }),
            Delta::Thinking(text) => self.write(StreamEvent::Thinking {
                text: text.to_string(),
            }),
            // Transport progress is for people watching a terminal.
            Delta::Notice(_) => {}
        }
    }
}

/// The loop's events as stream events.
pub struct JsonSink<'j>(pub &'j JsonLines);

impl EventSink for JsonSink<'_> {
    fn emit(&mut self, event: LoopEvent) {
        let out = self.0;
        match event {
            LoopEvent::ToolCall {
                index,
                call_id,
                name,
                arguments,
                kind,
                ..
            } => {
                out.started
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(index, Instant::now());
                out.write(StreamEvent::ToolStart {
                    call_id,
                    tool: name,
                    arguments,
                    kind,
                });
            }
            LoopEvent::ToolResult {
                index,
                call_id,
                name,
                ok,
                error_code,
                ..
            } => {
                let duration_ms = out
                    .started
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&index)
                    .map(|t| u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX))
                    .unwrap_or(0);
                out.write(StreamEvent::ToolEnd {
                    call_id,
                    tool: name,
                    ok,
                    error_code,
                    duration_ms,
                });
            }
            LoopEvent::ApprovalNeeded {
                approval_id,
                tool,
                target,
                command,
                risk,
                description,
            } => out.write(StreamEvent::ApprovalNeeded {
                approval_id,
                tool,
                target,
                command,
                risk,
                description,
            }),
            LoopEvent::ApprovalResolved {
                approval_id,
                decision,
            } => out.write(StreamEvent::ApprovalResolved {
                approval_id,
                decision,
                // The loop's event has no reason; the denial reaches the
                // model in the call's result.
                reason: None,
            }),
            LoopEvent::FsmState { state } => out.write(StreamEvent::FsmState { state }),
            LoopEvent::Usage {
                provider,
                model,
                input_tokens,
                output_tokens,
                cost_usd,
            } => out.write(StreamEvent::Usage {
                provider,
                model,
                input_tokens,
                output_tokens,
                cost_usd,
            }),
            LoopEvent::PhantomDetected => out.write(StreamEvent::Error {
                code: Some("PHANTOM_DETECTED".to_string()),
                message: "the answer claimed results that no tool call showed; it was replaced (see done.final_text)".into(),
            }),
            LoopEvent::Exec { .. }
            | LoopEvent::AutoRewrite { .. }
            | LoopEvent::ScriptExhausted
            | LoopEvent::AssistantText { .. } => {}
        }
    }
}
