use std::time::Duration;

use serde_json::{Value, json};
use warden_protocol::{ControlLevel, Resource, ResourceKind};

use super::intent::{ControlOp, Intent, ListWhat, LogsRequest, Stage, recognise};
use super::*;
use crate::agent::{
    Conversation, Decision, FixedApprover, LoopEvent, LoopLimits, TurnContext, run_turn,
};
use crate::executor::host_metrics::Metric;
use crate::executor::{Executor, Moment, Ports, Session, Settings};
use crate::ports::{ExecOutput, MemoryApprovals, MemoryAudit};
use crate::simulated::{Answer, SimulatedHosts, StaticInventory};

fn logs(subject: Option<&str>, lines: u32, filter: Option<&str>, since: Option<&str>) -> Intent {
    Intent::Logs(LogsRequest {
        subject: subject.map(str::to_string),
        on: None,
        lines,
        filter: filter.map(str::to_string),
        since: since.map(str::to_string),
    })
}

fn metric(metric: Metric, on: Option<&str>) -> Intent {
    Intent::Metric {
        metric,
        on: on.map(str::to_string),
    }
}

fn status(subject: &str, on: Option<&str>) -> Intent {
    Intent::Status {
        subject: subject.into(),
        on: on.map(str::to_string),
    }
}

#[test]
fn requests_are_recognised() {
    use Stage::*;
    let cases: Vec<(&str, Stage, Intent)> = vec![
        ("disk usage", FastPath, metric(Metric::Disk, None)),
        (
            "Disk usage on pve1?",
            FastPath,
            metric(Metric::Disk, Some("pve1")),
        ),
        (
            "what's the memory usage on web1",
            FastPath,
            metric(Metric::Memory, Some("web1")),
        ),
        ("show me the cpu", FastPath, metric(Metric::Cpu, None)),
        ("load average", FastPath, metric(Metric::Load, None)),
        (
            "how much free space is left on pve1",
            Heuristic,
            metric(Metric::Disk, Some("pve1")),
        ),
        ("is the disk full", Heuristic, metric(Metric::Disk, None)),
        ("is ssh running", FastPath, status("ssh", None)),
        (
            "is nginx up on web1?",
            FastPath,
            status("nginx", Some("web1")),
        ),
        ("status of jellyfin", FastPath, status("jellyfin", None)),
        ("nginx status", FastPath, status("nginx", None)),
        (
            "check if postgres is still running please",
            Heuristic,
            status("postgres", None),
        ),
        (
            "show the last 20 lines of the syslog",
            FastPath,
            logs(None, 20, None, None),
        ),
        ("syslog", FastPath, logs(None, 50, None, None)),
        (
            "logs of nginx",
            FastPath,
            logs(Some("nginx"), 50, None, None),
        ),
        (
            "nginx logs with \"Timeout\"",
            FastPath,
            logs(Some("nginx"), 50, Some("Timeout"), None),
        ),
        (
            "last 100 lines of the jellyfin logs since 1h",
            FastPath,
            logs(Some("jellyfin"), 100, None, Some("1 hour ago")),
        ),
        (
            "any errors in the nginx logs today",
            Heuristic,
            logs(Some("nginx"), 50, Some("error"), Some("today")),
        ),
        (
            "restart nginx",
            FastPath,
            Intent::Control {
                operation: ControlOp::Restart,
                subject: "nginx".into(),
                on: None,
            },
        ),
        (
            "please restart the jellyfin container on media-server",
            FastPath,
            Intent::Control {
                operation: ControlOp::Restart,
                subject: "jellyfin".into(),
                on: Some("media-server".into()),
            },
        ),
        (
            "could you stop redis for me",
            Heuristic,
            Intent::Control {
                operation: ControlOp::Stop,
                subject: "redis".into(),
                on: None,
            },
        ),
        (
            "list services",
            FastPath,
            Intent::List {
                what: ListWhat::Services,
                on: None,
            },
        ),
        (
            "what's running on web1",
            FastPath,
            Intent::List {
                what: ListWhat::Services,
                on: Some("web1".into()),
            },
        ),
        (
            "show all containers",
            FastPath,
            Intent::List {
                what: ListWhat::Containers,
                on: None,
            },
        ),
        (
            "list vms",
            FastPath,
            Intent::List {
                what: ListWhat::Resources(Some(ResourceKind::Vm)),
                on: None,
            },
        ),
        (
            "list resources",
            FastPath,
            Intent::List {
                what: ListWhat::Resources(None),
                on: None,
            },
        ),
        (
            "remember the NAS backup runs at 02:00",
            FastPath,
            Intent::Remember {
                note: "the NAS backup runs at 02:00".into(),
            },
        ),
        (
            "what do you know about backups",
            FastPath,
            Intent::Recall {
                query: "backups".into(),
            },
        ),
        (
            "explain `journalctl -f -u nginx`",
            FastPath,
            Intent::Explain {
                command: "journalctl -f -u nginx".into(),
            },
        ),
        (
            "df -h",
            Parser,
            Intent::Run {
                command: "df -h".into(),
            },
        ),
        (
            "$ systemctl status nginx",
            Parser,
            Intent::Run {
                command: "systemctl status nginx".into(),
            },
        ),
        ("help", FastPath, Intent::Help),
    ];
    for (text, stage, intent) in cases {
        assert_eq!(recognise(text), Some((stage, intent)), "{text}");
    }
    for text in [
        "why is jellyfin slow",
        "hello there",
        "what should I name my cat",
    ] {
        assert_eq!(recognise(text), None, "{text}");
    }
}

fn host(name: &str, attributes: Value) -> Resource {
    Resource {
        id: format!("host:{name}").parse().unwrap(),
        name: name.into(),
        aliases: vec![],
        parent: None,
        status: Some("running".into()),
        attributes: attributes.as_object().cloned().unwrap_or_default(),
    }
}

fn inventory() -> StaticInventory {
    StaticInventory::new(vec![
        host(
            "web1",
            json!({"systemd": true, "log_files": ["/var/log/syslog"], "services": [{"name": "nginx", "active": "active", "sub": "running", "description": "web server"}]}),
        ),
        host("bare", json!({"systemd": false, "log_files": []})),
        Resource {
            id: "docker_container:web1:abc123".parse().unwrap(),
            name: "jellyfin".into(),
            aliases: vec![],
            parent: Some("host:web1".parse().unwrap()),
            status: Some("running".into()),
            attributes: serde_json::Map::new(),
        },
    ])
}

fn answer(pattern: &'static str, stdout: &str, exit_code: i32) -> Answer {
    Answer {
        target: None,
        matches: Box::new(move |c: &str| c.contains(pattern)),
        output: ExecOutput {
            stdout: stdout.into(),
            stderr: String::new(),
            exit_code,
            truncated: false,
        },
    }
}

struct Outcome {
    text: String,
    events: Vec<LoopEvent>,
    commands: Vec<(String, String)>,
    route: RouteInfo,
}

fn ask(message: &str, level: ControlLevel, decision: Decision, answers: Vec<Answer>) -> Outcome {
    let inventory = inventory();
    let hosts = SimulatedHosts::new(answers);
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
            hosts: &hosts,
            approvals: &approvals,
            audit: &audit,
            notes: &notes,
        },
    );
    let mut router = Router::new(&inventory, None);
    let mut session = Session::new("s");
    let mut approver = FixedApprover(decision);
    let clock = || Moment {
        session: Duration::ZERO,
        wall_ms: 0,
    };
    let mut events = Vec::new();
    let mut conversation = Conversation::default();
    let result = {
        let mut ctx = TurnContext {
            executor: &executor,
            session: &mut session,
            provider: &mut router,
            approver: &mut approver,
            clock: &clock,
            events: &mut events,
            limits: LoopLimits::default(),
            on_delta: None,
        };
        crate::executor::tests::block_on(run_turn(&mut ctx, &mut conversation, message))
    };
    Outcome {
        text: result.final_text.unwrap_or_default(),
        events,
        commands: hosts.received(),
        route: router.last_route().cloned().unwrap(),
    }
}

#[test]
fn disk_usage_reads_metrics_and_answers_with_numbers() {
    let df = "@@warden:disk\nFilesystem 1-blocks Used Available Capacity Mounted on\n/dev/vda1 100000000000 60000000000 40000000000 60% /\n";
    let out = ask(
        "disk usage",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer("df -P", df, 0)],
    );
    assert_eq!(out.route.stage, Stage::FastPath);
    assert_eq!(out.route.target.as_deref(), Some("host:web1"));
    assert!(out.text.contains("Disk usage on web1"), "{}", out.text);
    assert!(out.text.contains("60.0% used"), "{}", out.text);
    assert_eq!(out.commands.len(), 1);
}

#[test]
fn service_status_on_a_host_without_systemd_checks_processes() {
    let out = ask(
        "is ssh running on bare",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer("pgrep", "@@warden:processes\n", 0)],
    );
    let (target, command) = &out.commands[0];
    assert_eq!(target, "host:bare");
    assert!(!command.contains("systemctl"), "{command}");
    assert!(
        out.text
            .starts_with("No: bare (host:bare) does not run systemd"),
        "{}",
        out.text
    );
    // A minimal container: no systemctl, no pgrep. Nothing is claimed.
    let minimal = ask(
        "is nginx running",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer(
            "pgrep",
            "@@warden:no-systemctl\n@@warden:processes\n@@warden:no-pgrep\n",
            0,
        )],
    );
    assert!(
        minimal
            .text
            .starts_with("Unknown: web1 (host:web1) does not run systemd"),
        "{}",
        minimal.text
    );
    assert!(minimal.text.contains("has no `pgrep`"), "{}", minimal.text);
    let running = ask(
        "is ssh running",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer(
            "systemctl show",
            "Id=ssh.service\nLoadState=loaded\nActiveState=active\nSubState=running\nMainPID=42\nActiveEnterTimestamp=Mon 2026-11-23 08:00:00 UTC\nDescription=OpenBSD Secure Shell server\n\nId=sshd.service\nLoadState=not-found\nActiveState=inactive\nSubState=dead\nMainPID=0\n@@warden:processes\n42 sshd: /usr/sbin/sshd -D\n",
            0,
        )],
    );
    assert!(
        running.text.starts_with("Yes: ssh is running on web1"),
        "{}",
        running.text
    );
    assert!(running.text.contains("main PID 42"), "{}", running.text);
}

#[test]
fn restart_discovers_asks_runs_and_verifies() {
    let out = ask(
        "restart nginx",
        ControlLevel::Controlled,
        Decision::Approve,
        vec![
            answer("systemctl restart", "", 0),
            answer(
                "systemctl show",
                "Id=nginx.service\nActiveState=active\nSubState=running\nResult=success\n",
                0,
            ),
        ],
    );
    let tools: Vec<&str> = out
        .events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolCall { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["query", "control", "read"]);
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, LoopEvent::ApprovalNeeded { .. }))
    );
    assert_eq!(out.commands[0].1, "systemctl restart 'nginx'");
    assert!(
        out.text.starts_with("Done: nginx was restarted on web1"),
        "{}",
        out.text
    );
}

#[test]
fn a_pending_or_refused_write_is_reported_as_not_done() {
    let pending = ask(
        "restart nginx",
        ControlLevel::Controlled,
        Decision::Pending,
        vec![],
    );
    assert!(pending.text.starts_with("Not done yet"), "{}", pending.text);
    assert!(
        pending.text.contains("warden approvals approve"),
        "{}",
        pending.text
    );
    assert!(pending.commands.is_empty());
    let denied = ask(
        "restart nginx",
        ControlLevel::Controlled,
        Decision::Deny("not now".into()),
        vec![],
    );
    assert!(
        denied
            .text
            .starts_with("Not done: restart nginx on web1 (host:web1) was denied"),
        "{}",
        denied.text
    );
    let read_only = ask(
        "restart nginx",
        ControlLevel::ReadOnly,
        Decision::Approve,
        vec![],
    );
    assert!(
        read_only.text.contains("POLICY_BLOCKED"),
        "{}",
        read_only.text
    );
    assert!(read_only.commands.is_empty());
}

#[test]
fn system_log_without_files_or_entries_says_so() {
    let out = ask(
        "show the last 20 lines of the syslog on bare",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer("journalctl", "-- No entries --\n", 0)],
    );
    assert_eq!(out.commands[0].1, "journalctl -n 20 --no-pager");
    assert!(out.text.contains("no entries"), "{}", out.text);
    assert!(
        out.text.contains("There is no /var/log/syslog"),
        "{}",
        out.text
    );
    let with_file = ask(
        "show the last 20 lines of the syslog",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer("tail", "line one\nline two\n", 0)],
    );
    assert_eq!(with_file.commands[0].1, "tail -n 20 -- '/var/log/syslog'");
    assert!(
        with_file
            .text
            .starts_with("Last 2 lines of /var/log/syslog on web1"),
        "{}",
        with_file.text
    );
}

#[test]
fn container_logs_are_filtered_by_the_router() {
    let out = ask(
        "jellyfin logs with timeout",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer("docker logs", "ok\nTimeout talking to db\nok\n", 0)],
    );
    assert!(
        out.commands[0].1.starts_with("docker logs --tail=2000"),
        "{:?}",
        out.commands
    );
    assert!(out.text.contains("Timeout talking to db"), "{}", out.text);
    assert!(!out.text.contains("\n  ok"), "{}", out.text);
}

#[test]
fn unmatched_without_a_model_lists_what_can_be_asked() {
    let out = ask(
        "why is jellyfin slow",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![],
    );
    assert_eq!(out.route.stage, Stage::Unmatched);
    assert!(
        out.text.contains("without a language model"),
        "{}",
        out.text
    );
    assert!(out.text.contains("disk usage"), "{}", out.text);
    // Warden's own help text is not a phantom claim.
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(e, LoopEvent::PhantomDetected))
    );
}

#[test]
fn raw_commands_run_through_the_read_tool_only_when_read_only() {
    let out = ask(
        "uptime",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![answer("uptime", " 10:00 up 1 day\n", 0)],
    );
    assert_eq!(out.route.stage, Stage::Parser);
    assert!(out.text.contains("up 1 day"), "{}", out.text);
    let refused = ask(
        "rm -rf /tmp/x",
        ControlLevel::Autonomous,
        Decision::Approve,
        vec![],
    );
    assert!(refused.commands.is_empty());
    assert!(refused.text.contains("not read-only"), "{}", refused.text);
}

#[test]
fn hosts_are_never_rebooted_from_a_one_liner() {
    let out = ask(
        "restart web1",
        ControlLevel::Autonomous,
        Decision::Approve,
        vec![],
    );
    assert!(out.commands.is_empty());
    assert!(out.text.starts_with("I won't restart web1"), "{}", out.text);
}

#[test]
fn unknown_hosts_are_named() {
    let out = ask(
        "disk usage on nowhere",
        ControlLevel::ReadOnly,
        Decision::Pending,
        vec![],
    );
    assert!(
        out.text
            .contains("I don't know a resource called `nowhere`"),
        "{}",
        out.text
    );
    assert!(out.commands.is_empty());
}

/// Every read command a route proposes passes the read tool's policy, so a
/// route never trips over its own gate.
#[test]
fn route_commands_are_read_only_by_policy() {
    let inventory = inventory();
    let requests = [
        "is ssh running",
        "is ssh running on bare",
        "logs of nginx",
        "nginx logs with \"it's broken\" since 2h",
        "last 30 lines of the syslog with error",
        "syslog on bare with error since yesterday",
        "list services",
        "list services on bare",
        "restart nginx",
        "disk usage",
        "status of web1",
    ];
    for request in requests {
        let (_, plan) = route(&inventory, request, false);
        let plan = plan.unwrap();
        let fake_ok = json!({"ok": true, "data": {"stdout": "", "exit_code": 0}});
        let mut all = Vec::new();
        for step in 0..5 {
            let last = vec![fake_ok.clone()];
            match next_step(&plan, step, &last, &all) {
                Step::Calls(calls) => {
                    for call in calls {
                        if call.tool == "read" {
                            if let Some(command) = call.arguments["command"].as_str() {
                                let c = warden_policy::classify(command);
                                assert!(c.read_allowed(), "{request}: `{command}`: {}", c.reason);
                            }
                        }
                    }
                }
                Step::Answer(_) => break,
            }
            all.extend(last);
        }
    }
}
