//! One request through a server: create (or reuse) a session, post the
//! message, follow the session's event stream until the turn is done,
//! answering approval prompts on the way; plus `approvals` over the API.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use serde_json::{Value, json};
use warden_protocol::{CancelFlag, ControlLevel};

use super::client::RemoteClient;
use super::events::TurnReading;
use crate::exit_codes::AskExit;
use crate::style::Paint;

/// How a remote turn is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Terminal,
    /// The server's events as JSON lines, as `warden ask --json` prints them.
    JsonLines,
}

/// Reconnects to a broken event stream before giving up.
const RECONNECTS: u32 = 10;

/// A new session on the server; returns its id.
pub async fn create_session(
    client: &RemoteClient,
    title: &str,
    level: Option<ControlLevel>,
) -> Result<String> {
    let mut body = json!({"title": title.chars().take(60).collect::<String>()});
    if let Some(level) = level {
        body["control_level"] = json!(level.to_string());
    }
    let session = client.post("/api/sessions", &body).await?;
    session["id"]
        .as_str()
        .map(str::to_string)
        .context("the server created a session without an id")
}

/// Post `text` to `session_id` and follow the turn to its end.
pub async fn run_turn(
    client: &RemoteClient,
    session_id: &str,
    text: &str,
    output: Output,
    cancel: &CancelFlag,
) -> Result<TurnReading> {
    let posted = client
        .post(
            &format!("/api/sessions/{session_id}/messages"),
            &json!({"text": text}),
        )
        .await?;
    let turn = posted["turn"]
        .as_u64()
        .context("the server did not say which turn started")?;
    let paint = Paint::stderr();
    let interactive = output == Output::Terminal && std::io::stdin().is_terminal();
    let mut reading = TurnReading::default();
    let mut last_seq: Option<u64> = None;
    let mut in_turn = false;
    let mut cancel_sent = false;
    let mut reconnects = 0;
    'stream: loop {
        let mut events = match client.events(session_id, last_seq).await {
            Ok(events) => events,
            Err(error) if reconnects < RECONNECTS => {
                reconnects += 1;
                eprintln!("  … reconnecting to the server ({error:#})");
                tokio::time::sleep(Duration::from_millis(500 * u64::from(reconnects))).await;
                continue;
            }
            Err(error) => return Err(error),
        };
        loop {
            let next = tokio::select! {
                next = events.next() => next,
                () = cancel.cancelled(), if !cancel_sent => {
                    cancel_sent = true;
                    client.post(&format!("/api/sessions/{session_id}/cancel"), &json!({})).await?;
                    continue;
                }
            };
            let event = match next {
                Ok(Some(event)) => event,
                // The server went away mid-turn: resume where we were.
                Ok(None) | Err(_) if reconnects < RECONNECTS => {
                    reconnects += 1;
                    tokio::time::sleep(Duration::from_millis(500 * u64::from(reconnects))).await;
                    continue 'stream;
                }
                Ok(None) => bail!("the server closed the event stream before the turn ended"),
                Err(error) => return Err(error),
            };
            let Ok(data) = serde_json::from_str::<Value>(&event.data) else {
                continue;
            };
            if let Some(seq) = data["seq"].as_u64() {
                if last_seq.is_some_and(|last| seq <= last) {
                    continue; // replayed after a reconnect
                }
                last_seq = Some(seq);
            }
            let kind = data["type"].as_str().unwrap_or_default();
            if kind == "turn_start" {
                in_turn = data["turn"].as_u64() == Some(turn);
                continue;
            }
            if !in_turn {
                continue;
            }
            match output {
                Output::JsonLines => {
                    println!("{}", event.data);
                    reading.record(&data);
                }
                Output::Terminal => reading.show(&data, &paint),
            }
            if kind == "approval_needed" {
                let approval = &data["approval"];
                if interactive {
                    decide_on_terminal(client, approval, cancel).await?;
                } else {
                    if output == Output::Terminal {
                        print_pending(approval);
                    }
                    // Nobody here can answer: the turn waits on the server.
                    return Ok(reading);
                }
            }
            if kind == "done" && data["turn"].as_u64().is_none_or(|t| t == turn) {
                break 'stream;
            }
        }
    }
    Ok(reading)
}

fn print_pending(approval: &Value) {
    let id = approval["id"].as_str().unwrap_or("?");
    eprintln!(
        "approval needed ({}): {}\n  command: {}\n  target:  {}\n  it waits on the server: `warden approvals approve {id} --server …` or deny it.",
        approval["risk"].as_str().unwrap_or("?"),
        approval["description"].as_str().unwrap_or(""),
        approval["command"].as_str().unwrap_or(""),
        approval["target"].as_str().unwrap_or("")
    );
}

/// Ask on the terminal and post the decision; Ctrl-C leaves it pending
/// and cancels the turn.
async fn decide_on_terminal(
    client: &RemoteClient,
    approval: &Value,
    cancel: &CancelFlag,
) -> Result<()> {
    let id = approval["id"]
        .as_str()
        .context("an approval without an id")?;
    eprintln!(
        "\napproval needed ({}): {}\n  target:  {}\n  command: {}\n  expires: {}",
        approval["risk"].as_str().unwrap_or("?"),
        approval["description"].as_str().unwrap_or(""),
        approval["target"].as_str().unwrap_or(""),
        approval["command"].as_str().unwrap_or(""),
        approval["expires_at"].as_str().unwrap_or("?")
    );
    let mut editor = DefaultEditor::new().context("starting the line editor")?;
    let answer = match editor.readline("Run it? [y/N] ") {
        Ok(answer) => answer,
        Err(ReadlineError::Interrupted) => {
            cancel.cancel();
            return Ok(());
        }
        Err(_) => return Ok(()),
    };
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        client
            .post(&format!("/api/approvals/{id}/approve"), &json!({}))
            .await?;
        return Ok(());
    }
    let reason = editor
        .readline("Reason: ")
        .ok()
        .filter(|r| !r.trim().is_empty())
        .unwrap_or_else(|| "the operator said no".to_string());
    client
        .post(
            &format!("/api/approvals/{id}/deny"),
            &json!({"reason": reason.trim()}),
        )
        .await?;
    Ok(())
}

/// `warden ask --server`: one request, its exit code.
pub async fn ask(
    client: &RemoteClient,
    session: Option<&str>,
    text: &str,
    level: Option<ControlLevel>,
    output: Output,
    cancel: &CancelFlag,
) -> Result<AskExit> {
    let session_id = match session {
        Some(id) => id.to_string(),
        None => create_session(client, text, level).await?,
    };
    let reading = run_turn(client, &session_id, text, output, cancel).await?;
    if output == Output::Terminal {
        crate::ask_cmd::finish_text(&reading.streamed, reading.final_text.as_deref());
        if !reading.done && !reading.pending.is_empty() {
            eprintln!("session {session_id} waits for the approval on the server");
        }
    }
    Ok(reading.exit())
}

/// `warden approvals … --server`.
pub async fn approvals_list(client: &RemoteClient, state: &str, as_json: bool) -> Result<()> {
    let listed = client.get(&format!("/api/approvals?state={state}")).await?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&listed)?);
        return Ok(());
    }
    let items = listed.as_array().cloned().unwrap_or_default();
    if items.is_empty() {
        println!("no {state} approvals");
    }
    for a in items {
        println!(
            "{}  {}  on {}  risk {}  expires {}\n    {}",
            a["id"].as_str().unwrap_or("?"),
            a["tool"].as_str().unwrap_or("?"),
            a["target"].as_str().unwrap_or("?"),
            a["risk"].as_str().unwrap_or("?"),
            a["expires_at"].as_str().unwrap_or("?"),
            a["command"].as_str().unwrap_or("")
        );
    }
    Ok(())
}

pub async fn approvals_decide(
    client: &RemoteClient,
    id: &str,
    approve: bool,
    reason: Option<&str>,
) -> Result<Value> {
    let (path, body) = if approve {
        (
            format!("/api/approvals/{id}/approve"),
            json!({"reason": reason}),
        )
    } else {
        (
            format!("/api/approvals/{id}/deny"),
            json!({"reason": reason.unwrap_or("denied by the operator")}),
        )
    };
    let body = if reason.is_none() && approve {
        json!({})
    } else {
        body
    };
    client.post(&path, &body).await
}
