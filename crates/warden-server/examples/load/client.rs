//! N sessions, N event streams, N messages at once; per-token delay
//! (receive time minus the time the model sent the token), gaps between
//! tokens, turn durations, and the server's peak RSS and thread count.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::Client;
use serde_json::{Value, json};
use tokio::sync::{Barrier, Semaphore};

use crate::{Flags, now_us};

/// Tokens per turn counted as the start burst.
const WARM_UP: u64 = 5;

#[derive(Default)]
struct StreamStats {
    /// Microseconds from the model sending a token to this client reading it.
    delays: Vec<u64>,
    /// Microseconds between consecutive tokens as received.
    gaps: Vec<u64>,
    /// Delays and gaps once every turn is under way (from the
    /// `WARM_UP`th token on): the start burst of N turns left out.
    steady_delays: Vec<u64>,
    steady_gaps: Vec<u64>,
    tokens: u64,
    /// First token to `done`.
    turn_us: u64,
    done: bool,
}

fn client() -> Client {
    Client::builder()
        .tls_backend_preconfigured(warden_testkit::http::no_roots_tls())
        .pool_idle_timeout(Duration::from_secs(300))
        .build()
        .unwrap()
}

/// `(VmRSS kB, VmHWM kB, threads)` of a process.
fn sample(pid: u64) -> Option<(u64, u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?, field("Threads:")?))
}

async fn follow(client: Client, url: String, token: String, ready: Arc<Barrier>) -> StreamStats {
    let mut stats = StreamStats::default();
    let response = client.get(&url).bearer_auth(&token).send().await;
    ready.wait().await;
    let Ok(response) = response else {
        return stats;
    };
    let mut body = response.bytes_stream();
    let mut buffer = String::new();
    let mut last_arrival = 0u64;
    let mut first = 0u64;
    while let Some(Ok(chunk)) = body.next().await {
        let arrived = now_us();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            if block.contains("event: content") {
                if let Some(at) = block.find("\"text\":\"t") {
                    let digits: String = block[at + 9..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    if let Ok(sent) = digits.parse::<u64>() {
                        let delay = arrived.saturating_sub(sent);
                        stats.delays.push(delay);
                        if stats.tokens >= WARM_UP {
                            stats.steady_delays.push(delay);
                        }
                    }
                }
                if last_arrival > 0 {
                    stats.gaps.push(arrived - last_arrival);
                    if stats.tokens >= WARM_UP {
                        stats.steady_gaps.push(arrived - last_arrival);
                    }
                } else {
                    first = arrived;
                }
                last_arrival = arrived;
                stats.tokens += 1;
            } else if block.contains("event: done") {
                stats.turn_us = arrived.saturating_sub(first);
                stats.done = true;
                return stats;
            }
        }
    }
    stats
}

/// CPU seconds (user + system) a process has used.
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

pub async fn run(flags: &Flags) {
    let base = flags.get("base", "http://127.0.0.1:7900");
    let token = flags.get("token", "");
    let sessions = flags.number("sessions", 1000) as usize;
    let pace_us = flags.number("pace-ms", 20) * 1000;
    let tokens = flags.number("tokens", 50);
    let pid = flags.number("server-pid", 0);
    let message = flags.get("message", "zz load test, no tools please");
    let http = client();

    let before = sample(pid);
    let limit = Arc::new(Semaphore::new(32));
    let mut creations = Vec::new();
    for _ in 0..sessions {
        let (http, base, token, limit) = (
            http.clone(),
            base.clone(),
            token.clone(),
            Arc::clone(&limit),
        );
        creations.push(tokio::spawn(async move {
            let _permit = limit.acquire().await.unwrap();
            let created: Value = http
                .post(format!("{base}/api/sessions"))
                .bearer_auth(&token)
                .json(&json!({"title": "load"}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            created["id"].as_str().expect("a session id").to_string()
        }));
    }
    let mut ids = Vec::new();
    for creation in creations {
        ids.push(creation.await.unwrap());
    }
    let created = sample(pid);

    let ready = Arc::new(Barrier::new(sessions + 1));
    let streams: Vec<_> = ids
        .iter()
        .map(|id| {
            tokio::spawn(follow(
                http.clone(),
                format!("{base}/api/sessions/{id}/events"),
                token.clone(),
                Arc::clone(&ready),
            ))
        })
        .collect();
    ready.wait().await;
    let connected = sample(pid);

    let peak_rss = Arc::new(AtomicU64::new(0));
    let peak_threads = Arc::new(AtomicU64::new(0));
    let monitor = {
        let (peak_rss, peak_threads) = (Arc::clone(&peak_rss), Arc::clone(&peak_threads));
        tokio::spawn(async move {
            loop {
                if let Some((rss, _, threads)) = sample(pid) {
                    peak_rss.fetch_max(rss, Ordering::Relaxed);
                    peak_threads.fetch_max(threads, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let server_cpu = cpu_seconds(&pid.to_string());
    let client_cpu = cpu_seconds("self");
    let started = Instant::now();
    let posts: Vec<_> = ids
        .iter()
        .map(|id| {
            let (http, url, token, message) = (
                http.clone(),
                format!("{base}/api/sessions/{id}/messages"),
                token.clone(),
                message.clone(),
            );
            tokio::spawn(async move {
                http.post(url)
                    .bearer_auth(token)
                    .json(&json!({"text": message}))
                    .send()
                    .await
                    .map(|r| r.status().as_u16())
                    .unwrap_or(0)
            })
        })
        .collect();
    let mut accepted = 0;
    for post in posts {
        if post.await.unwrap() == 202 {
            accepted += 1;
        }
    }
    let mut all = StreamStats::default();
    let mut turns = Vec::new();
    let mut finished = 0;
    for stream in streams {
        let stats = stream.await.unwrap();
        finished += usize::from(stats.done);
        all.tokens += stats.tokens;
        all.delays.extend(stats.delays);
        all.gaps.extend(stats.gaps);
        all.steady_delays.extend(stats.steady_delays);
        all.steady_gaps.extend(stats.steady_gaps);
        turns.push(stats.turn_us);
    }
    let elapsed = started.elapsed();
    let server_cpu = cpu_seconds(&pid.to_string())
        .zip(server_cpu)
        .map(|(b, a)| b - a);
    let client_cpu = cpu_seconds("self").zip(client_cpu).map(|(b, a)| b - a);
    monitor.abort();
    let after = sample(pid);

    all.delays.sort_unstable();
    all.gaps.sort_unstable();
    all.steady_delays.sort_unstable();
    all.steady_gaps.sort_unstable();
    turns.sort_unstable();
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    let expected_turn = (tokens.saturating_sub(1) * pace_us) as f64;
    println!(
        "sessions {sessions}, messages accepted {accepted}, turns done {finished}, tokens {} of {}",
        all.tokens,
        sessions as u64 * tokens
    );
    println!(
        "wall time {:.2} s for {} tokens per turn at {} ms",
        elapsed.as_secs_f64(),
        tokens,
        pace_us / 1000
    );
    println!(
        "token delay through the server (us): mean {:.0}, p50 {}, p95 {}, p99 {}, max {} = {:.2}% of the {} ms pacing (mean)",
        mean(&all.delays),
        percentile(&all.delays, 0.5),
        percentile(&all.delays, 0.95),
        percentile(&all.delays, 0.99),
        all.delays.last().copied().unwrap_or(0),
        mean(&all.delays) / pace_us as f64 * 100.0,
        pace_us / 1000
    );
    println!(
        "gap between tokens (us): mean {:.0} (pacing {pace_us}: +{:.2}%), p99 {}",
        mean(&all.gaps),
        (mean(&all.gaps) / pace_us as f64 - 1.0) * 100.0,
        percentile(&all.gaps, 0.99)
    );
    println!(
        "steady state (token {WARM_UP} on): delay mean {:.0} us, p50 {}, p99 {} = {:.2}% of the pacing; gap mean {:.0} us (+{:.2}%)",
        mean(&all.steady_delays),
        percentile(&all.steady_delays, 0.5),
        percentile(&all.steady_delays, 0.99),
        mean(&all.steady_delays) / pace_us as f64 * 100.0,
        mean(&all.steady_gaps),
        (mean(&all.steady_gaps) / pace_us as f64 - 1.0) * 100.0
    );
    println!(
        "turn (first token to done, us): mean {:.0} vs {expected_turn:.0} paced (+{:.2}%), p99 {}",
        mean(&turns),
        (mean(&turns) / expected_turn.max(1.0) - 1.0) * 100.0,
        percentile(&turns, 0.99)
    );
    if let (Some(server), Some(client)) = (server_cpu, client_cpu) {
        let tokens = all.tokens.max(1) as f64;
        println!(
            "CPU during the turns: server {server:.2} s ({:.1} us per token), client {client:.2} s ({:.1} us per token), wall {:.2} s on {} cores",
            server / tokens * 1e6,
            client / tokens * 1e6,
            elapsed.as_secs_f64(),
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        );
    }
    for (label, s) in [
        ("before", before),
        ("sessions created", created),
        ("streams connected", connected),
        ("after", after),
    ] {
        if let Some((rss, hwm, threads)) = s {
            println!(
                "server {label}: RSS {:.1} MB, peak RSS {:.1} MB, threads {threads}",
                rss as f64 / 1024.0,
                hwm as f64 / 1024.0
            );
        }
    }
    println!(
        "server during the turns: peak RSS {:.1} MB, peak threads {}",
        peak_rss.load(Ordering::Relaxed) as f64 / 1024.0,
        peak_threads.load(Ordering::Relaxed)
    );
}
