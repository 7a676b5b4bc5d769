//! `warden`: the command-line entry point.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod accounts_cmd;
mod agent_cmd;
mod approvals_cmd;
mod approver;
mod ask_cmd;
mod audit_cmd;
mod chat_cmd;
mod classify_cmd;
mod common;
mod display;
mod edit_diff;
mod exit_codes;
mod explain_cmd;
mod inventory_cmd;
mod local;
mod remote;
mod repl;
mod replay;
mod result_summary;
mod serve_cmd;
mod serve_world;
mod sessions_cmd;
mod style;
mod ticker;
mod time_fmt;
mod usage_cmd;

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
    /// Talk to Warden about your machines (a REPL; works without any model).
    Chat(chat_cmd::ChatArgs),
    /// One request, one answer: `warden ask "disk usage"` (`--json` for stream events).
    Ask(ask_cmd::AskArgs),
    /// Which route a request takes and what the executor would allow, without running anything.
    Explain(explain_cmd::ExplainArgs),
    /// Tokens and estimated cost per provider and model.
    Usage(usage_cmd::UsageArgs),
    /// Stored conversations, most recent first; `sessions show ID` prints one transcript.
    Sessions(sessions_cmd::SessionsArgs),
    /// The effective configuration.
    Config(usage_cmd::ConfigArgs),
    /// Classify shell commands: read-only or not, interactive or not, catastrophic or not.
    Classify(classify_cmd::ClassifyArgs),
    /// Replay a scripted conversation through the real safety core (see shared/spec/replay.md).
    Replay(replay::ReplayArgs),
    /// The tamper-evident audit log: verify the hash chain, or show the last records.
    Audit(audit_cmd::AuditArgs),
    /// Pending write approvals: list, approve, deny.
    Approvals(approvals_cmd::ApprovalsArgs),
    /// The host agent: enroll, run, install its systemd unit.
    Agent(agent_cmd::AgentArgs),
    /// What Warden knows exists: this machine and every configured Proxmox cluster.
    Inventory(inventory_cmd::InventoryArgs),
    /// The control plane: HTTP API, live sessions over SSE, approvals, metrics.
    Serve(serve_cmd::ServeArgs),
    /// The server's users (offline, on the data directory): add, passwd, list.
    User(accounts_cmd::UserArgs),
    /// The server's API tokens (offline, on the data directory): create, list, revoke.
    Token(accounts_cmd::TokenArgs),
}

/// A reader that closed the pipe (`warden … | head`) is not an error.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind())
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    // First: the confinement launcher and the commands' watchdog must not
    // parse Warden's arguments.
    common::run_as_launcher_if_asked();
    common::harden_this_process();
    common::run_as_watchdog_if_asked();
    quiet_on_broken_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Chat(args) => chat_cmd::run(&args),
        Command::Ask(args) => ask_cmd::run(&args),
        Command::Explain(args) => explain_cmd::run(&args),
        Command::Usage(args) => usage_cmd::usage(&args),
        Command::Sessions(args) => sessions_cmd::run(&args),
        Command::Config(args) => usage_cmd::config(&args),
        Command::Classify(args) => classify_cmd::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Audit(args) => audit_cmd::run(args),
        Command::Approvals(args) => approvals_cmd::run(args),
        Command::Agent(args) => agent_cmd::run(args),
        Command::Inventory(args) => inventory_cmd::run(&args),
        Command::Serve(args) => serve_cmd::run(&args),
        Command::User(args) => accounts_cmd::user(args),
        Command::Token(args) => accounts_cmd::token(args),
    };
    // A terminating signal arrived: its thread stops the commands, says so,
    // and exits as the signal says; this one waits for it (bounded).
    if let Some(signal) = common::terminating_signal() {
        std::thread::sleep(std::time::Duration::from_secs(10));
        common::stop_commands();
        return ExitCode::from(u8::try_from(128 + signal).unwrap_or(255));
    }
    // No command outlives Warden (normally none is left by now).
    common::stop_commands();
    match result {
        Ok(code) => code,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("warden: {error:#}");
            ExitCode::from(2)
        }
    }
}
