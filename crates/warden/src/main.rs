//! `warden`: the command-line entry point.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod approvals_cmd;
mod audit_cmd;
mod classify_cmd;
mod replay;
mod storage;

#[derive(Parser)]
#[command(
    name = "warden",
    version,
    about = "An AI operator for self-hosted infrastructure that you can trust with a root shell"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Classify shell commands: read-only or not, interactive or not, catastrophic or not.
    Classify(classify_cmd::ClassifyArgs),
    /// Replay a scripted conversation through the real safety core (see shared/spec/replay.md).
    Replay(replay::ReplayArgs),
    /// The tamper-evident audit log: verify the hash chain, or show the last records.
    Audit(audit_cmd::AuditArgs),
    /// Pending write approvals: list, approve, deny.
    Approvals(approvals_cmd::ApprovalsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Classify(args) => classify_cmd::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Audit(args) => audit_cmd::run(args),
        Command::Approvals(args) => approvals_cmd::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("warden: {error:#}");
            ExitCode::from(2)
        }
    }
}
