//! `warden sessions [list]` and `warden sessions show ID`: stored
//! conversations and their transcripts. Human output shows local times and
//! how long ago; `--json` keeps millisecond timestamps and is always valid
//! JSON (an empty list is `[]`).

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use warden_core::agent::provider::Message;

use crate::common::CommonArgs;
use crate::time_fmt::now_ms;
use crate::time_fmt::{local_rfc3339, when};

#[derive(Args)]
pub struct SessionsArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// How many, most recent first.
    #[arg(short = 'n', long, default_value_t = 20)]
    limit: usize,
    /// A JSON array.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Option<SessionsCommand>,
}

#[derive(Subcommand)]
enum SessionsCommand {
    /// Stored conversations, most recent first (the default).
    List,
    /// One conversation's stored transcript.
    Show {
        /// The session id (see `warden sessions`).
        id: String,
    },
}

pub fn run(args: &SessionsArgs) -> Result<ExitCode> {
    let config = args.common.load()?;
    let store = crate::common::open_store(config.db.value.clone())?;
    match &args.command {
        None | Some(SessionsCommand::List) => list(&store, args.limit, args.json),
        Some(SessionsCommand::Show { id }) => show(&store, id, args.json),
    }
}

fn list(store: &warden_store::Store, limit: usize, as_json: bool) -> Result<ExitCode> {
    let sessions = store.sessions(limit)?;
    if as_json {
        let rows: Vec<Value> = sessions
            .iter()
            .map(|s| {
                json!({
                    "id": s.id, "title": s.title, "messages": s.messages,
                    "created_at_ms": s.created_at_ms, "updated_at_ms": s.updated_at_ms,
                    "created_at": local_rfc3339(s.created_at_ms),
                    "updated_at": local_rfc3339(s.updated_at_ms),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    if sessions.is_empty() {
        println!("No conversations yet.");
    }
    let now = now_ms();
    for s in sessions {
        println!(
            "{:<34} {:>4} messages  last {}  {}",
            s.id,
            s.messages,
            when(s.updated_at_ms, now),
            s.title
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn show(store: &warden_store::Store, id: &str, as_json: bool) -> Result<ExitCode> {
    if !store.session_exists(id)? {
        bail!("no stored session `{id}` (see `warden sessions`)");
    }
    let mut messages = Vec::new();
    for (i, stored) in store.messages_with_times(id)?.into_iter().enumerate() {
        let at_ms = stored.at_ms;
        let message: Message = serde_json::from_str(&stored.json)
            .with_context(|| format!("session {id}: stored message {i} is corrupt"))?;
        messages.push((at_ms, message));
    }
    if as_json {
        let rows: Vec<Value> = messages
            .iter()
            .map(|(at_ms, message)| {
                let mut row = serde_json::to_value(message).unwrap_or(Value::Null);
                if let Some(object) = row.as_object_mut() {
                    object.insert("at_ms".into(), json!(at_ms));
                }
                row
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    let now = now_ms();
    for (at_ms, message) in &messages {
        let at = when(*at_ms, now);
        match message {
            Message::System { .. } => {}
            Message::User { text } => println!("[{at}] you: {text}"),
            Message::Assistant { text, tool_calls } => {
                for call in tool_calls {
                    println!("[{at}] → {} {}", call.name, call.arguments);
                }
                if let Some(text) = text.as_deref().filter(|t| !t.trim().is_empty()) {
                    println!("[{at}] warden: {text}");
                }
            }
            Message::Tool { name, content, .. } => {
                let ok = serde_json::from_str::<Value>(content)
                    .ok()
                    .and_then(|v| v.get("ok").and_then(Value::as_bool))
                    .unwrap_or(false);
                println!("[{at}]   {} {name}", if ok { "✓" } else { "✗" });
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
