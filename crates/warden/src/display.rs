//! How a turn looks: on a terminal (tool calls and results as they run,
//! approval prompts, the streamed answer) or as JSON lines of the stream
//! events of DESIGN.md (`warden ask --json`).

use std::collections::HashMap;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use serde_json::Value;
use warden_core::agent::provider::Delta;
use warden_core::agent::{Approver, Decision, EventSink, LoopEvent};
use warden_core::ports::{Approval, BoxFuture};
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
}

impl TerminalDisplay {
    pub fn new(verbosity: Verbosity, progress: Progress) -> Self {
        TerminalDisplay {
            verbosity,
            progress,
            started: HashMap::new(),
        }
    }

    fn line(&self, text: &str) {
        match self.progress {
            Progress::Stdout => {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{text}");
                let _ = out.flush();
            }
            Progress::Stderr => eprintln!("{text}"),
        }
    }

    fn verbose(&self, text: &str) {
        if self.verbosity == Verbosity::Verbose {
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
                self.line(&format!("→ {} [{kind}]", describe_call(&name, &arguments)));
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
                match (ok, error_code) {
                    (true, _) => self.line(&format!("  ✓ {name} ({ms} ms{cached})")),
                    (false, Some(code)) => self.line(&format!("  ✗ {name}: {code} ({ms} ms)")),
                    (false, None) => self.line(&format!("  ✗ {name} ({ms} ms)")),
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
            LoopEvent::PhantomDetected => self
                .line("  ! the answer claimed results that no tool call showed; it was replaced"),
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

    fn tool_output(&mut self, _index: usize, response: &ToolResponse) {
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
    }
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

/// Asks on the terminal, or leaves the request pending when nobody can answer.
pub struct TerminalApprover {
    pub interactive: bool,
}

impl TerminalApprover {
    pub fn for_stdin() -> Self {
        TerminalApprover {
            interactive: std::io::stdin().is_terminal(),
        }
    }
}

impl Approver for TerminalApprover {
    fn decide<'a>(&'a mut self, approval: &'a Approval) -> BoxFuture<'a, Decision> {
        // The terminal is this process's only client: reading the answer
        // may hold the CLI's one thread.
        let decision = self.ask(approval);
        Box::pin(std::future::ready(decision))
    }
}

impl TerminalApprover {
    fn ask(&mut self, approval: &Approval) -> Decision {
        eprintln!();
        eprintln!(
            "approval needed ({}): {}",
            approval.risk, approval.description
        );
        eprintln!("  target:  {}", approval.target);
        eprintln!("  command: {}", approval.command);
        if !self.interactive {
            eprintln!(
                "  nobody can answer here: it stays pending. Decide with `warden approvals approve {id}` or `warden approvals deny {id}`.",
                id = approval.id
            );
            return Decision::Pending;
        }
        eprint!("Run it? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        if std::io::stdin().lock().read_line(&mut answer).is_err() {
            return Decision::Deny("no answer".into());
        }
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Decision::Approve,
            _ => {
                eprint!("Reason (optional): ");
                let _ = std::io::stderr().flush();
                let mut reason = String::new();
                let _ = std::io::stdin().lock().read_line(&mut reason);
                let reason = reason.trim();
                Decision::Deny(if reason.is_empty() {
                    "the operator said no".into()
                } else {
                    reason.to_string()
                })
            }
        }
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
                code: None,
                message: "the answer claimed results that no tool call showed; it was replaced (see done.final_text)".into(),
            }),
            LoopEvent::Exec { .. }
            | LoopEvent::AutoRewrite { .. }
            | LoopEvent::ScriptExhausted
            | LoopEvent::AssistantText { .. } => {}
        }
    }
}
