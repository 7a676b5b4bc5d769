//! The fleet for real: `warden serve` on the host, `warden agent` in Docker
//! containers on a private network (the image built locally from this
//! build's binary), everything through the HTTP API as a client would.
//! Enrollment, a read on each host (asked by the model, and by a router
//! phrase with no model call), a write with approval, a host cut off
//! during a command, a stopped host, a server restart with a pending
//! approval, a revoked agent, and an agent whose `--max-level` refuses an
//! approved write, and confinement on agents (a container that may make
//! namespaces hides the agent's state; one that may not refuses by policy
//! alone, and both say so). When the engine is unreachable each test says so loudly
//! and does not run.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

mod fleet_support;

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use fleet_support::model::{call, calls, read, text, write};
use fleet_support::session::{Session, approve};
use fleet_support::{AgentSpec, CONNECT_WITHIN, Fleet, agent};
use warden_testkit::model::Turn;

const TURN: Duration = Duration::from_secs(30);

/// `query get TARGET`: the discovery a write needs first.
fn discover(target: &str) -> Turn {
    call("query", json!({"action": "get", "target": target}))
}

/// The one `tool_end` of `name` whose call targeted `target`.
fn tool_end_for<'s>(session: &'s Session, target: &str) -> &'s Value {
    let starts: Vec<&Value> = session
        .seen
        .iter()
        .filter(|e| e["type"] == "tool_start" && e["target"].as_str() == Some(target))
        .collect();
    assert_eq!(starts.len(), 1, "one call on {target}: {:#?}", session.seen);
    let call_id = &starts[0]["call_id"];
    session
        .tool_ends()
        .into_iter()
        .find(|e| &e["call_id"] == call_id)
        .unwrap_or_else(|| panic!("no tool_end for {call_id}: {:#?}", session.seen))
}

/// The `tool_end` of the (only) write call of the turn.
fn write_end(session: &Session) -> &Value {
    let start = session
        .seen
        .iter()
        .find(|e| e["type"] == "tool_start" && e["kind"] == "write")
        .unwrap_or_else(|| panic!("no write started: {:#?}", session.seen));
    session
        .tool_ends()
        .into_iter()
        .find(|e| e["call_id"] == start["call_id"])
        .unwrap_or_else(|| panic!("the write never ended: {:#?}", session.seen))
}

#[tokio::test]
async fn agents_enroll_and_their_hosts_join_the_inventory() {
    let Some(fleet) = Fleet::up(&[agent("alpha"), agent("bravo")]).await else {
        return;
    };
    let agents = fleet.serve.agents().await;
    assert_eq!(agents.len(), 2, "{agents:?}");
    for name in ["alpha", "bravo"] {
        let listed = fleet.serve.agent(name).await.unwrap();
        assert_eq!(listed["connected"], true, "{listed}");
        assert_eq!(listed["host"], format!("host:{name}"), "{listed}");
        assert!(
            listed["version"].as_str().is_some_and(|v| !v.is_empty()),
            "{listed}"
        );
        assert!(listed["id"].as_str().is_some_and(|v| !v.is_empty()));
    }
    // The inventory arrives just after the hello.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let inventory = fleet.serve.inventory().await;
        let hosts: Vec<&Value> = inventory
            .iter()
            .filter(|r| {
                r["source"] == "agent"
                    && ["host:alpha", "host:bravo"].contains(&r["id"].as_str().unwrap_or(""))
            })
            .collect();
        if hosts.len() == 2 {
            assert!(hosts.iter().all(|h| h["kind"] == "host"), "{hosts:?}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the agents' hosts are not in the inventory with source agent: {inventory:#?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // An enrollment token is single-use by default.
    let token = fleet.serve.enrollment_token(1).await;
    let spare = fleet_support::docker::Host::start("charlie", &fleet.network);
    spare.enroll(&fleet.serve.base, &token, &fleet.serve.fingerprint);
    let again = spare.exec(&[
        "warden",
        "agent",
        "enroll",
        "--server",
        &fleet.serve.base,
        "--token",
        &token,
        "--fingerprint",
        &fleet.serve.fingerprint,
        "--state-dir",
        "/tmp/second",
        "--name",
        "delta",
    ]);
    assert!(
        !again.status.success(),
        "a used token enrolled again: {}",
        String::from_utf8_lossy(&again.stdout)
    );
}

#[tokio::test]
async fn a_read_runs_on_each_host() {
    let Some(fleet) = Fleet::up(&[agent("alpha"), agent("bravo")]).await else {
        return;
    };
    fleet.model.script(
        "hostnames",
        vec![
            calls(vec![
                (
                    "read".into(),
                    json!({"action": "exec", "target": "host:alpha", "command": "cat /etc/hostname"}),
                ),
                (
                    "read".into(),
                    json!({"action": "exec", "target": "host:bravo", "command": "cat /etc/hostname"}),
                ),
            ]),
            text("Both answered."),
        ],
    );
    let mut session = Session::open(&fleet.serve).await;
    session.say(&fleet.serve, "the hostnames please").await;
    let done = session.until_done(TURN).await;
    assert_eq!(done.last().unwrap()["final_text"], "Both answered.");
    for name in ["alpha", "bravo"] {
        let end = tool_end_for(&session, &format!("host:{name}"));
        assert_eq!(end["ok"], true, "{end}");
        // The container's hostname: the command ran in that very container.
        assert!(
            end["output"].to_string().contains(name),
            "{name} did not answer: {end}"
        );
    }
    // The router's own phrase (no model call): the host by its agent's name.
    let mut session = Session::open(&fleet.serve).await;
    session.say(&fleet.serve, "load on bravo").await;
    let done = session.until_done(TURN).await;
    assert_eq!(
        done.last().unwrap()["route"]["stage"],
        "fast_path",
        "{done:#?}"
    );
    let end = tool_end_for(&session, "host:bravo");
    assert_eq!(end["ok"], true, "{end}");
    let load = done.last().unwrap()["final_text"].to_string();
    assert!(load.contains("bravo"), "{load}");
}

#[tokio::test]
async fn an_approved_write_runs_on_its_host_only() {
    let Some(fleet) = Fleet::up(&[agent("alpha"), agent("bravo")]).await else {
        return;
    };
    fleet.model.script(
        "mark alpha",
        vec![
            discover("host:alpha"),
            write("host:alpha", "touch /tmp/fleet-written"),
            read("host:alpha", "ls /tmp/fleet-written"),
            text("Marked."),
        ],
    );
    let mut session = Session::open(&fleet.serve).await;
    session.say(&fleet.serve, "mark alpha").await;
    let needed = session.next("approval_needed", TURN).await;
    let approval = needed["approval"]["id"].as_str().unwrap().to_string();
    assert!(
        !fleet.host("alpha").has_file("/tmp/fleet-written"),
        "written before the approval"
    );
    approve(&fleet.serve, &approval).await;
    session.until_done(TURN).await;
    let end = write_end(&session);
    assert_eq!(end["ok"], true, "{end}");
    assert!(fleet.host("alpha").has_file("/tmp/fleet-written"));
    assert!(!fleet.host("bravo").has_file("/tmp/fleet-written"));
    let (_, consumed) = fleet
        .serve
        .call("GET", &format!("/api/approvals/{approval}"), None)
        .await;
    assert_eq!(consumed["state"], "consumed", "{consumed}");
}

#[tokio::test]
async fn a_host_cut_off_during_a_write_reports_an_unknown_outcome() {
    let Some(fleet) = Fleet::up(&[agent("alpha")]).await else {
        return;
    };
    fleet.model.script(
        "slow change",
        vec![
            discover("host:alpha"),
            write("host:alpha", "sleep 6 && echo ran >> /tmp/cut-off"),
            text("Reported."),
        ],
    );
    let mut session = Session::open(&fleet.serve).await;
    session.say(&fleet.serve, "slow change on alpha").await;
    let needed = session.next("approval_needed", TURN).await;
    approve(&fleet.serve, needed["approval"]["id"].as_str().unwrap()).await;
    // The write is running inside the container; then the cable is pulled.
    let host = fleet.host("alpha");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !host.runs(b"sleep\x006\x00") {
        assert!(Instant::now() < deadline, "the write never started");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let cut = Instant::now();
    host.disconnect(&fleet.network);
    session.until_done(TURN).await;
    let end = write_end(&session);
    assert_eq!(end["ok"], false, "a cut-off write is not a success: {end}");
    assert!(
        end.to_string().to_lowercase().contains("unknown"),
        "the outcome is reported as unknown: {end}"
    );
    assert!(
        cut.elapsed() < Duration::from_secs(20),
        "noticed only after {:?}",
        cut.elapsed()
    );
    fleet
        .serve
        .wait_connected("alpha", false, Duration::from_secs(10))
        .await;
    // Plugged back in, the agent finds its way back by itself, and the
    // write is not sent again behind anyone's back: it ran at most once.
    host.connect(&fleet.network);
    fleet
        .serve
        .wait_connected("alpha", true, CONNECT_WITHIN)
        .await;
    let settled = cut + Duration::from_secs(10);
    tokio::time::sleep(settled.saturating_duration_since(Instant::now())).await;
    let runs = host.exec(&["cat", "/tmp/cut-off"]);
    let runs = String::from_utf8_lossy(&runs.stdout).lines().count();
    assert!(runs <= 1, "the write ran {runs} times");
}

#[tokio::test]
async fn a_stopped_host_shows_disconnected_and_its_commands_fail() {
    let Some(fleet) = Fleet::up(&[agent("alpha"), agent("bravo")]).await else {
        return;
    };
    let status_of_alpha = |inventory: Vec<Value>| {
        inventory
            .into_iter()
            .find(|r| r["id"] == "host:alpha")
            .map(|r| r["status"].clone())
    };
    let online = status_of_alpha(fleet.serve.inventory().await);
    assert!(online.is_some(), "host:alpha is in the inventory");
    fleet.host("alpha").stop();
    let listed = fleet
        .serve
        .wait_connected("alpha", false, Duration::from_secs(10))
        .await;
    assert!(listed["last_seen"].is_string(), "{listed}");
    assert_eq!(fleet.serve.agent("bravo").await.unwrap()["connected"], true);
    let offline = status_of_alpha(fleet.serve.inventory().await);
    assert!(
        offline.is_some() && offline != online,
        "the inventory shows the change: {online:?} then {offline:?}"
    );
    fleet.model.script(
        "uptime of alpha",
        vec![read("host:alpha", "uptime"), text("Could not.")],
    );
    let mut session = Session::open(&fleet.serve).await;
    let asked = Instant::now();
    session.say(&fleet.serve, "uptime of alpha").await;
    session.until_done(TURN).await;
    let end = tool_end_for(&session, "host:alpha");
    assert_eq!(end["ok"], false, "{end}");
    assert!(end["error_code"].is_string(), "a clear error code: {end}");
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "failing took {:?}",
        asked.elapsed()
    );
}

#[tokio::test]
async fn after_a_server_restart_agents_reconnect_and_a_pending_approval_runs() {
    let Some(mut fleet) = Fleet::up(&[agent("alpha")]).await else {
        return;
    };
    fleet.model.script(
        "mark after restart",
        vec![
            discover("host:alpha"),
            write("host:alpha", "touch /tmp/after-restart"),
            text("Waiting."),
        ],
    );
    let mut session = Session::open(&fleet.serve).await;
    session.say(&fleet.serve, "mark after restart").await;
    let needed = session.next("approval_needed", TURN).await;
    let approval = needed["approval"]["id"].as_str().unwrap().to_string();
    drop(session);

    fleet.serve.restart();
    fleet
        .serve
        .wait_connected("alpha", true, CONNECT_WITHIN)
        .await;
    let (_, still) = fleet
        .serve
        .call("GET", &format!("/api/approvals/{approval}"), None)
        .await;
    assert_eq!(still["state"], "pending", "{still}");
    approve(&fleet.serve, &approval).await;
    let (status, ran) = fleet
        .serve
        .call("POST", &format!("/api/approvals/{approval}/run"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{ran}");
    assert_eq!(ran["outcome"]["ok"], true, "{ran}");
    assert!(fleet.host("alpha").has_file("/tmp/after-restart"));
}

#[tokio::test]
async fn a_revoked_agent_is_cut_off_and_cannot_come_back() {
    let Some(fleet) = Fleet::up(&[agent("alpha")]).await else {
        return;
    };
    let id = fleet.serve.agent("alpha").await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, body) = fleet
        .serve
        .call("DELETE", &format!("/api/agents/{id}"), None)
        .await;
    assert!(status.is_success(), "{status} {body}");
    // At once: no longer listed as connected (the server may drop it from
    // the list altogether).
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let listed = fleet.serve.agent("alpha").await;
        if listed.as_ref().is_none_or(|a| a["connected"] == false) {
            break;
        }
        assert!(Instant::now() < deadline, "still connected: {listed:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Refused on its next attempt, the agent gives up (exit status 3).
    let host = fleet.host("alpha");
    let deadline = Instant::now() + Duration::from_secs(20);
    while host.agent_exit().is_none() {
        assert!(Instant::now() < deadline, "the revoked agent kept trying");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(host.agent_exit(), Some(3), "{}", host.agent_log());
    // Started again by hand, it is refused again.
    host.run_agent(&[]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while host.agent_exit().is_none() {
        assert!(Instant::now() < deadline, "the revoked agent kept trying");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(host.agent_exit(), Some(3), "{}", host.agent_log());
    let listed = fleet.serve.agent("alpha").await;
    assert!(
        listed.as_ref().is_none_or(|a| a["connected"] == false),
        "{listed:?}"
    );
}

#[tokio::test]
async fn a_read_only_agent_refuses_an_approved_write() {
    let spec = AgentSpec {
        name: "alpha",
        flags: &["--max-level", "read_only"],
        container: &[],
    };
    let Some(fleet) = Fleet::up(&[spec]).await else {
        return;
    };
    fleet.model.script(
        "mark alpha",
        vec![
            discover("host:alpha"),
            write("host:alpha", "touch /tmp/fleet-refused"),
            read("host:alpha", "ls /tmp"),
            text("Refused."),
        ],
    );
    let mut session = Session::open(&fleet.serve).await;
    session.say(&fleet.serve, "mark alpha").await;
    let needed = session.next("approval_needed", TURN).await;
    approve(&fleet.serve, needed["approval"]["id"].as_str().unwrap()).await;
    session.until_done(TURN).await;
    let end = write_end(&session);
    assert_eq!(end["ok"], false, "{end}");
    assert!(
        end.to_string().contains("POLICY_BLOCKED"),
        "the agent's refusal is named: {end}"
    );
    assert!(!fleet.host("alpha").has_file("/tmp/fleet-refused"));
}

#[tokio::test]
async fn agents_keep_their_state_from_commands_in_either_confinement_mode() {
    let namespaced = AgentSpec {
        name: "alpha",
        flags: &[],
        container: &["--cap-add", "SYS_ADMIN"],
    };
    let Some(fleet) = Fleet::up(&[namespaced, agent("bravo")]).await else {
        return;
    };
    // Each says at start which mode is in force.
    let alpha_log = fleet.host("alpha").agent_log();
    assert!(
        alpha_log.contains("confinement: namespaces"),
        "alpha may make namespaces: {alpha_log}"
    );
    let bravo_log = fleet.host("bravo").agent_log();
    assert!(
        bravo_log.contains("confinement: POLICY ONLY"),
        "bravo may not: {bravo_log}"
    );
    let state = "/var/lib/warden-agent";
    for name in ["alpha", "bravo"] {
        let target = format!("host:{name}");
        let phrase = format!("secrets of {name}");
        fleet.model.script(
            &phrase,
            vec![
                read(&target, &format!("cat {state}/*")),
                read(&target, &format!("base64 {state}/agent.key")),
                read(&target, "cat /proc/*/environ"),
                read(&target, "grep -rsl agent_id /var/lib"),
                text("Done."),
            ],
        );
        let mut session = Session::open(&fleet.serve).await;
        session.say(&fleet.serve, &phrase).await;
        session.until_done(TURN).await;
        let ends = session.tool_ends();
        assert_eq!(ends.len(), 4, "{:#?}", session.seen);
        for end in &ends[..3] {
            assert_eq!(end["error_code"], "PROTECTED_PATH", "{name}: {end}");
        }
        // What the policy cannot see: a recursive read above the state.
        let grep = ends[3];
        match name {
            // Runs where the state directory is empty: nothing found.
            "alpha" => assert_eq!(grep["error_code"], "EXECUTION_FAILED", "{grep}"),
            _ => assert_eq!(grep["error_code"], "PROTECTED_PATH", "{grep}"),
        }
        assert!(
            !grep.to_string().contains("identity.json"),
            "the state was found: {grep}"
        );
    }
}
