//! `warden audit verify` and `warden audit tail`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::storage;

#[derive(Args)]
pub struct AuditArgs {
    /// The database (default: $WARDEN_DB or ~/.local/share/warden/warden.db).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    command: AuditCommand,
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Recompute the hash chain; exit 1 and name the first broken record if it was tampered with.
    Verify,
    /// Print the last records.
    Tail {
        /// How many records.
        #[arg(short = 'n', long, default_value_t = 20)]
        lines: usize,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: AuditArgs) -> Result<ExitCode> {
    // The same database as chat/ask: flag, then WARDEN_DB, then the config file.
    let config = crate::config::Config::load(&crate::config::Overrides {
        db: args.db.clone(),
        ..Default::default()
    })?;
    let store = storage::open(config.db.value)?;
    match args.command {
        AuditCommand::Verify => match store.verify_audit()? {
            Ok(count) => {
                println!("audit log intact: {count} records, hash chain verified");
                Ok(ExitCode::SUCCESS)
            }
            Err(broken) => {
                println!("AUDIT LOG TAMPERED: {broken}");
                Ok(ExitCode::from(1))
            }
        },
        AuditCommand::Tail { lines, json } => {
            for entry in store.audit_tail(lines)? {
                if json {
                    println!("{}", serde_json::to_string(&entry)?);
                } else {
                    let r = &entry.record;
                    println!(
                        "#{} {} {} {} {}{} {}",
                        entry.seq,
                        entry.at_ms,
                        r.decision,
                        r.tool,
                        r.target.as_deref().unwrap_or("-"),
                        r.code
                            .as_deref()
                            .map(|c| format!(" [{c}]"))
                            .unwrap_or_default(),
                        r.summary
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
