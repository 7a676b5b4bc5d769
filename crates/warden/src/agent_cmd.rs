//! `warden agent …`: enroll this host, run the agent, install its systemd
//! unit, and the hidden sandbox launcher the agent starts for reads.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use warden_agent::identity::default_state_dir;
use warden_agent::names::default_agent_name;
use warden_agent::sandbox::{SandboxProfile, sandbox_and_exec};
use warden_agent::{AgentConfig, AgentError, EnrollOptions, Launcher, ServerTrust};
use warden_protocol::ControlLevel;

/// The unit file, with `@EXEC_START@` to fill in.
const UNIT_TEMPLATE: &str = include_str!("../../../packaging/warden-agent.service");
const UNIT_NAME: &str = "warden-agent.service";

/// `warden agent run` exits with this when the server refuses or revokes the
/// agent (the unit does not restart it then).
const EXIT_REJECTED: u8 = 3;

#[derive(Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    command: AgentCommand,
}

#[derive(Subcommand)]
enum AgentCommand {
    /// Enroll this host with a Warden server (once): generate its key, store its identity.
    Enroll(EnrollArgs),
    /// Connect to the server and run what it sends, within this agent's own policy.
    Run(RunArgs),
    /// Write the systemd unit that runs `warden agent run` (does not start it).
    Install(InstallArgs),
    /// The sandbox launcher for reads (internal).
    #[command(hide = true)]
    SandboxExec(SandboxExecArgs),
}

#[derive(Args)]
struct EnrollArgs {
    /// The server's base URL (https; http only on loopback).
    #[arg(long, value_name = "URL")]
    server: String,
    /// The one-time enrollment token from the server.
    #[arg(long, value_name = "TOKEN")]
    token: String,
    /// Trust exactly the server certificate with this SHA-256 fingerprint.
    #[arg(long, value_name = "SHA256", conflicts_with_all = ["ca_file", "insecure"])]
    fingerprint: Option<String>,
    /// Trust only certificates issued by the CAs in this PEM file.
    #[arg(long, value_name = "FILE", conflicts_with = "insecure")]
    ca_file: Option<PathBuf>,
    /// Accept any certificate (loopback servers only).
    #[arg(long)]
    insecure: bool,
    /// The agent's name, its host id `host:NAME` (default: the hostname).
    #[arg(long)]
    name: Option<String>,
    /// Where the identity is kept (default: /var/lib/warden-agent as root).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

#[derive(Args)]
struct RunArgs {
    /// Where the identity is kept (default: /var/lib/warden-agent as root).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Overrides the enrolled name (for tests).
    #[arg(long)]
    name: Option<String>,
    /// The most this agent will ever do, whatever the server says.
    #[arg(long, value_name = "LEVEL", default_value = "controlled", value_parser = parse_level)]
    max_level: ControlLevel,
    /// Seconds of server silence after which the connection counts as dead
    /// (default: three heartbeat intervals).
    #[arg(long, value_name = "SECS")]
    heartbeat_timeout: Option<u64>,
    /// Seconds between `metrics` frames (this host's and its containers'
    /// metrics); 0 sends none.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    metrics_interval_secs: u64,
}

#[derive(Args)]
struct InstallArgs {
    /// The state directory the unit passes to `warden agent run`.
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Where the unit file goes.
    #[arg(long, value_name = "DIR", default_value = "/etc/systemd/system")]
    unit_dir: PathBuf,
    /// The level the unit runs the agent with.
    #[arg(long, value_name = "LEVEL", default_value = "controlled", value_parser = parse_level)]
    max_level: ControlLevel,
}

#[derive(Clone, Copy, ValueEnum)]
enum LandlockProfile {
    ReadOnly,
}

#[derive(Args)]
struct SandboxExecArgs {
    #[arg(long, value_enum)]
    landlock: LandlockProfile,
    /// The command and its arguments, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

fn parse_level(text: &str) -> Result<ControlLevel, String> {
    text.parse()
        .map_err(|err: warden_protocol::UnknownControlLevel| err.to_string())
}

pub fn run(args: AgentArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        AgentCommand::Enroll(args) => enroll(args),
        AgentCommand::Run(args) => run_agent(args),
        AgentCommand::Install(args) => install(&args),
        AgentCommand::SandboxExec(args) => Ok(sandbox_exec(args)),
    }
}

fn enroll(args: EnrollArgs) -> anyhow::Result<ExitCode> {
    let trust = match (args.fingerprint, args.ca_file, args.insecure) {
        (Some(sha256), _, _) => ServerTrust::Fingerprint { sha256 },
        (None, Some(path), _) => ServerTrust::CaFile { path },
        (None, None, true) => ServerTrust::InsecureLoopback,
        (None, None, false) => ServerTrust::SystemRoots,
    };
    let state_dir = args.state_dir.unwrap_or_else(default_state_dir);
    let options = EnrollOptions {
        server: args.server,
        token: args.token,
        trust,
        name: args.name.unwrap_or_else(default_agent_name),
        state_dir: state_dir.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let identity = runtime.block_on(warden_agent::enroll(options))?;
    println!(
        "enrolled {} as {} with {}; identity in {}",
        identity.name,
        identity.agent_id,
        identity.server_url,
        state_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn run_agent(args: RunArgs) -> anyhow::Result<ExitCode> {
    init_logging();
    let warden = std::env::current_exe().context("finding this executable for the sandbox")?;
    let mut config = AgentConfig::new(
        args.state_dir.unwrap_or_else(default_state_dir),
        Launcher::warden_subcommand(warden.clone()),
    )
    .launching(crate::common::this_program_launches());
    // Said at every start: which mode keeps the agent's key from commands.
    let mode = config.confinement.mode();
    match mode {
        warden_confine::Mode::Namespaces => eprintln!("warden agent: {}", mode.describe()),
        warden_confine::Mode::PolicyOnly { .. } | warden_confine::Mode::Off => {
            eprintln!("warden agent: WARNING: {}", mode.describe());
        }
    }
    config.name = args.name;
    config.max_level = args.max_level;
    config.heartbeat_timeout = args.heartbeat_timeout.map(Duration::from_secs);
    config.metrics_interval =
        (args.metrics_interval_secs > 0).then(|| Duration::from_secs(args.metrics_interval_secs));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let outcome = runtime.block_on(async {
        let (trigger, signal) = warden_agent::shutdown_channel();
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .context("listening for SIGTERM")?;
        tokio::spawn(async move {
            tokio::select! {
                _ = terminate.recv() => {}
                result = tokio::signal::ctrl_c() => { result.ok(); }
            }
            trigger.trigger();
        });
        Ok::<_, anyhow::Error>(warden_agent::run(config, signal).await)
    })?;
    match outcome {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(err @ AgentError::Rejected { .. }) => {
            eprintln!("warden: {err}");
            Ok(ExitCode::from(EXIT_REJECTED))
        }
        Err(err) => Err(err.into()),
    }
}

fn install(args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let warden = std::env::current_exe().context("finding this executable")?;
    let state_dir = args.state_dir.clone().unwrap_or_else(default_state_dir);
    let unit = render_unit(&warden, &state_dir, args.max_level);
    if !args.unit_dir.is_dir() {
        bail!("{} is not a directory", args.unit_dir.display());
    }
    let path = args.unit_dir.join(UNIT_NAME);
    std::fs::write(&path, unit).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    if !state_dir
        .join(warden_agent::identity::IDENTITY_FILE)
        .exists()
    {
        println!("this host is not enrolled yet: warden agent enroll --server URL --token TOKEN");
    }
    println!("then: systemctl daemon-reload && systemctl enable --now {UNIT_NAME}");
    Ok(ExitCode::SUCCESS)
}

/// The unit text for running `warden` from `state_dir` at `level`.
fn render_unit(warden: &Path, state_dir: &Path, level: ControlLevel) -> String {
    let words = [
        warden.to_string_lossy().into_owned(),
        "agent".into(),
        "run".into(),
        "--state-dir".into(),
        state_dir.to_string_lossy().into_owned(),
        "--max-level".into(),
        level.as_str().into(),
    ];
    let exec_start = words
        .iter()
        .map(|w| systemd_quote(w))
        .collect::<Vec<_>>()
        .join(" ");
    UNIT_TEMPLATE.replace("@EXEC_START@", &exec_start)
}

/// One word of a systemd command line: `%` and `$` are specifiers and
/// variables there, so they are doubled; words with spaces, quotes or
/// backslashes are double-quoted with `"` and `\` escaped.
fn systemd_quote(word: &str) -> String {
    let escaped = word.replace('%', "%%").replace('$', "$$");
    let plain = !escaped.is_empty()
        && !escaped
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | ';'));
    if plain {
        escaped
    } else {
        format!("\"{}\"", escaped.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// Becomes the command, sandboxed; returns only on failure.
fn sandbox_exec(args: SandboxExecArgs) -> ExitCode {
    let profile = match args.landlock {
        LandlockProfile::ReadOnly => SandboxProfile::ReadOnly,
    };
    let error = sandbox_and_exec(profile, &args.command, &mut std::io::stdout());
    eprintln!("warden agent sandbox-exec: {error}");
    ExitCode::from(127)
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init()
        .ok();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_runs_this_binary_with_the_state_dir_and_level() {
        let unit = render_unit(
            Path::new("/usr/local/bin/warden"),
            Path::new("/var/lib/warden-agent"),
            ControlLevel::ReadOnly,
        );
        assert!(unit.contains(
            "\nExecStart=/usr/local/bin/warden agent run --state-dir /var/lib/warden-agent --max-level read_only\n"
        ));
        assert!(!unit.contains("@EXEC_START@"));
        assert!(unit.contains("RestartPreventExitStatus=3"));
        assert!(unit.contains("KillMode=mixed"));
    }

    #[test]
    fn odd_paths_are_quoted_for_systemd() {
        assert_eq!(systemd_quote("/opt/warden"), "/opt/warden");
        assert_eq!(
            systemd_quote("/opt/my tools/warden"),
            "\"/opt/my tools/warden\""
        );
        assert_eq!(systemd_quote("/srv/100%"), "/srv/100%%");
        assert_eq!(systemd_quote("a\"b"), "\"a\\\"b\"");
        assert_eq!(systemd_quote("$HOME"), "$$HOME");
    }
}
