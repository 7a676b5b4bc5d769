use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use warden_protocol::{ControlLevel, Resource, routing::RouteFacts};

use super::provider::{Delta, ProposedToolCall, ScriptedProvider, ToolOffer, Usage};
use super::*;
use crate::executor::{Ports, Settings};
use crate::ports::{BoxFuture, ExecOutput, ExecRequest, HostBackend, HostError};
use crate::ports::{MemoryApprovals, MemoryAudit};
use crate::simulated::{SimulatedHosts, StaticInventory};

fn reply(id: &str, name: &str, arguments: serde_json::Value) -> ModelReply {
    ModelReply {
        usage: None,
        text: None,
        tool_calls: vec![ProposedToolCall::new(id, name, arguments)],
    }
}

fn answer(text: &str) -> ModelReply {
    ModelReply {
        usage: None,
        text: Some(text.into()),
        tool_calls: vec![],
    }
}

fn read(i: usize) -> ProposedToolCall {
    ProposedToolCall::new(
        format!("r{i}"),
        "read",
        json!({"action": "exec", "target": "web1", "command": format!("echo {i}")}),
    )
}

/// What one scripted turn produced.
struct Run {
    events: Vec<LoopEvent>,
    end: TurnEnd,
    pending: Vec<String>,
    refused_writes: usize,
    rests_on_failure: bool,
    final_text: Option<String>,
    conversation: Conversation,
    offers: Vec<ToolOffer>,
}

/// One user message through the real executor and loop, against `web1`.
fn run_script(
    level: ControlLevel,
    hosts: &dyn HostBackend,
    replies: Vec<ModelReply>,
    limits: LoopLimits,
    message: &str,
    on_delta: Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
) -> Run {
    // web1, and a fleet web2…web12 for fan-outs.
    let inventory = StaticInventory::new(
        (1..=12)
            .map(|n| Resource {
                id: format!("host:web{n}").parse().unwrap(),
                name: format!("web{n}"),
                aliases: vec![],
                parent: None,
                status: None,
                attributes: serde_json::Map::new(),
            })
            .collect(),
    );
    let approvals = MemoryApprovals::default();
    let audit = MemoryAudit::default();
    let notes = crate::ports::MemoryNotes::default();
    let executor = Executor::new(
        Settings {
            control_level: level,
            ..Settings::default()
        },
        Ports {
            inventory: &inventory,
            hosts,
            approvals: &approvals,
            audit: &audit,
            notes: &notes,
        },
    );
    let mut provider = ScriptedProvider::new(replies);
    let mut session = Session::new("s");
    let mut approver = FixedApprover(Decision::Pending);
    let clock = || Moment {
        session: Duration::ZERO,
        wall_ms: 0,
    };
    let mut events = Vec::new();
    let mut conversation = Conversation::default();
    let mut ctx = TurnContext {
        executor: &executor,
        session: &mut session,
        provider: &mut provider,
        approver: &mut approver,
        clock: &clock,
        events: &mut events,
        limits,
        // Shorten the sink's lifetime to this turn's.
        on_delta: match on_delta {
            Some(sink) => Some(sink),
            None => None,
        },
    };
    let result = crate::executor::tests::block_on(run_turn(&mut ctx, &mut conversation, message));
    Run {
        events,
        end: result.end,
        pending: result.pending_approvals,
        refused_writes: result.refused_writes,
        rests_on_failure: result.rests_on_failure,
        final_text: result.final_text,
        conversation,
        offers: provider.offers,
    }
}

#[test]
fn the_brake_withholds_tools_but_not_the_verification_read() {
    let restart = |service: String| json!({"action": "service", "target": "web1", "service": service, "operation": "restart"});
    let mut replies = vec![
        reply("q", "query", json!({"action": "get", "target": "web1"})),
        reply("w", "control", restart("nginx".into())),
    ];
    // Three replies whose writes are all refused (VERIFYING)…
    for i in 2..5 {
        replies.push(reply(&format!("c{i}"), "control", restart(format!("s{i}"))));
    }
    // …then the verification read, three refused calls, and the answer.
    replies.push(reply(
        "v",
        "read",
        json!({"action": "exec", "target": "web1", "command": "systemctl is-active nginx"}),
    ));
    for i in 6..9 {
        replies.push(reply(&format!("b{i}"), "bogus", json!({})));
    }
    replies.push(answer("nginx is active again."));
    let hosts = SimulatedHosts::default();
    let run = run_script(
        ControlLevel::Autonomous,
        &hosts,
        replies,
        LoopLimits::default(),
        "restart nginx on web1",
        None,
    );
    // Call 6 (after three failed replies in VERIFYING) still offers tools;
    // call 10 (after three failed replies in READING) is text only.
    assert_eq!(run.offers[5], ToolOffer::Tools);
    assert_eq!(run.offers[9], ToolOffer::TextOnly);
}

/// A host that notes how many commands it runs at once.
#[derive(Default)]
struct ConcurrencyProbe {
    in_flight: AtomicUsize,
    most: AtomicUsize,
}

impl HostBackend for ConcurrencyProbe {
    fn route_facts<'a>(&'a self, _: &'a Resource) -> BoxFuture<'a, RouteFacts> {
        Box::pin(std::future::ready(crate::simulated::reaching_everything()))
    }

    fn exec<'a>(&'a self, _: ExecRequest<'a>) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(30)).await;
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            Ok(ExecOutput {
                stdout: String::new(),
                stderr: String::new(),
                exit_code: 0,
                truncated: false,
            })
        })
    }
}

#[test]
fn independent_reads_run_side_by_side_and_results_keep_call_order() {
    let mut calls: Vec<ProposedToolCall> = (0..6).map(read).collect();
    calls.insert(
        3,
        ProposedToolCall::new("q", "query", json!({"action": "get", "target": "web1"})),
    );
    let replies = vec![
        ModelReply {
            usage: None,
            text: None,
            tool_calls: calls,
        },
        answer("All fine."),
    ];
    let probe = ConcurrencyProbe::default();
    let run = run_script(
        ControlLevel::Autonomous,
        &probe,
        replies,
        LoopLimits::default(),
        "check web1",
        None,
    );
    let most = probe.most.load(Ordering::SeqCst);
    assert!(
        (2..=4).contains(&most),
        "at most four reads at once, and more than one: {most}"
    );
    let order: Vec<usize> = run
        .events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolResult {
                index, ok: true, ..
            } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_fan_out_over_many_hosts_runs_at_once_and_keeps_call_order() {
    let calls: Vec<ProposedToolCall> = (1..=12)
        .map(|n| {
            ProposedToolCall::new(
                format!("r{n}"),
                "read",
                json!({"action": "exec", "target": format!("web{n}"), "command": "uptime"}),
            )
        })
        .collect();
    let replies = vec![
        ModelReply {
            usage: None,
            text: None,
            tool_calls: calls,
        },
        answer("All up."),
    ];
    let probe = ConcurrencyProbe::default();
    let run = run_script(
        ControlLevel::Autonomous,
        &probe,
        replies,
        LoopLimits::default(),
        "uptime everywhere",
        None,
    );
    let most = probe.most.load(Ordering::SeqCst);
    assert!(
        most > 4,
        "twelve hosts are not read four at a time: {most} at once"
    );
    let order: Vec<usize> = run
        .events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolResult {
                index, ok: true, ..
            } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(order, (0..12).collect::<Vec<_>>());
}

#[test]
fn wrap_up_nudges_after_12_and_18_calls() {
    // 20 distinct reads, then an answer.
    let mut replies: Vec<ModelReply> = (0..20)
        .map(|i| ModelReply {
            usage: None,
            text: None,
            tool_calls: vec![read(i)],
        })
        .collect();
    replies.push(answer("All checked."));
    let hosts = SimulatedHosts::default();
    let run = run_script(
        ControlLevel::Controlled,
        &hosts,
        replies,
        LoopLimits {
            max_model_calls: 24,
            ..LoopLimits::default()
        },
        "check everything on web1",
        None,
    );
    assert_eq!(run.final_text.as_deref(), Some("All checked."));
    let nudges: Vec<&String> = run
        .conversation
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::System { text } if text.contains("tool calls") => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(nudges.len(), 2, "{nudges:?}");
    assert!(nudges[0].contains("12") && nudges[1].contains("18"));
}

#[test]
fn a_spent_budget_stops_the_loop_with_a_clear_message() {
    let spend = |tokens| {
        Some(Usage {
            input_tokens: tokens,
            output_tokens: 0,
        })
    };
    let replies = vec![
        ModelReply {
            usage: spend(80),
            ..reply("a", "query", json!({"action": "list"}))
        },
        ModelReply {
            usage: spend(50),
            ..reply("b", "query", json!({"action": "topology"}))
        },
        ModelReply {
            usage: spend(10),
            ..answer("never seen")
        },
    ];
    let mut streamed = String::new();
    let mut sink = |delta: Delta<'_>| {
        if let Delta::Text(text) = delta {
            streamed.push_str(text);
        }
    };
    let hosts = SimulatedHosts::default();
    let limits = LoopLimits {
        budget: super::usage::Budget {
            max_tokens: Some(100),
        },
        ..LoopLimits::default()
    };
    let run = run_script(
        ControlLevel::Controlled,
        &hosts,
        replies,
        limits,
        "list everything",
        Some(&mut sink),
    );
    let text = run.final_text.unwrap_or_default();
    assert!(
        text.starts_with("Stopped: this conversation used 130 tokens"),
        "{text}"
    );
    assert_eq!(run.conversation.usage.total_tokens(), 130);
    assert!(streamed.is_empty(), "the third reply was never requested");
}

/// The server runs turns on a multi-threaded runtime: a turn's future must
/// be able to move between threads. This does not compile otherwise.
#[allow(dead_code)]
fn turns_can_move_between_threads<'a>(
    ctx: &'a mut TurnContext<'_, '_>,
    conversation: &'a mut Conversation,
) -> impl std::future::Future<Output = TurnResult> + Send + 'a {
    run_turn(ctx, conversation, "")
}

#[test]
fn a_loop_of_identical_calls_ends_the_turn_with_a_clear_message() {
    let same = || {
        reply(
            "r",
            "read",
            json!({"action": "exec", "target": "web1", "command": "uptime"}),
        )
    };
    let replies = vec![same(), same(), same(), same(), answer("web1 is up.")];
    let hosts = SimulatedHosts::default();
    let run = run_script(
        ControlLevel::Controlled,
        &hosts,
        replies,
        LoopLimits::default(),
        "uptime of web1",
        None,
    );
    assert_eq!(
        run.end,
        TurnEnd::LoopDetected {
            tool: "read".into()
        }
    );
    let text = run.final_text.unwrap();
    assert!(text.starts_with("Stopped:"), "{text}");
    assert_eq!(
        run.offers.len(),
        4,
        "the scripted answer is never asked for"
    );
}

#[test]
fn replies_that_keep_failing_end_the_turn() {
    let bad = |i: usize| {
        reply(
            &format!("b{i}"),
            "read",
            json!({"action": "exec", "target": "web1", "command": format!("rm -rf /tmp/x{i}")}),
        )
    };
    let replies: Vec<ModelReply> = (0..10).map(bad).collect();
    let hosts = SimulatedHosts::default();
    let run = run_script(
        ControlLevel::Controlled,
        &hosts,
        replies,
        LoopLimits::default(),
        "clean up web1",
        None,
    );
    assert!(
        matches!(&run.end, TurnEnd::FailingCalls { codes } if codes == &[ErrorCode::ReadOnlyViolation]),
        "{:?}",
        run.end
    );
    // Three failing replies, then one without tools that still failed.
    assert_eq!(run.offers.len(), 4);
    assert_eq!(run.refused_writes, 4);
    assert!(hosts.received().is_empty());
}

#[test]
fn model_calls_per_message_are_capped() {
    let replies: Vec<ModelReply> = (0..30)
        .map(|i| ModelReply {
            usage: None,
            text: None,
            tool_calls: vec![read(i)],
        })
        .collect();
    let hosts = SimulatedHosts::default();
    let run = run_script(
        ControlLevel::Controlled,
        &hosts,
        replies,
        LoopLimits::default(),
        "check web1",
        None,
    );
    assert_eq!(run.offers.len(), 12);
    assert_eq!(run.end, TurnEnd::ModelCallLimit { calls: 12 });
    assert!(run.final_text.unwrap().contains("12 model calls"));
}

#[test]
fn pending_approvals_and_failed_commands_are_reported() {
    let hosts = SimulatedHosts::new(vec![crate::simulated::Answer {
        target: None,
        matches: Box::new(|c: &str| c.contains("missing")),
        output: ExecOutput {
            stdout: String::new(),
            stderr: "no such file".into(),
            exit_code: 2,
            truncated: false,
        },
    }]);
    let run = run_script(
        ControlLevel::Controlled,
        &hosts,
        vec![
            reply("q", "query", json!({"action": "get", "target": "web1"})),
            reply(
                "w",
                "control",
                json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
            ),
            reply(
                "r",
                "read",
                json!({"action": "exec", "target": "web1", "command": "cat /missing"}),
            ),
            answer("The restart waits for your approval; the file is missing."),
        ],
        LoopLimits::default(),
        "restart nginx on web1",
        None,
    );
    assert_eq!(run.end, TurnEnd::Answered);
    assert_eq!(run.pending.len(), 1);
    assert!(run.rests_on_failure);
}

/// Records what a display receives.
#[derive(Default)]
struct Shown {
    real: Vec<String>,
    model: Vec<String>,
}

impl EventSink for Shown {
    fn emit(&mut self, _event: LoopEvent) {}

    fn tool_output(
        &mut self,
        _index: usize,
        response: &warden_protocol::ToolResponse,
        model_sees: &serde_json::Value,
    ) {
        self.real.push(serde_json::to_string(response).unwrap());
        self.model.push(model_sees.to_string());
    }
}

#[test]
fn secrets_in_tool_output_never_reach_the_model_but_the_terminal_sees_them() {
    let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n";
    let hosts = SimulatedHosts::new(vec![crate::simulated::Answer {
        target: None,
        matches: Box::new(|c: &str| c.contains("id_ed25519")),
        output: ExecOutput {
            stdout: key.to_string(),
            stderr: String::new(),
            exit_code: 0,
            truncated: false,
        },
    }]);
    // web1, and a fleet web2…web12 for fan-outs.
    let inventory = StaticInventory::new(
        (1..=12)
            .map(|n| Resource {
                id: format!("host:web{n}").parse().unwrap(),
                name: format!("web{n}"),
                aliases: vec![],
                parent: None,
                status: None,
                attributes: serde_json::Map::new(),
            })
            .collect(),
    );
    let approvals = MemoryApprovals::default();
    let audit = MemoryAudit::default();
    let notes = crate::ports::MemoryNotes::default();
    let executor = Executor::new(
        Settings::default(),
        Ports {
            inventory: &inventory,
            hosts: &hosts,
            approvals: &approvals,
            audit: &audit,
            notes: &notes,
        },
    );
    let mut provider = ScriptedProvider::new(vec![
        reply(
            "r",
            "read",
            json!({"action": "exec", "target": "web1", "command": "cat ~/.ssh/id_ed25519"}),
        ),
        answer("That is a private key."),
    ]);
    let mut session = Session::new("s");
    let mut approver = FixedApprover(Decision::Pending);
    let clock = || Moment {
        session: Duration::ZERO,
        wall_ms: 0,
    };
    let mut shown = Shown::default();
    let mut conversation = Conversation::default();
    let mut ctx = TurnContext {
        executor: &executor,
        session: &mut session,
        provider: &mut provider,
        approver: &mut approver,
        clock: &clock,
        events: &mut shown,
        limits: LoopLimits::default(),
        on_delta: None,
    };
    crate::executor::tests::block_on(run_turn(&mut ctx, &mut conversation, "show the key"));
    assert!(shown.real[0].contains("BEGIN OPENSSH PRIVATE KEY"));
    assert!(
        !shown.model[0].contains("b3BlbnNzaC1rZXktdjEA"),
        "{}",
        shown.model[0]
    );
    assert!(shown.model[0].contains("[redacted: "), "{}", shown.model[0]);
    let stored: String = conversation
        .messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect();
    assert!(!stored.contains("b3BlbnNzaC1rZXktdjEA"), "{stored}");
}
