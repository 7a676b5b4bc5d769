//! `warden explain "…"`: which route matches and why (the pattern, parse
//! or keywords, or why the model gets it), which tool calls it makes and
//! what the executor would decide for each under the current control level,
//! without running anything. The route is played through the real loop and
//! executor against this machine's inventory, with hosts that answer every
//! command with empty output (a check that a service exists finds it) and
//! approvals kept in memory, so the gates decide exactly as they would for
//! real. `--json` prints the same as one object.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use serde_json::{Value, json};
use warden_core::agent::{
    Approver, Conversation, Decision, LoopEvent, LoopLimits, TurnContext, run_turn,
};
use warden_core::executor::{Moment, Session};
use warden_core::ports::{Approval, Backends, BoxFuture};
use warden_core::router::{Plan, RouteInfo, Router, Stage, route};
use warden_core::simulated::SimulatedHosts;

use crate::common::CommonArgs;
use crate::display::describe_call;
use crate::local::Local;
use warden_world::World;

#[derive(Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// One JSON object: request, stage, route, target, confidence, reason, calls.
    #[arg(long)]
    json: bool,
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

/// How sure the router is of a stage's match.
fn confidence(stage: Stage) -> &'static str {
    match stage {
        Stage::FastPath | Stage::Parser => "certain",
        Stage::Heuristic => "guess",
        Stage::Llm | Stage::Unmatched => "none",
    }
}

pub fn run(args: &ExplainArgs) -> Result<ExitCode> {
    let text = args.request.join(" ");
    let config = args.common.load()?;
    let model = config.provider_config();
    let local = Local::open(config)?;
    let world = &local.world;
    let (info, plan) = route(world.backends.inventory.as_ref(), &text, model.is_some());
    let level = world.config.control_level.value;
    let events = if plan.is_none() || info.stage == Stage::Llm {
        Vec::new()
    } else {
        dry_run(&local, &text)?
    };
    let calls = calls(&events);
    // An answer given without any tool (help, a refusal, suggestions).
    let answer = match &plan {
        Some(Plan::Say(text)) => Some(text.as_str()),
        _ => None,
    };
    if args.json {
        let object = json!({
            "request": text,
            "stage": info.stage.as_str(),
            "route": info.route,
            "target": info.target,
            "confidence": confidence(info.stage),
            "reason": info.reason,
            "level": level.to_string(),
            "model": model.as_ref().map(|m| m.kind.to_string()),
            "calls": calls,
            "answer": answer,
        });
        println!("{object}");
        return Ok(ExitCode::SUCCESS);
    }
    print_route(&text, &info);
    if info.stage == Stage::Llm {
        if let Some(model) = model {
            println!(
                "The {} model decides which tools to call; each call passes the same gates at level {level}.",
                model.kind
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    match answer {
        Some(text) => println!("answer:  {}", text.replace('\n', "\n         ")),
        None => print_calls(&calls, level),
    }
    Ok(ExitCode::SUCCESS)
}

fn print_route(text: &str, info: &RouteInfo) {
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
    println!("why:     {}", info.reason);
}

/// The route played through the real loop and executor; nothing runs.
fn dry_run(local: &Local, text: &str) -> Result<Vec<LoopEvent>> {
    let world: &World = &local.world;
    let hosts = SimulatedHosts::new(warden_core::router::explain::dry_run_answers());
    // The real inventory; hosts that run nothing; stores that end with us.
    let backends = Backends::in_memory(
        std::sync::Arc::clone(&world.backends.inventory),
        std::sync::Arc::new(hosts),
    );
    let executor = backends.executor(world.turn.settings(world.config.control_level.value));
    let mut router = Router::new(std::sync::Arc::clone(&world.backends.inventory), None);
    let mut session = Session::new("explain");
    let mut recorder = Recorder(Vec::new());
    let mut events: Vec<LoopEvent> = Vec::new();
    let clock = || Moment {
        session: Duration::ZERO,
        wall_ms: crate::time_fmt::now_ms(),
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
        local
            .runtime
            .block_on(run_turn(&mut ctx, &mut conversation, text));
    }
    Ok(events)
}

/// Each tool call with what the executor decided: `allowed`,
/// `needs_approval` (then ran once approved), `refused` with the error
/// code, or `failed`; and the commands it would run.
fn calls(events: &[LoopEvent]) -> Vec<Value> {
    let mut out = Vec::new();
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
        let mut approval: Option<Value> = None;
        let mut commands = Vec::new();
        let mut decision = json!({"decision": "no_result"});
        for later in &events[i + 1..] {
            match later {
                LoopEvent::ApprovalNeeded { command, risk, .. } => {
                    approval = Some(json!({"command": command, "risk": risk}));
                }
                LoopEvent::Exec {
                    target, command, ..
                } => commands.push(json!({"target": target, "command": command})),
                LoopEvent::ToolResult {
                    index: done,
                    ok,
                    error_code,
                    ..
                } if done == index => {
                    decision = match (ok, error_code) {
                        (true, _) if approval.is_some() => json!({"decision": "needs_approval"}),
                        (true, _) => json!({"decision": "allowed"}),
                        (false, Some(code)) => {
                            json!({"decision": "refused", "error_code": code})
                        }
                        (false, None) => json!({"decision": "failed"}),
                    };
                    break;
                }
                _ => {}
            }
        }
        let mut call = json!({
            "tool": name,
            "arguments": arguments,
            "kind": kind,
            "commands": commands,
            "approval": approval,
        });
        if let (Some(call), Some(decision)) = (call.as_object_mut(), decision.as_object()) {
            call.extend(decision.clone());
        }
        out.push(call);
    }
    out
}

fn print_calls(calls: &[Value], level: warden_protocol::ControlLevel) {
    if calls.is_empty() {
        println!("calls:   none: answered from Warden's own knowledge (no tool runs)");
        return;
    }
    println!(
        "calls (dry run at level {level}; nothing runs, hosts answer with empty output and a checked service exists):"
    );
    for (n, call) in calls.iter().enumerate() {
        let tool = call["tool"].as_str().unwrap_or("?");
        let kind = call["kind"].as_str().unwrap_or("?");
        println!(
            "  {}. {} [{kind}]",
            n + 1,
            describe_call(tool, &call["arguments"])
        );
        if let Some(approval) = call["approval"].as_object() {
            println!(
                "     needs your approval first ({}): {}",
                approval["risk"].as_str().unwrap_or("?"),
                approval["command"].as_str().unwrap_or("?")
            );
        }
        for command in call["commands"].as_array().into_iter().flatten() {
            println!(
                "     would run on {}: {}",
                command["target"].as_str().unwrap_or("?"),
                command["command"].as_str().unwrap_or("?")
            );
        }
        match (
            call["decision"].as_str().unwrap_or(""),
            call["error_code"].as_str(),
        ) {
            ("needs_approval", _) => println!("     runs once approved"),
            ("allowed", _) => println!("     allowed"),
            ("refused", Some(code)) => println!("     refused: {code}"),
            _ => println!("     failed"),
        }
    }
}
