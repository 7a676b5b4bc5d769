//! `warden explain "…"`: which route matches, which tool calls it makes and
//! what the executor would decide for each under the current control level,
//! without running anything. The route is played through the real loop and
//! executor against this machine's inventory, with hosts that answer every
//! command with empty output and approvals kept in memory, so the gates
//! decide exactly as they would for real.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use warden_core::agent::{
    Approver, Conversation, Decision, LoopEvent, LoopLimits, TurnContext, run_turn,
};
use warden_core::executor::{Executor, Moment, Ports, Session};
use warden_core::ports::{Approval, BoxFuture, MemoryApprovals, MemoryAudit, MemoryNotes};
use warden_core::router::{Router, Stage, route};
use warden_core::simulated::SimulatedHosts;

use crate::common::CommonArgs;
use crate::display::describe_call;
use crate::world::World;

#[derive(Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// The request to explain, e.g. "restart nginx".
    #[arg(required = true, num_args = 1..)]
    request: Vec<String>,
}

/// Approves everything (so later steps show) and remembers what it saw.
struct Recorder(Vec<Approval>);

impl Approver for Recorder {
    fn decide<'a>(&'a mut self, approval: &'a Approval) -> BoxFuture<'a, Decision> {
        self.0.push(approval.clone());
        Box::pin(std::future::ready(Decision::Approve))
    }
}

pub fn run(args: &ExplainArgs) -> Result<ExitCode> {
    let text = args.request.join(" ");
    let config = args.common.load()?;
    let model = config.provider_config();
    let world = World::open(config)?;
    let (info, plan) = route(&world.inventory, &text, model.is_some());
    println!("request: {text}");
    println!(
        "route:   {} → {}{} (routed in {} µs)",
        info.stage.as_str(),
        info.route,
        info.target
            .as_ref()
            .map(|t| format!(", target {t}"))
            .unwrap_or_default(),
        info.elapsed.as_micros()
    );
    let level = world.config.control_level.value;
    if plan.is_none() || info.stage == Stage::Llm {
        if let Some(model) = model {
            println!(
                "No route matches: the {} model decides which tools to call; each call passes the same gates at level {level}.",
                model.kind
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let hosts = SimulatedHosts::default();
    let approvals = MemoryApprovals::default();
    let audit = MemoryAudit::default();
    let notes = MemoryNotes::default();
    let executor = Executor::new(
        world.settings(),
        Ports {
            inventory: &world.inventory,
            hosts: &hosts,
            approvals: &approvals,
            audit: &audit,
            notes: &notes,
        },
    );
    let mut router = Router::new(&world.inventory, None);
    let mut session = Session::new("explain");
    let mut recorder = Recorder(Vec::new());
    let mut events: Vec<LoopEvent> = Vec::new();
    let clock = || Moment {
        session: Duration::ZERO,
        wall_ms: crate::storage::now_ms(),
    };
    let mut conversation = Conversation::default();
    {
        let mut ctx = TurnContext {
            executor: &executor,
            session: &mut session,
            provider: &mut router,
            approver: &mut recorder,
            clock: &clock,
            events: &mut events,
            limits: LoopLimits::default(),
            on_delta: None,
        };
        crate::common::runtime()?.block_on(run_turn(&mut ctx, &mut conversation, &text));
    }
    print_calls(&events, level);
    Ok(ExitCode::SUCCESS)
}

fn print_calls(events: &[LoopEvent], level: warden_protocol::ControlLevel) {
    let calls = events
        .iter()
        .filter(|e| matches!(e, LoopEvent::ToolCall { .. }))
        .count();
    if calls == 0 {
        println!("calls:   none: answered from Warden's own knowledge (no tool runs)");
        return;
    }
    println!("calls (dry run at level {level}; nothing runs, hosts answer with empty output):");
    let mut n = 0;
    for (i, event) in events.iter().enumerate() {
        let LoopEvent::ToolCall {
            index,
            name,
            arguments,
            kind,
            ..
        } = event
        else {
            continue;
        };
        n += 1;
        println!("  {n}. {} [{kind}]", describe_call(name, arguments));
        let mut approval = false;
        for later in &events[i + 1..] {
            match later {
                LoopEvent::ApprovalNeeded { command, risk, .. } => {
                    approval = true;
                    println!("     needs your approval first ({risk}): {command}")
                }
                LoopEvent::Exec {
                    target, command, ..
                } => println!("     would run on {target}: {command}"),
                LoopEvent::ToolResult {
                    index: done,
                    ok,
                    error_code,
                    ..
                } if done == index => {
                    match (ok, error_code) {
                        (true, _) if approval => println!("     runs once approved"),
                        (true, _) => println!("     allowed"),
                        (false, Some(code)) => println!("     refused: {code}"),
                        (false, None) => println!("     failed"),
                    }
                    break;
                }
                _ => {}
            }
        }
    }
}
