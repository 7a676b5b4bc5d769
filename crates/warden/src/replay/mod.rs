//! `warden replay FILE.yaml --json`: one scripted conversation through the
//! real session, loop, FSM, executor, command policy and approval flow.
//! Only the model (a script) and the hosts (an answer table) are simulated.
//! `exec` events carry the command as the target received it, with the
//! target being the resource it runs on (a guest's control command runs on
//! its node; a container's logs are read on its Docker host). Calls that
//! Proxmox answers through its API (guest power, snapshots, history,
//! storage, backups) are answered by a simulated API from the same `exec`
//! table and appear as the node's command line would say them: `pct stop
//! 141` on `node:pve1`, `qm snapshot 101 NAME`, `pvesh get …/rrddata …`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;
use warden_core::agent::provider::ScriptedProvider;
use warden_core::agent::{
    Conversation, Decision, FixedApprover, LoopEvent, LoopLimits, TurnContext, run_turn,
};
use warden_core::executor::{Executor, Moment, Ports, Session, Settings};
use warden_core::simulated::SimulatedGuestApi;
use warden_protocol::FsmState;
use warden_store::Store;

pub(crate) mod scenario;

use warden_world::storage::{SqliteApprovals, SqliteAudit};

use scenario::{ApprovalMode, Scenario};

#[derive(Args)]
pub struct ReplayArgs {
    /// A scenario file, or a directory of them (`*.yaml`, `*.yml`).
    path: PathBuf,
    /// Print the JSON transcript (one per file).
    #[arg(long)]
    json: bool,
    /// Keep approvals and the audit log in this SQLite database (default: in memory).
    #[arg(long)]
    db: Option<PathBuf>,
}

#[derive(Serialize)]
pub struct Transcript {
    pub scenario: String,
    pub events: Vec<LoopEvent>,
    pub final_text: Option<String>,
    pub final_fsm_state: FsmState,
}

pub fn run(args: &ReplayArgs) -> Result<ExitCode> {
    let store = match &args.db {
        Some(path) => crate::common::open_store(Some(path.clone()))?,
        None => Arc::new(Store::open_in_memory()?),
    };
    if args.path.is_dir() {
        return run_dir(&args.path, args.json, &store);
    }
    let transcript = replay_file(&args.path, &store)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &transcript)?;
        writeln!(out)?;
    } else {
        print_summary(&mut out, &args.path, &transcript)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_dir(dir: &Path, json: bool, store: &Arc<Store>) -> Result<ExitCode> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    for file in &files {
        match replay_file(file, store) {
            Ok(transcript) if json => {
                serde_json::to_writer(&mut out, &transcript)?;
                writeln!(out)?;
            }
            Ok(transcript) => print_summary(&mut out, file, &transcript)?,
            Err(error) => {
                failed += 1;
                writeln!(out, "{}: INVALID: {error:#}", file.display())?;
            }
        }
    }
    if !json {
        writeln!(
            out,
            "{} scenarios replayed, {failed} invalid",
            files.len() - failed
        )?;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

fn print_summary(out: &mut impl Write, path: &Path, t: &Transcript) -> std::io::Result<()> {
    let calls = t
        .events
        .iter()
        .filter(|e| matches!(e, LoopEvent::ToolResult { .. }))
        .count();
    let blocked: Vec<String> = t
        .events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolResult {
                index,
                error_code: Some(code),
                ..
            } => Some(format!("#{index} {code}")),
            _ => None,
        })
        .collect();
    let execs = t
        .events
        .iter()
        .filter(|e| matches!(e, LoopEvent::Exec { .. }))
        .count();
    let answer = if t
        .events
        .iter()
        .any(|e| matches!(e, LoopEvent::PhantomDetected))
    {
        ", answer retracted"
    } else if t
        .events
        .iter()
        .any(|e| matches!(e, LoopEvent::AnswerUnverified { .. }))
    {
        ", answer unverified"
    } else {
        ""
    };
    writeln!(
        out,
        "{}: {}: {calls} tool calls, {execs} commands ran, refused/failed: [{}], final state {}{answer}",
        path.display(),
        t.scenario,
        blocked.join(", "),
        t.final_fsm_state
    )
}

/// Replay one file.
pub fn replay_file(path: &Path, store: &Arc<Store>) -> Result<Transcript> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let scenario = Scenario::parse(&text, &path.display().to_string())?;
    replay(&scenario, store)
}

pub fn replay(scenario: &Scenario, store: &Arc<Store>) -> Result<Transcript> {
    let inventory = scenario.static_inventory();
    let hosts = scenario.simulated_hosts()?;
    let guest_api = SimulatedGuestApi::new(&hosts);
    // Scripted decisions are the scenario's, not the local user's.
    let approvals = SqliteApprovals::with_operator(Arc::clone(store), "replay");
    let audit = SqliteAudit(Arc::clone(store));
    let notes = warden_core::ports::MemoryNotes::default();
    let executor = Executor::new(
        Settings {
            control_level: scenario.control_level,
            strict_resolution: scenario.strict_resolution,
            snapshots: scenario.snapshot_policy(),
            ..Settings::default()
        },
        Ports {
            inventory: &inventory,
            hosts: &hosts,
            approvals: &approvals,
            audit: &audit,
            notes: &notes,
        },
    )
    .with_guest_api(&guest_api);
    let mut session = Session::new(format!("replay-{}", scenario.name));
    let mut approver = FixedApprover(match scenario.approvals {
        ApprovalMode::Approve => Decision::Approve,
        ApprovalMode::Deny => Decision::Deny("denied by the scenario".into()),
        ApprovalMode::Pending => Decision::Pending,
    });
    let started = Instant::now();
    let clock = move || Moment {
        session: started.elapsed(),
        wall_ms: crate::time_fmt::now_ms(),
    };
    let mut events = vec![LoopEvent::FsmState {
        state: session.fsm.state(),
    }];
    let mut conversation = Conversation::default();
    let mut provider = ScriptedProvider::default();
    let mut final_text = None;
    let runtime = crate::common::runtime()?;
    for (i, turn) in scenario.turns.iter().enumerate() {
        provider.load(scenario::replies(turn, i + 1));
        let mut ctx = TurnContext {
            executor: &executor,
            session: &mut session,
            provider: &mut provider,
            approver: &mut approver,
            clock: &clock,
            events: &mut events,
            limits: LoopLimits::default(),
            on_delta: None,
        };
        final_text = runtime
            .block_on(run_turn(&mut ctx, &mut conversation, &turn.user))
            .final_text;
    }
    Ok(Transcript {
        scenario: scenario.name.clone(),
        events,
        final_text,
        final_fsm_state: session.fsm.state(),
    })
}
