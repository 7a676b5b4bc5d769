//! The runner end to end through the real loop, router and executor, with
//! simulated hosts and in-memory stores.

use std::sync::Arc;

use serde_json::json;
use warden_llm::{ModelReply, ProposedToolCall, ScriptedProvider, Usage};
use warden_protocol::{ErrorCode, Resource, StreamEvent, TurnEndKind};

use super::*;
use crate::agent::{Decision, FixedApprover};
use crate::ports::{ConversationStore, ExecOutput, MemoryConversations};
use crate::simulated::{Answer, SimulatedHosts, StaticInventory};

fn backends() -> (Backends, Arc<MemoryConversations>) {
    let inventory = StaticInventory::new(vec![Resource {
        id: "host:web1".parse().unwrap(),
        name: "web1".into(),
        aliases: vec![],
        parent: None,
        status: Some("online".into()),
        attributes: json!({"systemd": true, "services": [
            {"name": "nginx", "active": "active", "sub": "running"}
        ]})
        .as_object()
        .cloned()
        .unwrap(),
    }]);
    let hosts = SimulatedHosts::new(vec![Answer {
        target: None,
        matches: Box::new(|_| true),
        output: ExecOutput {
            stdout: "up 3 days\n".into(),
            stderr: String::new(),
            exit_code: 0,
            truncated: false,
        },
    }]);
    let conversations = Arc::new(MemoryConversations::default());
    let mut backends = Backends::in_memory(Arc::new(inventory), Arc::new(hosts));
    backends.conversations = Arc::clone(&conversations) as Arc<dyn crate::ports::ConversationStore>;
    (backends, conversations)
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    crate::executor::tests::block_on(future)
}

fn kinds(events: &[StreamEvent]) -> Vec<&'static str> {
    events.iter().map(StreamEvent::event_type).collect()
}

#[test]
fn a_routed_turn_streams_the_spec_events_and_is_stored() {
    let (backends, conversations) = backends();
    let config = Arc::new(TurnConfig::default());
    let mut runner = TurnRunner::new(
        &backends,
        config,
        "s1".into(),
        ControlLevel::Controlled,
        None,
    );
    let mut events: Vec<StreamEvent> = Vec::new();
    let mut approver = FixedApprover(Decision::Pending);
    let report = block_on(runner.run(&backends, "uptime", &mut approver, &mut events));
    assert_eq!(report.turn, 1);
    assert_eq!(report.verdict(), Verdict::Answered, "{events:?}");
    assert!(report.stored.is_ok());
    let seen = kinds(&events);
    assert_eq!(seen.first(), Some(&"turn_start"), "{seen:?}");
    assert!(
        seen.contains(&"tool_start") && seen.contains(&"tool_end"),
        "{seen:?}"
    );
    assert!(!seen.contains(&"error"), "{events:?}");
    let end = events
        .iter()
        .find_map(|e| match e {
            StreamEvent::ToolEnd { ok, output, .. } => Some((*ok, output.clone())),
            _ => None,
        })
        .unwrap();
    assert!(end.0 && end.1.contains("up 3 days"), "{end:?}");
    match report.done_event() {
        StreamEvent::Done {
            turn,
            final_text,
            outcome,
            route,
        } => {
            assert_eq!(turn, 1);
            assert!(final_text.is_some());
            assert_eq!(outcome.unwrap().end, TurnEndKind::Answered);
            assert!(route.is_some());
        }
        other => panic!("{other:?}"),
    }
    let stored = conversations.messages("s1").unwrap();
    assert!(stored.iter().any(|m| m.contains("uptime")), "{stored:?}");
    // The next turn is numbered after it, and a resumed runner counts on.
    let report = block_on(runner.run(&backends, "uptime", &mut approver, &mut events));
    assert_eq!(report.turn, 2);
    let resumed = TurnRunner::resume(
        &backends,
        Arc::new(TurnConfig::default()),
        "s1".into(),
        ControlLevel::Controlled,
        None,
    )
    .unwrap();
    assert_eq!(resumed.turns(), 2);
}

#[test]
fn the_configuration_reaches_the_loop_and_the_store() {
    let (backends, conversations) = backends();
    // A model that keeps calling a tool: the call limit ends the turn.
    let call = ModelReply {
        text: None,
        tool_calls: vec![ProposedToolCall::new(
            "c",
            "query",
            json!({"action": "list", "kind": "host"}),
        )],
        usage: Some(Usage {
            input_tokens: 10,
            output_tokens: 5,
        }),
    };
    let mut model = ScriptedProvider::default();
    model.load((0..10).map(|_| call.clone()));
    let mut prices = crate::agent::usage::Prices::default();
    prices.set_for_any_provider("script", 1_000_000.0, 0.0);
    let config = Arc::new(TurnConfig {
        max_model_calls: 3,
        prices,
        ..TurnConfig::default()
    });
    let mut runner = TurnRunner::new(
        &backends,
        config,
        "s2".into(),
        ControlLevel::Controlled,
        Some(Box::new(model)),
    );
    let mut events: Vec<StreamEvent> = Vec::new();
    let mut approver = FixedApprover(Decision::Pending);
    let report = block_on(runner.run(
        &backends,
        "think hard about everything",
        &mut approver,
        &mut events,
    ));
    assert_eq!(
        report.outcome.end,
        TurnEndKind::ModelCallLimit,
        "{events:?}"
    );
    assert_eq!(report.verdict(), Verdict::ModelFailed);
    let usages: Vec<Option<f64>> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Usage { cost_usd, .. } => Some(*cost_usd),
            _ => None,
        })
        .collect();
    assert_eq!(usages, vec![Some(10.0); 3], "{events:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::Error { code, .. } if code == "MODEL_CALL_LIMIT")),
        "{events:?}"
    );
    assert_eq!(conversations.tokens_used("s2").unwrap(), 45);
}

#[test]
fn stored_messages_are_capped_like_replies() {
    let (backends, conversations) = backends();
    let config = Arc::new(TurnConfig {
        max_reply_bytes: 64,
        ..TurnConfig::default()
    });
    let mut runner = TurnRunner::new(&backends, config, "s3".into(), ControlLevel::ReadOnly, None);
    let long = format!("uptime {}", "x".repeat(500));
    let mut events: Vec<StreamEvent> = Vec::new();
    let mut approver = FixedApprover(Decision::Pending);
    block_on(runner.run(&backends, &long, &mut approver, &mut events));
    for message in conversations.messages("s3").unwrap() {
        let value: serde_json::Value = serde_json::from_str(&message).unwrap();
        for text in ["text", "content"] {
            if let Some(t) = value.get(text).and_then(|t| t.as_str()) {
                assert!(t.len() <= 64 + 64, "{} bytes: {t}", t.len());
            }
        }
    }
    let _ = ErrorCode::Internal;
}

/// One turn without a model on `hosts` answering every command with
/// `stdout`; the verdict and the codes of the `error` events.
fn judged(message: &str, level: ControlLevel, stdout: &str) -> (Verdict, Vec<String>, String) {
    let (mut backends, _) = backends();
    backends.hosts = Arc::new(SimulatedHosts::new(vec![Answer {
        target: None,
        matches: Box::new(|_| true),
        output: ExecOutput {
            stdout: stdout.into(),
            stderr: String::new(),
            exit_code: 0,
            truncated: false,
        },
    }]));
    let mut runner = TurnRunner::new(
        &backends,
        Arc::new(TurnConfig::default()),
        "s1".into(),
        level,
        None,
    );
    let mut events: Vec<StreamEvent> = Vec::new();
    let mut approver = FixedApprover(Decision::Approve);
    let report = block_on(runner.run(&backends, message, &mut approver, &mut events));
    let codes = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Error { code, .. } => Some(code.clone()),
            _ => None,
        })
        .collect();
    (
        report.verdict(),
        codes,
        report.final_text.unwrap_or_default(),
    )
}

#[test]
fn a_request_the_router_refuses_is_never_answered_with_success() {
    let no_systemd = "@@warden:unit-check\n@@warden:no-systemctl\n";
    let rows: &[(&str, ControlLevel, &str, Verdict, &str)] = &[
        // Catastrophic at every level, with or without a model.
        (
            "rm -rf /",
            ControlLevel::Autonomous,
            "",
            Verdict::WriteRefused,
            "WRITE_REFUSED",
        ),
        (
            "$ rm -rf --no-preserve-root /",
            ControlLevel::Controlled,
            "",
            Verdict::WriteRefused,
            "WRITE_REFUSED",
        ),
        // A typed change the router does not run without a model.
        (
            "touch /tmp/warden-x",
            ControlLevel::Controlled,
            "",
            Verdict::WriteRefused,
            "WRITE_REFUSED",
        ),
        // A change the machine cannot do, found out before proposing it.
        (
            "restart nginx",
            ControlLevel::Controlled,
            no_systemd,
            Verdict::WriteRefused,
            "WRITE_REFUSED",
        ),
        // A change to something that does not exist.
        (
            "reload jellyfin-nowhere on nosuch",
            ControlLevel::Controlled,
            "",
            Verdict::WriteRefused,
            "WRITE_REFUSED",
        ),
        // A command aimed at a machine nobody knows runs nowhere.
        (
            "uptime on nosuch",
            ControlLevel::ReadOnly,
            "",
            Verdict::ToolFailed,
            "TOOL_FAILED",
        ),
    ];
    for (message, level, stdout, verdict, code) in rows {
        let (got, codes, text) = judged(message, *level, stdout);
        assert_eq!(got, *verdict, "{message}: {text}");
        assert_eq!(codes, vec![code.to_string()], "{message}: {text}");
    }
    // Answers stay answers.
    let (got, codes, text) = judged("uptime", ControlLevel::ReadOnly, "up 3 days\n");
    assert_eq!((got, codes.len()), (Verdict::Answered, 0), "{text}");
}

#[test]
fn a_note_in_the_users_own_words_is_kept_at_once_without_an_approval() {
    let (mut backends, _) = backends();
    let audit = Arc::new(crate::ports::MemoryAudit::default());
    backends.audit = Arc::clone(&audit) as Arc<dyn crate::ports::AuditSink>;
    let mut runner = TurnRunner::new(
        &backends,
        Arc::new(TurnConfig::default()),
        "s1".into(),
        ControlLevel::Controlled,
        None,
    );
    // Nobody answers approvals (as `ask` without a terminal).
    let mut approver = FixedApprover(Decision::Pending);
    let mut events: Vec<StreamEvent> = Vec::new();
    let report = block_on(runner.run(
        &backends,
        "remember the backups run at 3am",
        &mut approver,
        &mut events,
    ));
    assert_eq!(report.verdict(), Verdict::Answered, "{events:?}");
    assert!(report.outcome.pending_approvals.is_empty(), "{events:?}");
    let text = report.final_text.unwrap_or_default();
    assert!(text.contains("Noted"), "{text}");
    let report = block_on(runner.run(&backends, "recall backups", &mut approver, &mut events));
    let text = report.final_text.unwrap_or_default();
    assert!(text.contains("the backups run at 3am"), "{text}");
    let audited = audit.records();
    assert!(
        audited
            .iter()
            .any(|r| r.tool == "knowledge" && r.decision == "allowed"),
        "{audited:?}"
    );
}

#[test]
fn a_file_edit_waits_for_approval_with_the_file_as_it_was() {
    let (mut backends, _) = backends();
    backends.hosts = Arc::new(SimulatedHosts::new(vec![Answer {
        target: None,
        matches: Box::new(|c| c.starts_with("cat -- ")),
        output: ExecOutput {
            stdout: "listen 80;\nworkers 1;\n".into(),
            stderr: String::new(),
            exit_code: 0,
            truncated: false,
        },
    }]));
    let approvals = Arc::new(crate::ports::MemoryApprovals::default());
    backends.approvals = Arc::clone(&approvals) as Arc<dyn crate::ports::ApprovalStore>;
    let reply = |tool: &str, arguments: serde_json::Value| ModelReply {
        text: None,
        tool_calls: vec![ProposedToolCall::new("c", tool, arguments)],
        usage: None,
    };
    let mut model = ScriptedProvider::default();
    model.load([
        reply("query", json!({"action": "get", "target": "web1"})),
        reply(
            "file_edit",
            json!({"action": "write", "target": "web1", "path": "/etc/app.conf", "content": "listen 8080;\n"}),
        ),
        ModelReply {
            text: Some("The change waits for approval.".into()),
            tool_calls: Vec::new(),
            usage: None,
        },
    ]);
    let mut runner = TurnRunner::new(
        &backends,
        Arc::new(TurnConfig::default()),
        "s3".into(),
        ControlLevel::Controlled,
        Some(Box::new(model)),
    );
    let mut events: Vec<StreamEvent> = Vec::new();
    let mut approver = FixedApprover(Decision::Pending);
    let report = block_on(runner.run(&backends, "set the port", &mut approver, &mut events));
    let id = report
        .outcome
        .pending_approvals
        .first()
        .expect("an approval");
    let approval = crate::ports::ApprovalStore::get(approvals.as_ref(), id).unwrap();
    let before = approval.file_before.expect("the file as it was");
    assert_eq!(before.content.as_deref(), Some("listen 80;\nworkers 1;\n"));
    assert!(!before.truncated && before.unreadable.is_none());
}
