//! (c) One real `warden agent run` against the testkit's fake agent server
//! (enrollment over HTTP, the WebSocket of spec/agent.md): its idle
//! resident memory, and the time from an `exec` frame to its `exec_result`
//! for `true` (a read, so through the sandbox launcher; and a write, with
//! a grant the fake server signs), against `true` and `sh -c true` run
//! locally.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use warden_protocol::agent::{ExecClass, ExecRequest, ExecResult};
use warden_testkit::agent_server::{AgentConn, FakeAgentServer, TOKEN};
use warden_testkit::exec_requests::claims_for;

use crate::server::{mib, rss_kib, warden};

const NAME: &str = "bench-host";
/// The id the testkit's fake server gives an agent called [`NAME`].
const AGENT_ID: &str = "agt_bench-host";

/// Sends `request`, returns its result and how long it took.
async fn exec(conn: &mut AgentConn, request: ExecRequest) -> (ExecResult, Duration) {
    let start = Instant::now();
    let ran = conn.exec(request).await;
    (ran.result, start.elapsed())
}

fn stats(label: &str, mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    let median = times[times.len() / 2];
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    println!(
        "{label}: median {median:?}, mean {mean:?}, p90 {:?}",
        times[times.len() * 9 / 10]
    );
    median
}

pub async fn run(binary: &Path, runs: usize) {
    let server = FakeAgentServer::start().await;
    let base = server.url();

    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("agent");
    let enrolled = warden(binary)
        .args(["agent", "enroll", "--server", &base, "--token", TOKEN])
        .args(["--name", NAME, "--state-dir"])
        .arg(&state)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(enrolled.success());
    let mut agent = warden(binary)
        .args(["agent", "run", "--name", NAME, "--state-dir"])
        .arg(&state)
        .env("RUST_LOG", "warn")
        .spawn()
        .unwrap();
    let mut conn = server.next_connection().await;
    assert_eq!(conn.agent_id, AGENT_ID);
    tokio::time::sleep(Duration::from_secs(3)).await;
    println!(
        "agent idle RSS: {} (target ≤ 15 MB)",
        mib(rss_kib(agent.id()))
    );

    let target = format!("host:{NAME}");
    let request = |i: usize, class: ExecClass| ExecRequest {
        request_id: format!("{}-{i}", class.as_str()),
        target: target.clone(),
        command: "true".into(),
        class,
        timeout_ms: 10_000,
        max_output_bytes: 65_536,
        grant: None,
    };
    // Warm-up, and a check that both classes really run.
    let (result, _) = exec(&mut conn, request(usize::MAX, ExecClass::Read)).await;
    assert_eq!(result.exit_code, Some(0), "{result:?}");
    let mut reads = Vec::with_capacity(runs);
    for i in 0..runs {
        let (result, took) = exec(&mut conn, request(i, ExecClass::Read)).await;
        assert_eq!(result.exit_code, Some(0), "{result:?}");
        reads.push(took);
    }
    let mut writes = Vec::with_capacity(runs);
    for i in 0..runs {
        let mut write = request(i, ExecClass::Write);
        let grant = server.grant(claims_for(
            AGENT_ID,
            &write.request_id,
            &target,
            &write.command,
        ));
        write.grant = Some(Box::new(grant));
        let (result, took) = exec(&mut conn, write).await;
        assert_eq!(result.exit_code, Some(0), "{result:?}");
        writes.push(took);
    }
    println!(
        "agent RSS after {} commands: {}",
        2 * runs,
        mib(rss_kib(agent.id()))
    );
    let local = |program: &str, args: &[&str]| {
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                assert!(Command::new(program).args(args).status().unwrap().success());
                start.elapsed()
            })
            .collect::<Vec<_>>()
    };
    let bare = stats("local `true`", local("true", &[]));
    let shell = stats("local `sh -c true`", local("/bin/sh", &["-c", "true"]));
    let read = stats("read `true` through the agent (exec → exec_result)", reads);
    let write = stats("write `true` through the agent, with a grant", writes);
    let over = |d: Duration, base: Duration| d.saturating_sub(base);
    println!(
        "per-command overhead (median, target ≤ 5 ms): read {:?} beyond `true` ({:?} beyond `sh -c true`), write {:?} ({:?})",
        over(read, bare),
        over(read, shell),
        over(write, bare),
        over(write, shell)
    );
    let _ = agent.kill();
    let _ = agent.wait();
}
