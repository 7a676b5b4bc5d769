//! Classification throughput and per-command latency.
//!
//! `cargo bench -p warden-policy --bench classify` prints, before divan's
//! throughput tables, the per-command latency distribution over the NL2Bash
//! corpus (each command timed on its own, best of several runs, so the
//! percentiles describe commands, not scheduler noise).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use warden_policy::classify;

fn shared_dir() -> PathBuf {
    std::env::var_os("WARDEN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

fn nl2bash() -> Vec<String> {
    let bytes = std::fs::read(shared_dir().join("corpus/nl2bash-commands.txt")).unwrap_or_default();
    String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::to_string)
        .collect()
}

fn dev_corpus() -> Vec<String> {
    std::fs::read_to_string(shared_dir().join("corpus/commands-dev.tsv"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(_, c)| c.to_string()))
        .collect()
}

fn latency_report(name: &str, commands: &[String]) {
    if commands.is_empty() {
        println!("{name}: corpus not found (set WARDEN_SHARED)");
        return;
    }
    // Warm up caches and the lazily built registry.
    for c in commands {
        black_box(classify(c));
    }
    const RUNS: usize = 7;
    let mut per_command: Vec<u128> = commands
        .iter()
        .map(|c| {
            (0..RUNS)
                .map(|_| {
                    let start = Instant::now();
                    black_box(classify(black_box(c)));
                    start.elapsed().as_nanos()
                })
                .min()
                .unwrap_or(0)
        })
        .collect();
    per_command.sort_unstable();
    let pct = |p: f64| per_command[((per_command.len() - 1) as f64 * p) as usize];
    println!(
        "{name}: {} commands; per-command latency median {} ns, p90 {} ns, p99 {} ns, max {} ns",
        per_command.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        per_command.last().copied().unwrap_or(0)
    );
}

fn main() {
    latency_report("nl2bash", &nl2bash());
    latency_report("dev corpus", &dev_corpus());
    divan::main();
}

#[divan::bench]
fn nl2bash_corpus(bencher: divan::Bencher) {
    let commands = nl2bash();
    bencher
        .counter(divan::counter::ItemsCount::new(commands.len()))
        .bench(|| {
            for c in &commands {
                black_box(classify(black_box(c)));
            }
        });
}

#[divan::bench]
fn dev_corpus_all(bencher: divan::Bencher) {
    let commands = dev_corpus();
    bencher
        .counter(divan::counter::ItemsCount::new(commands.len()))
        .bench(|| {
            for c in &commands {
                black_box(classify(black_box(c)));
            }
        });
}
