//! `warden audit verify|export|tail|reanchor`: check the tamper-evident log
//! (in the database, or an export offline), export it as JSONL, show the
//! newest records, or accept a log that no longer matches its anchor.

use std::fs::OpenOptions;
use std::io::{BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use warden_store::{AuditVerification, Store};

use warden_world::storage;

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
    /// Check every record's hash, the sequence numbers and the head anchor; exit 1 and name
    /// the first untrusted record if the log was tampered with.
    Verify {
        /// Check an export (`warden audit export`) offline instead of the database.
        #[arg(long, value_name = "FILE.jsonl")]
        file: Option<PathBuf>,
        /// Print the report as JSON (the shape of GET /api/audit/verify).
        #[arg(long)]
        json: bool,
    },
    /// Write the whole log as JSONL: a header line with the head anchor, then one record per
    /// line with its prev_hash and hash. `warden audit verify --file` checks it offline.
    Export {
        /// Write to this new file (0600) instead of standard output.
        #[arg(long, value_name = "FILE.jsonl")]
        file: Option<PathBuf>,
    },
    /// Print the last records.
    Tail {
        /// How many records.
        #[arg(short = 'n', long, default_value_t = 20)]
        lines: usize,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Accept the log as it is now (after `verify` explained why it no longer matches its
    /// anchor, e.g. a database moved or restored on purpose). Audited, with the reason.
    Reanchor {
        /// Why: recorded in the log.
        #[arg(long)]
        reason: String,
    },
}

fn open_store(db: Option<PathBuf>) -> Result<Arc<Store>> {
    // The same database as chat/ask: flag, then WARDEN_DB, then the config file.
    let config = warden_world::Config::load(&warden_world::Overrides {
        db,
        ..Default::default()
    })?;
    crate::common::open_store(config.db.value)
}

pub fn run(args: AuditArgs) -> Result<ExitCode> {
    match args.command {
        AuditCommand::Verify {
            file: Some(file),
            json,
        } => {
            let opened = std::fs::File::open(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let report = warden_store::verify_audit_export(BufReader::new(opened));
            print_report(&report, json, &format!("export {}", file.display()))
        }
        AuditCommand::Verify { file: None, json } => {
            let report = open_store(args.db)?.verify_audit()?;
            print_report(&report, json, "audit log")
        }
        AuditCommand::Export { file } => {
            let store = open_store(args.db)?;
            match file {
                Some(path) => export_to_file(&store, &path),
                None => {
                    let stdout = std::io::stdout();
                    let mut out = stdout.lock();
                    store.export_audit(&mut out)?;
                    Ok(ExitCode::SUCCESS)
                }
            }
        }
        AuditCommand::Tail { lines, json } => {
            let entries = open_store(args.db)?.audit_tail(lines)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&entries)?);
                return Ok(ExitCode::SUCCESS);
            }
            for entry in entries {
                {
                    let r = &entry.record;
                    println!(
                        "#{} {} {} {} {} {}{} {}{}",
                        entry.seq,
                        entry.at,
                        r.actor,
                        r.decision,
                        r.tool,
                        r.target.as_deref().unwrap_or("-"),
                        r.code
                            .as_deref()
                            .map(|c| format!(" [{c}]"))
                            .unwrap_or_default(),
                        r.command,
                        r.reason
                            .as_deref()
                            .map(|why| format!(" ({why})"))
                            .unwrap_or_default(),
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        AuditCommand::Reanchor { reason } => {
            let store = open_store(args.db)?;
            let entry = store.reanchor_audit(
                &storage::local_operator(),
                &reason,
                crate::time_fmt::now_ms(),
            )?;
            println!(
                "audit log re-anchored at record {} by {}; recorded as record {}",
                entry.seq - 1,
                entry.record.actor,
                entry.seq
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn export_to_file(store: &Store, path: &Path) -> Result<ExitCode> {
    // A new file only: an export is evidence, never overwritten.
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    let summary = store.export_audit(&mut file)?;
    file.sync_all()
        .with_context(|| format!("writing {}", path.display()))?;
    eprintln!("exported {} records to {}", summary.records, path.display());
    Ok(ExitCode::SUCCESS)
}

fn print_report(report: &AuditVerification, json: bool, what: &str) -> Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string(report)?);
    } else if let Some(problem) = &report.problem {
        let at = report
            .at_seq
            .map(|seq| format!(" (first untrusted record: {seq})"))
            .unwrap_or_default();
        println!("AUDIT LOG TAMPERED: {problem}{at}");
    } else {
        println!(
            "{what} intact: {} records, hash chain and head anchor verified (head {} at record {})",
            report.records, report.head_hash, report.head_seq
        );
        if report.anchor_lag > 0 {
            println!(
                "note: the head anchor was {} record(s) behind (a writer stopped between its commit and the anchor update); the records chain from it and the anchor was moved up",
                report.anchor_lag
            );
        }
        if report.legacy_records > 0 {
            println!(
                "note: {} records predate schema version 3: their hashes cover neither their sequence number nor their time",
                report.legacy_records
            );
        }
    }
    let mut stdout = std::io::stdout();
    stdout.flush()?;
    Ok(if report.intact {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
