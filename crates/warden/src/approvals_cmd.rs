//! `warden approvals list|approve|deny`: decide on pending writes from the
//! command line. The session that asked runs the stored call once approved.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use warden_core::ports::{ApprovalState, ApprovalStore};

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
    /// Pending requests, oldest first.
    List {
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Approve a request: its exact call may run once.
    Approve { id: String },
    /// Deny a request, with a reason the model will see.
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
        ApprovalsCommand::List { json } => {
            let pending = store.pending_approvals(now)?;
            if pending.is_empty() && !json {
                println!("no pending approvals");
            }
            for approval in pending {
                if json {
                    println!("{}", serde_json::to_string(&approval)?);
                } else {
                    let left = approval.expires_at_ms.saturating_sub(now) / 1000;
                    println!(
                        "{}  {}  on {}  risk {}  expires in {left}s\n    {}",
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
        ApprovalsCommand::Approve { id } => decide(&store, &id, ApprovalState::Approved, None, now),
        ApprovalsCommand::Deny { id, reason } => {
            decide(&store, &id, ApprovalState::Denied, Some(reason), now)
        }
    }
}

fn decide(
    store: &std::sync::Arc<warden_store::Store>,
    id: &str,
    state: ApprovalState,
    reason: Option<String>,
    now: u64,
) -> Result<ExitCode> {
    let approvals = SqliteApprovals(std::sync::Arc::clone(store));
    match approvals.decide(id, state, reason, now) {
        Ok(approval) => {
            println!(
                "{id}: {:?}: {} on {}",
                approval.state, approval.command, approval.target
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("warden: {error}");
            Ok(ExitCode::from(1))
        }
    }
}
