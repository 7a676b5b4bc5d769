//! `warden approvals list|approve|deny`: decide on pending writes from the
//! command line, as `user:$USER`, with a reason; each decision is audited.
//! The process that asked has ended by then (`warden ask` leaves a request
//! pending when nobody can answer), so an approval given here runs the
//! stored call at once: every gate again, the target re-resolved from the
//! live inventory, then a verification read, all shown and audited.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::{Args, Subcommand};
use warden_core::ports::{ApprovalState, ApprovalStore};
use warden_store::Store;

use warden_world::storage::SqliteApprovals;

use crate::time_fmt::now_ms;

#[derive(Args)]
pub struct ApprovalsArgs {
    /// The database (default: $WARDEN_DB or ~/.local/share/warden/warden.db).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    command: ApprovalsCommand,
    #[command(flatten)]
    remote: crate::remote::RemoteArgs,
}

#[derive(Subcommand)]
enum ApprovalsCommand {
    /// Approval requests, oldest first (pending ones unless --state says otherwise). Marks
    /// those past their expiry expired first.
    List {
        /// pending, approved, denied, expired or consumed.
        #[arg(long, default_value = "pending")]
        state: ApprovalState,
        /// A JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Approve a request and run its exact stored call now, then verify it. Recorded as
    /// yours (user:$USER).
    Approve {
        id: String,
        /// Why: recorded with the decision and in the audit log.
        #[arg(long)]
        reason: Option<String>,
        /// Only record the approval; do not run the call here.
        #[arg(long)]
        no_run: bool,
    },
    /// Deny a request, with a reason the model will see. Recorded as yours (user:$USER).
    Deny {
        id: String,
        #[arg(long, default_value = "denied by the operator")]
        reason: String,
    },
}

pub fn run(args: ApprovalsArgs) -> Result<ExitCode> {
    if let Some(client) = args.remote.client()? {
        return run_remote(&client, args.command);
    }
    // The same database as chat/ask: flag, then WARDEN_DB, then the config file.
    let config = warden_world::Config::load(&warden_world::Overrides {
        db: args.db.clone(),
        ..Default::default()
    })?;
    let store = crate::common::open_store(config.db.value.clone())?;
    let now = now_ms();
    match args.command {
        ApprovalsCommand::List { state, json } => {
            // Listing still works when the sweep cannot be audited.
            if let Err(error) = store.expire_approvals(now) {
                eprintln!("warden: expired approvals were not marked expired: {error}");
            }
            let approvals = store.approvals(Some(state))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&approvals)?);
                return Ok(ExitCode::SUCCESS);
            }
            if approvals.is_empty() {
                println!("no {state} approvals");
            }
            for approval in approvals {
                {
                    let when = match approval.state {
                        ApprovalState::Pending | ApprovalState::Approved => format!(
                            "expires in {}s",
                            approval.expires_at_ms.saturating_sub(now) / 1000
                        ),
                        ApprovalState::Denied
                        | ApprovalState::Expired
                        | ApprovalState::Consumed => approval.state.to_string(),
                    };
                    let by = approval
                        .decided_by
                        .as_deref()
                        .map(|who| format!("  by {who}"))
                        .unwrap_or_default();
                    println!(
                        "{}  {}  on {}  risk {}  {when}{by}\n    {}",
                        approval.id,
                        approval.tool,
                        approval.target,
                        approval.risk,
                        approval.command
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ApprovalsCommand::Approve { id, reason, no_run } => {
            let decided = decide(&store, &id, ApprovalState::Approved, reason, now)?;
            if decided != ExitCode::SUCCESS || no_run {
                return Ok(decided);
            }
            drop(store);
            run_stored(config, &id)
        }
        ApprovalsCommand::Deny { id, reason } => {
            decide(&store, &id, ApprovalState::Denied, Some(reason), now)
        }
    }
}

fn decide(
    store: &Arc<Store>,
    id: &str,
    state: ApprovalState,
    reason: Option<String>,
    now: u64,
) -> Result<ExitCode> {
    let approvals = SqliteApprovals::new(Arc::clone(store));
    match approvals.decide(id, state, reason, now) {
        Ok(approval) => {
            println!(
                "{id}: {} by {}: {} on {}",
                approval.state,
                approval.decided_by.as_deref().unwrap_or("?"),
                approval.command,
                approval.target
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("warden: {error}");
            Ok(ExitCode::from(1))
        }
    }
}

/// Run an approved call whose session is gone, and show what happened.
fn run_stored(config: warden_world::Config, id: &str) -> Result<ExitCode> {
    let local = crate::local::Local::open(config)?;
    crate::common::cancel_on_ctrl_c(&local.cancel)?;
    let world = &local.world;
    let executor = world.backends.executor(
        world
            .turn
            .settings(warden_protocol::ControlLevel::Controlled),
    );
    let at = warden_core::executor::Moment {
        session: std::time::Duration::ZERO,
        wall_ms: now_ms(),
    };
    let run = local.runtime.block_on(executor.run_stored_approval(id, at));
    let outcome = &run.outcome.response;
    for exec in &run.outcome.execs {
        println!(
            "ran on {}: {} (exit {})",
            exec.target, exec.command, exec.exit_code
        );
    }
    match &outcome.error {
        None => println!("{id}: the approved call ran."),
        Some(error) => println!("{id}: {} ({})", error.message, error.code),
    }
    if let Some(data) = outcome.data.as_ref().filter(|d| d.get("stdout").is_none()) {
        println!("{}", crate::result_summary::summarise(data));
    }
    if let Some(verification) = &run.verification {
        let shown = match (&verification.response.data, &verification.response.error) {
            (Some(data), _) => crate::result_summary::summarise(data),
            (None, Some(error)) => format!("the check failed: {} ({})", error.message, error.code),
            (None, None) => String::new(),
        };
        println!("verification:\n{}", shown.trim_end());
    }
    Ok(if outcome.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(4)
    })
}

/// The same commands against a server's approvals API.
fn run_remote(client: &crate::remote::RemoteClient, command: ApprovalsCommand) -> Result<ExitCode> {
    use crate::remote::session::{approvals_decide, approvals_list};
    let runtime = crate::common::runtime()?;
    match command {
        ApprovalsCommand::List { state, json } => {
            runtime.block_on(approvals_list(client, state.as_str(), json))?;
        }
        ApprovalsCommand::Approve { id, reason, .. } => {
            // The waiting turn runs it; when its session is gone, `…/run`
            // does (the server refuses that while the session is live).
            let approval =
                runtime.block_on(approvals_decide(client, &id, true, reason.as_deref()))?;
            println!(
                "{id}: {} by {}",
                approval.state,
                approval.decided_by.as_deref().unwrap_or("?")
            );
            std::thread::sleep(std::time::Duration::from_millis(500));
            let current: warden_protocol::views::ApprovalView =
                runtime.block_on(client.get_as(&format!("/api/approvals/{id}")))?;
            if current.state == warden_protocol::views::ApprovalStateView::Approved {
                match runtime.block_on(
                    client.post(&format!("/api/approvals/{id}/run"), &serde_json::json!({})),
                ) {
                    Ok(ran) => print_remote_run(&id, &ran),
                    Err(error) => eprintln!("warden: not run from here: {error:#}"),
                }
            }
        }
        ApprovalsCommand::Deny { id, reason } => {
            let approval = runtime.block_on(approvals_decide(client, &id, false, Some(&reason)))?;
            println!(
                "{id}: {} by {}",
                approval.state,
                approval.decided_by.as_deref().unwrap_or("?")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What running an approval on the server did, in words.
fn print_remote_run(id: &str, ran: &serde_json::Value) {
    let outcome: Result<warden_protocol::ToolResponse, _> =
        serde_json::from_value(ran["outcome"].clone());
    match outcome {
        Ok(response) => match &response.error {
            None => {
                println!("{id}: the approved call ran on the server.");
                if let Some(data) = response.data.as_ref() {
                    let shown = crate::result_summary::summarise(data);
                    if !shown.trim().is_empty() {
                        println!("{}", shown.trim_end());
                    }
                }
            }
            Some(error) => println!("{id}: {} ({})", error.message, error.code),
        },
        Err(_) => println!("{id}: the server ran it; its answer was not a tool response."),
    }
    let verification = &ran["verification"];
    if !verification.is_null() {
        let shown = match (
            &verification["data"],
            verification["error"]["message"].as_str(),
        ) {
            (data, _) if !data.is_null() => crate::result_summary::summarise(data),
            (_, Some(message)) => format!("the check failed: {message}"),
            _ => String::new(),
        };
        println!("verification:\n{}", shown.trim_end());
    }
}
