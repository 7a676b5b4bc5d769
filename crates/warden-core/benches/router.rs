//! Router + executor overhead of a fast-path request, end to end through
//! the agentic loop: recognise and plan the request, propose the call, run
//! every gate, dispatch to a simulated host (a table lookup, so the
//! command's own run time is ~0), word the answer. A fresh session per
//! request, as `warden ask` has; 50 resources in the inventory.
//!
//! `cargo bench -p warden-core --bench router` prints the per-request
//! latency distribution first, then divan's tables.
#![allow(clippy::unwrap_used, clippy::expect_used)] // benchmark set-up: a panic is a broken benchmark

use std::hint::black_box;

use futures_util::FutureExt;
use std::time::{Duration, Instant};

use serde_json::{Map, json};
use warden_core::agent::{
    Conversation, Decision, FixedApprover, LoopEvent, LoopLimits, TurnContext, run_turn,
};
use warden_core::executor::{Executor, Moment, Ports, Session, Settings};
use warden_core::ports::{ExecOutput, Inventory, MemoryApprovals, MemoryAudit, MemoryNotes};
use warden_core::router::Router;
use warden_core::simulated::{Answer, SimulatedHosts, StaticInventory};
use warden_protocol::{ControlLevel, Resource};

const DF: &str = "@@warden:disk\nFilesystem 1-blocks Used Available Capacity Mounted on\n/dev/vda1 100000000000 60000000000 40000000000 60% /\n/dev/vdb1 50000000000 49000000000 1000000000 98% /srv\n";

fn inventory() -> StaticInventory {
    let mut host = Resource::new("host:web1".parse().unwrap(), "web1");
    host.attributes = json!({"systemd": true, "log_files": ["/var/log/syslog"]})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut resources = vec![host];
    for i in 0..49 {
        resources.push(Resource {
            id: format!("docker_container:web1:c{i:03}").parse().unwrap(),
            name: format!("app{i}"),
            aliases: Vec::new(),
            parent: Some("host:web1".parse().unwrap()),
            status: Some("running".into()),
            attributes: Map::new(),
        });
    }
    StaticInventory::new(resources)
}

fn hosts() -> SimulatedHosts {
    let output = |stdout: &str| ExecOutput {
        stdout: stdout.into(),
        stderr: String::new(),
        exit_code: 0,
        truncated: false,
    };
    SimulatedHosts::new(vec![
        Answer {
            target: None,
            matches: Box::new(|c: &str| c.contains("df -P")),
            output: output(DF),
        },
        Answer {
            target: None,
            matches: Box::new(|c: &str| c.contains("pgrep")),
            output: output(
                "Id=ssh.service\nLoadState=loaded\nActiveState=active\nSubState=running\n@@warden:processes\n42 sshd\n",
            ),
        },
        Answer {
            target: None,
            matches: Box::new(|_| true),
            output: output("line\n"),
        },
    ])
}

/// One request, start to answer; returns the answer's length.
fn request(executor: &Executor<'_>, inventory: &StaticInventory, text: &str) -> usize {
    let frozen = StaticInventory::from_snapshot(inventory.snapshot());
    let mut router = Router::new(std::sync::Arc::new(frozen), None);
    let mut session = Session::new("bench");
    let mut approver = FixedApprover(Decision::Pending);
    let clock = || Moment {
        session: Duration::ZERO,
        wall_ms: 0,
    };
    let mut events: Vec<LoopEvent> = Vec::new();
    let mut conversation = Conversation::default();
    let mut ctx = TurnContext {
        executor,
        session: &mut session,
        provider: &mut router,
        approver: &mut approver,
        clock: &clock,
        events: &mut events,
        limits: LoopLimits::default(),
        on_delta: None,
    };
    run_turn(&mut ctx, &mut conversation, text)
        .now_or_never()
        .expect("simulated hosts answer at once")
        .final_text
        .map_or(0, |t| t.len())
}

const REQUESTS: [&str; 4] = [
    "disk usage",
    "is ssh running",
    "show the last 20 lines of the syslog",
    "status of app7",
];

fn main() {
    let inventory = inventory();
    let hosts = hosts();
    let approvals = MemoryApprovals::default();
    let audit = MemoryAudit::default();
    let notes = MemoryNotes::default();
    let executor = Executor::new(
        Settings {
            control_level: ControlLevel::Controlled,
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
    for text in REQUESTS {
        assert!(request(&executor, &inventory, text) > 0, "{text}");
        let mut samples: Vec<u128> = (0..2000)
            .map(|_| {
                let start = Instant::now();
                black_box(request(&executor, &inventory, black_box(text)));
                start.elapsed().as_nanos()
            })
            .collect();
        samples.sort_unstable();
        let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize] / 1000;
        println!(
            "{text:<40} median {} µs, p90 {} µs, p99 {} µs (router + loop + executor, simulated host)",
            pct(0.5),
            pct(0.9),
            pct(0.99)
        );
    }
    divan::main();
}

#[divan::bench(args = REQUESTS)]
fn fast_path_request(bencher: divan::Bencher, text: &str) {
    let inventory = inventory();
    let hosts = hosts();
    let approvals = MemoryApprovals::default();
    let audit = MemoryAudit::default();
    let notes = MemoryNotes::default();
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
    bencher.bench_local(|| request(&executor, &inventory, black_box(text)));
}
