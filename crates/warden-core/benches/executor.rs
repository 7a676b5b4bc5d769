//! Executor decision overhead: the whole pipeline (toolset, deny list,
//! schema, FSM, strict resolution, routing, command policy, control level,
//! audit) with a simulated host whose dispatch is a table lookup, so the
//! numbers are an upper bound of everything but dispatch.
//!
//! The inventory holds 10,000 resources (20 nodes with 499 containers
//! each): lookups are indexed, so its size must not show in the numbers.
//!
//! `cargo bench -p warden-core --bench executor` prints the per-call latency
//! distribution first, then divan's tables.
#![allow(clippy::unwrap_used, clippy::expect_used)] // benchmark set-up: a panic is a broken benchmark

use std::hint::black_box;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::{Map, json};
use warden_core::executor::{Executor, Moment, Ports, ProposedCall, Session, Settings};
use warden_core::ports::{MemoryApprovals, MemoryAudit};
use warden_core::simulated::{SimulatedHosts, StaticInventory};
use warden_protocol::{ControlLevel, Resource};

const NODES: usize = 20;
const GUESTS_PER_NODE: usize = 499;

fn inventory() -> StaticInventory {
    let mut resources = Vec::with_capacity(NODES * (GUESTS_PER_NODE + 1));
    for n in 0..NODES {
        let node: warden_protocol::ResourceId = format!("node:pve{n}").parse().unwrap();
        resources.push(Resource {
            id: node.clone(),
            name: format!("pve{n}"),
            aliases: Vec::new(),
            parent: None,
            status: None,
            attributes: Map::new(),
        });
        for g in 0..GUESTS_PER_NODE {
            let i = n * GUESTS_PER_NODE + g;
            resources.push(Resource {
                id: format!("lxc:pve{n}:{}", 100 + i).parse().unwrap(),
                name: format!("ct{i}"),
                aliases: vec![format!("guest-{i}")],
                parent: Some(node.clone()),
                status: Some("running".into()),
                attributes: Map::new(),
            });
        }
    }
    assert_eq!(resources.len(), 10_000);
    StaticInventory::new(resources)
}

/// The simulated host answers at once, so one poll finishes a call.
fn run(
    executor: &Executor<'_>,
    session: &mut Session,
    call: &ProposedCall,
) -> warden_core::executor::Outcome {
    executor
        .execute(session, call, at())
        .now_or_never()
        .expect("the simulated host answers at once")
}

fn calls() -> Vec<ProposedCall> {
    vec![
        ProposedCall {
            tool: "read".into(),
            arguments: json!({"action": "exec", "target": "ct7", "command": "journalctl -u nginx -n 50 --no-pager | grep -i error"}),
        },
        ProposedCall {
            tool: "read".into(),
            arguments: json!({"action": "tail", "target": "ct8", "path": "/var/log/syslog", "lines": 20}),
        },
        ProposedCall {
            tool: "read".into(),
            arguments: json!({"action": "exec", "target": "ct9", "command": "rm -rf /tmp/x"}),
        },
        ProposedCall {
            tool: "control".into(),
            arguments: json!({"action": "service", "target": "ct7", "service": "nginx", "operation": "restart"}),
        },
    ]
}

fn at() -> Moment {
    Moment {
        session: Duration::from_secs(1),
        wall_ms: 1,
    }
}

fn main() {
    let inventory = inventory();
    let hosts = SimulatedHosts::default();
    let approvals = MemoryApprovals::default();
    let audit = MemoryAudit::default();
    let notes = warden_core::ports::MemoryNotes::default();
    let executor = Executor::new(
        Settings {
            control_level: ControlLevel::Autonomous,
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
    let calls = calls();
    let mut samples = Vec::with_capacity(40_000);
    for round in 0..10_000 {
        let mut session = Session::new("bench");
        let get = ProposedCall {
            tool: "query".into(),
            arguments: json!({"action": "get", "target": "ct7"}),
        };
        run(&executor, &mut session, &get);
        let call = &calls[round % calls.len()];
        let start = Instant::now();
        black_box(run(&executor, &mut session, black_box(call)));
        samples.push(start.elapsed().as_nanos());
    }
    samples.sort_unstable();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize];
    println!(
        "executor.execute with 10,000 resources (read, tail, refused write through read, autonomous write): median {} ns, p90 {} ns, p99 {} ns",
        pct(0.5),
        pct(0.9),
        pct(0.99)
    );
    divan::main();
}

#[divan::bench]
fn read_exec(bencher: divan::Bencher) {
    let inventory = inventory();
    let hosts = SimulatedHosts::default();
    let approvals = MemoryApprovals::default();
    let audit = MemoryAudit::default();
    let notes = warden_core::ports::MemoryNotes::default();
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
    let call = &calls()[0];
    bencher.bench_local(|| {
        let mut session = Session::new("bench");
        black_box(run(&executor, &mut session, black_box(call)))
    });
}
