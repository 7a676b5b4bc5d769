//! Executor decision overhead: the whole pipeline (toolset, deny list,
//! schema, FSM, strict resolution, routing, command policy, control level,
//! audit) with a simulated host whose dispatch is a table lookup, so the
//! numbers are an upper bound of everything but dispatch.
//!
//! `cargo bench -p warden-core --bench executor` prints the per-call latency
//! distribution first, then divan's tables.
#![allow(clippy::unwrap_used)] // benchmark set-up: a panic is a broken benchmark

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{Map, json};
use warden_core::executor::{Executor, Moment, Ports, ProposedCall, Session, Settings};
use warden_core::ports::{MemoryApprovals, MemoryAudit};
use warden_core::simulated::{SimulatedHosts, StaticInventory};
use warden_protocol::{ControlLevel, Resource};

fn inventory() -> StaticInventory {
    let mut resources = vec![Resource {
        id: "node:pve1".parse().unwrap(),
        name: "pve1".into(),
        aliases: Vec::new(),
        parent: None,
        status: None,
        attributes: Map::new(),
    }];
    for i in 0..50 {
        resources.push(Resource {
            id: format!("lxc:pve1:{}", 100 + i).parse().unwrap(),
            name: format!("ct{i}"),
            aliases: Vec::new(),
            parent: resources[0].id.clone().into(),
            status: Some("running".into()),
            attributes: Map::new(),
        });
    }
    StaticInventory::new(resources)
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
        executor.execute(&mut session, &get, at());
        let call = &calls[round % calls.len()];
        let start = Instant::now();
        black_box(executor.execute(&mut session, black_box(call), at()));
        samples.push(start.elapsed().as_nanos());
    }
    samples.sort_unstable();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize];
    println!(
        "executor.execute (read, tail, refused write through read, autonomous write): median {} ns, p90 {} ns, p99 {} ns",
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
        black_box(executor.execute(&mut session, black_box(call), at()))
    });
}
