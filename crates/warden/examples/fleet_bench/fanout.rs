//! (a) One read fanned out to N real agents: N `warden agent run`
//! processes on loopback (`fleet-000`, …), each with its own state dir; the
//! fake model answers the message with N parallel `read` calls (`uptime` on
//! each host, or another command) and then a final text. Timed from POST message to `done`.
//! Also reports the agents' idle resident memory.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::server::{Serve, cpu_ms, machine_busy_ms, mib, rss_kib, warden};
use warden_testkit::model::{FakeModel, Turn, Wire};

/// Agent processes, killed when dropped.
struct Agents(Vec<Child>);

impl Drop for Agents {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
        }
        for child in &mut self.0 {
            let _ = child.wait();
        }
    }
}

pub async fn run(binary: &Path, count: usize, rounds: usize, command: &str) {
    let model = FakeModel::start(Wire::OpenAi);
    model.serve_models(&["test-model"]);
    model.set_unscripted(Turn::text("Done.").usage(100, 20));
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("server");
    std::fs::create_dir_all(&data).unwrap();
    let serve = Serve::start(binary, &data, &model.base_url(), 30);
    let token = serve.enrollment_token(count as u32).await;
    let names: Vec<String> = (0..count).map(|i| format!("fleet-{i:03}")).collect();

    let started = Instant::now();
    for chunk in names.chunks(16) {
        let enrolling: Vec<Child> = chunk
            .iter()
            .map(|name| {
                warden(binary)
                    .args([
                        "agent",
                        "enroll",
                        "--server",
                        &serve.base,
                        "--token",
                        &token,
                    ])
                    .args(["--name", name, "--state-dir"])
                    .arg(dir.path().join(name))
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut child in enrolling {
            assert!(child.wait().unwrap().success(), "an enrollment failed");
        }
    }
    println!("enrolled {count} agents in {:?}", started.elapsed());

    let agents = Agents(
        names
            .iter()
            .map(|name| {
                warden(binary)
                    .args(["agent", "run", "--name", name, "--state-dir"])
                    .arg(dir.path().join(name))
                    .env("RUST_LOG", "warn")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect(),
    );
    let took = serve.wait_connected(count, Duration::from_secs(120)).await;
    println!("{count} agents connected {took:?} after their start");

    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut rss: Vec<u64> = agents.0.iter().map(|c| rss_kib(c.id())).collect();
    rss.sort_unstable();
    println!(
        "agent idle RSS: min {}, median {}, max {}",
        mib(rss[0]),
        mib(rss[rss.len() / 2]),
        mib(rss[rss.len() - 1])
    );

    let calls = names
        .iter()
        .map(|name| {
            (
                "read".to_string(),
                json!({"action": "exec", "target": format!("host:{name}"), "command": command}),
            )
        })
        .collect();
    model.script(
        "fan out",
        vec![
            Turn::calls(calls).usage(100, 20),
            Turn::text("Every host answered.").usage(100, 20),
        ],
    );

    let mut times = Vec::new();
    for round in 0..rounds {
        let (id, mut events) = serve.session().await;
        let cpu_before = (cpu_ms(serve.pid()), machine_busy_ms());
        let start = Instant::now();
        serve
            .call(
                "POST",
                &format!("/api/sessions/{id}/messages"),
                Some(json!({"text": format!("fan out uptime, round {round}")})),
            )
            .await;
        let (mut ok, mut failed) = (0, 0);
        let mut first_failure = None;
        // Each read's own duration as the server measured it, and when
        // its end arrived.
        let mut durations = Vec::new();
        let mut ends = Vec::new();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(120), events.recv())
                .await
                .expect("the turn ended")
                .expect("the event stream stayed open");
            if event["type"] == "tool_end" {
                durations.push(event["duration_ms"].as_u64().unwrap_or(0));
                ends.push(start.elapsed());
            }
            match event["type"].as_str() {
                Some("tool_end") if event["ok"] == true => ok += 1,
                Some("tool_end") => {
                    failed += 1;
                    first_failure.get_or_insert(event);
                }
                Some("done") => break,
                _ => {}
            }
        }
        let elapsed = start.elapsed();
        let cpu_after = (cpu_ms(serve.pid()), machine_busy_ms());
        println!(
            "round {round}: {ok} reads ok, {failed} failed, POST message → done in {elapsed:?}"
        );
        durations.sort_unstable();
        if let (Some(first), Some(last)) = (ends.first(), ends.last()) {
            println!(
                "  reads took {}–{} ms each (median {} ms); first ended at {first:?}, last at {last:?}",
                durations[0],
                durations[durations.len() - 1],
                durations[durations.len() / 2]
            );
        }
        println!(
            "  CPU time: server {} ms; the whole machine (agents, their commands, anything else) {} ms",
            cpu_after.0 - cpu_before.0,
            cpu_after.1 - cpu_before.1
        );
        if let Some(failure) = first_failure {
            println!("  first failure: {failure}");
        }
        times.push(elapsed);
    }
    times.sort_unstable();
    println!(
        "fan-out of one read to {count} agents: best {:?}, median {:?}, worst {:?} (target ≤ 1 s)",
        times[0],
        times[times.len() / 2],
        times[times.len() - 1]
    );
    // The server first, so the agents' last words are not its warnings.
    drop(serve);
    drop(agents);
}
