//! Proxmox reads as whole turns without a model: lists of guests and
//! nodes, a guest's status from the live inventory copy, history with
//! sparklines, and snapshots, through the real loop, executor and the
//! simulated guest API.

use serde_json::{Value, json};

use super::answer;
use super::pve::read;
use crate::router::intent::Stage;

fn series(metric: &str, unit: &str, values: &[f64]) -> Value {
    let points: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(t, v)| json!({"t": t, "v": v}))
        .collect();
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let avg = values.iter().sum::<f64>() / values.len() as f64;
    json!({"metric": metric, "unit": unit, "average": points,
           "summary": {"min": min, "avg": avg, "max": max,
                       "latest": {"t": values.len() - 1, "v": values[values.len() - 1]},
                       "samples": values.len()}})
}

/// Every history answer: memory, cpu and network series.
fn rrd() -> String {
    json!({"series": [
        series("memory", "%", &[30.0, 60.0, 40.0]),
        series("cpu", "%", &[5.0, 50.0, 10.0, 20.0]),
        series("netin", "B/s", &[1024.0, 2048.0]),
        series("netout", "B/s", &[512.0, 512.0]),
    ]})
    .to_string()
}

#[test]
fn lists_ask_the_inventory_for_one_kind() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "list vms",
            &["vm"],
            &[
                "2 VMs:",
                "vm:pve1:101  web  [running]  on node:pve1  tags prod, web",
                "vm:pve1:102  db  [stopped]",
            ],
        ),
        (
            "show me all the lxcs",
            &["lxc"],
            &[
                "1 LXC:",
                "lxc:pve1:141  homepage-docker  [running]  on node:pve1  locked backup",
            ],
        ),
        // No Docker here: containers are the LXCs.
        ("list containers", &["lxc"], &["homepage-docker"]),
        (
            "list guests",
            &["vm", "lxc"],
            &[
                "3 guests (VMs and LXC containers):",
                "web",
                "db",
                "homepage-docker",
            ],
        ),
        (
            "which nodes are there",
            &["node"],
            &["1 Proxmox node:", "node:pve1  pve1"],
        ),
    ];
    for (request, kinds, lines) in cases {
        let out = read(request, vec![]);
        assert_eq!(out.route.stage, Stage::FastPath, "{request}");
        let calls = out.calls();
        let asked: Vec<&str> = calls
            .iter()
            .map(|(tool, args)| {
                assert_eq!((*tool, &args["action"]), ("query", &json!("list")));
                args["kind"].as_str().unwrap()
            })
            .collect();
        assert_eq!(asked, *kinds, "{request}");
        for line in *lines {
            assert!(out.text.contains(line), "{request}: {line}\n{}", out.text);
        }
        assert!(out.commands.is_empty(), "{request}: {:?}", out.commands);
    }
}

#[test]
fn status_comes_from_the_live_inventory_copy() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "status of web",
            "vm:pve1:101",
            &[
                "web (vm:pve1:101) is running: VM 101 on node pve1.",
                "  HA: managed, requested state started",
                "  tags: prod, web",
            ],
        ),
        (
            "what's the status of vm 101",
            "vm:pve1:101",
            &["VM 101 on node pve1"],
        ),
        (
            "is ct 141 running",
            "lxc:pve1:141",
            &[
                "homepage-docker (lxc:pve1:141) is running: LXC 141 on node pve1.",
                "  locked: backup",
            ],
        ),
        ("lxc 141 status", "lxc:pve1:141", &["LXC 141"]),
        (
            "status of db",
            "vm:pve1:102",
            &["db (vm:pve1:102) is stopped: VM 102 on node pve1."],
        ),
    ];
    for (request, target, lines) in cases {
        let out = read(request, vec![]);
        assert_eq!(out.calls().len(), 1, "{request}");
        let (tool, args) = out.calls()[0];
        assert_eq!(tool, "query");
        assert_eq!(
            args,
            &json!({"action": "get", "target": target}),
            "{request}"
        );
        for line in *lines {
            assert!(out.text.contains(line), "{request}: {line}\n{}", out.text);
        }
        assert!(
            out.text
                .ends_with("(from Warden's live copy of the inventory)")
        );
    }
    // A VM is not an LXC.
    let wrong = read("status of ct 101", vec![]);
    assert!(wrong.calls().is_empty());
    assert!(
        wrong
            .text
            .starts_with("I don't know a LXC container called `101`"),
        "{}",
        wrong.text
    );
}

#[test]
fn history_is_rendered_with_sparklines_over_the_window() {
    // (request, target, metrics asked, range, lines of the answer)
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, &'a [&'a str]);
    let cases: &[Case<'_>] = &[
        (
            "memory of web this week",
            "vm:pve1:101",
            &["memory"],
            "week",
            &[
                "web (vm:pve1:101), past week:",
                "memory  ▁█▃  min 30.0 %  avg 43.3 %  max 60.0 %  latest 40.0 %",
            ],
        ),
        (
            "cpu of pve1 today",
            "node:pve1",
            &["cpu"],
            "day",
            &[
                "pve1 (node:pve1), past day:",
                "cpu  ▁█▂▃  min 5.0 %  avg 21.2 %  max 50.0 %  latest 20.0 %",
                "(You asked for today; Proxmox keeps history by hour, day, week, month and year, so this is the past day.)",
            ],
        ),
        (
            "show the network usage of vm 101 over the last 30 days",
            "vm:pve1:101",
            &["netin", "netout"],
            "month",
            &[
                "past month:",
                "netin   ▁█  min 1.0 KiB/s",
                "netout  ▄▄  min 512.0 B/s",
            ],
        ),
        (
            "homepage memory history in the last 24h",
            "lxc:pve1:141",
            &["memory"],
            "day",
            &["homepage-docker (lxc:pve1:141), past day:"],
        ),
        (
            "how much ram did web use this month",
            "vm:pve1:101",
            &["memory"],
            "month",
            &["past month:"],
        ),
    ];
    for (request, target, metrics, range, lines) in cases {
        let out = read(request, vec![answer("rrddata", &rrd(), 0)]);
        assert_eq!(out.route.stage, Stage::FastPath, "{request}");
        let calls = out.calls();
        let asked: Vec<&str> = calls
            .iter()
            .map(|(tool, args)| {
                assert_eq!(*tool, "metrics", "{request}");
                assert_eq!(args["target"], json!(target), "{request}");
                assert_eq!(args["range"], json!(range), "{request}");
                args["metric"].as_str().unwrap()
            })
            .collect();
        assert_eq!(asked, *metrics, "{request}");
        for line in *lines {
            assert!(out.text.contains(line), "{request}: {line}\n{}", out.text);
        }
        // One history, not one per call.
        assert_eq!(out.text.matches("), past ").count(), 1, "{}", out.text);
        assert!(out.ran("rrddata --timeframe"), "{:?}", out.commands);
    }
    // Every metric: one call without `metric`.
    let all = read(
        "history of web this week",
        vec![answer("rrddata", &rrd(), 0)],
    );
    assert_eq!(
        all.calls()[0].1,
        &json!({"target": "vm:pve1:101", "range": "week"})
    );
    assert!(all.text.contains("netout"), "{}", all.text);
}

#[test]
fn a_host_without_history_gets_its_current_values_and_why() {
    let out = read(
        "memory of ops this week",
        vec![answer("/proc/meminfo", "", 0)],
    );
    assert!(
        out.text.starts_with("Warden keeps no history for ops (host:ops) (host); Proxmox does, for its nodes and guests."),
        "{}",
        out.text
    );
    assert_eq!(out.calls().len(), 1);
    assert_eq!(out.calls()[0].1["range"], Value::Null);
}

#[test]
fn snapshots_are_listed_newest_first() {
    let list = json!([
        {"name": "base", "taken_at": 1_793_520_000, "with_ram": false, "is_current_parent": false},
        {"name": "before-upgrade", "description": "manual", "taken_at": 1_795_429_800,
         "parent": "base", "with_ram": true, "is_current_parent": true}
    ])
    .to_string();
    let out = read(
        "snapshots of web",
        vec![answer("qm listsnapshot 101", &list, 0)],
    );
    assert_eq!(
        out.calls()[0],
        (
            "snapshot",
            &json!({"action": "list", "target": "vm:pve1:101"})
        )
    );
    assert_eq!(
        out.text,
        "web (vm:pve1:101) has 2 snapshots, newest first:\n  before-upgrade  2026-11-23 10:30 UTC  \"manual\"  parent base  with RAM  <- it runs from this one\n  base            2026-11-01 08:00 UTC"
    );
    for request in [
        "list the snapshots of ct 141",
        "homepage snapshots",
        "what snapshots does homepage-docker have",
        "does lxc 141 have any snapshots",
    ] {
        let none = read(request, vec![answer("pct listsnapshot 141", "[]", 0)]);
        assert_eq!(
            none.text, "homepage-docker (lxc:pve1:141) has no snapshots.",
            "{request}"
        );
    }
    // A node has none to list.
    let node = read("snapshots of pve1", vec![]);
    assert!(node.calls().is_empty());
    assert!(node.text.contains("guest (VM or LXC)"), "{}", node.text);
}
