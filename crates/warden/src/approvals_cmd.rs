//! `warden approvals list|approve|deny`: decide on pending writes from the
//! command line, as `user:$USER`, with a reason; each decision is audited.
//! The session that asked runs the stored call once approved.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::{Args, Subcommand};
use warden_core::ports::{ApprovalState, ApprovalStore};
use warden_store::Store;

use crate::storage::{self, SqliteApprovals};

#[derive(Args)]
pub struct ApprovalsArgs {
    /// The database (default: $WARDEN_DB or ~/.local/share/warden/warden.db).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    command: ApprovalsCommand,
}

#[derive(Subcommand)]
enum ApprovalsCommand {
    /// Approval requests, oldest first (pending ones unless --state says otherwise). Marks
    /// those past their expiry expired first.
    List {
        /// pending, approved, denied, expired or consumed.
        #[arg(long, default_value = "pending")]
        state: ApprovalState,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Approve a request: its exact call may run once. Recorded as yours (user:$USER).
    Approve {
        id: String,
        /// Why: recorded with the decision and in the audit log.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Deny a request, with a reason the model will see. Recorded as yours (user:$USER).
    Deny {
        id: String,
        #[arg(long, default_value = "denied by the operator")]
        reason: String,
    },
}

pub fn run(args: ApprovalsArgs) -> Result<ExitCode> {
    // The same database as chat/ask: flag, then WARDEN_DB, then the config file.
    let config = crate::config::Config::load(&crate::config::Overrides {
        db: args.db.clone(),
        ..Default::default()
    })?;
    let store = storage::open(config.db.value)?;
    let now = storage::now_ms();
    match args.command {
        ApprovalsCommand::List { state, json } => {
            // Listing still works when the sweep cannot be audited.
            if let Err(error) = store.expire_approvals(now) {
                eprintln!("warden: expired approvals were not marked expired: {error}");
            }
            let approvals = store.approvals(Some(state))?;
            if approvals.is_empty() && !json {
                println!("no {state} approvals");
            }
            for approval in approvals {
                if json {
                    println!("{}", serde_json::to_string(&approval)?);
                } else {
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
        ApprovalsCommand::Approve { id, reason } => {
            decide(&store, &id, ApprovalState::Approved, reason, now)
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
