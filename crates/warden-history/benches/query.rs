//! Query latency on a filled store: one series over 30 days (and other
//! ranges), and 24 h sparklines of 500 resources. The store is filled once
//! (31 days of one host's cpu and memory at 10 s, and the last day of 500
//! hosts), through `ingest`/`flush` on a manual clock, so every tier and
//! the open window are as in a running server.
//!
//! `cargo bench -p warden-history --bench query`

#![allow(clippy::expect_used)] // benchmark set-up: a panic is a broken benchmark

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use warden_history::{Clock, HistoryStore, Options, Retention};
use warden_protocol::metrics::{MetricName, Sample};

const H: u64 = 3_600_000;
const D: u64 = 24 * H;
const T0: u64 = 1_767_225_600_000;
// One minute into a window: the grace of the one before is running,
// so the next window's samples wait in memory too (the worst case).
const END: u64 = T0 + 31 * D + 7 * H + 60_000;
const HOSTS: usize = 500;

struct Filled {
    _dir: tempfile::TempDir,
    store: HistoryStore,
    hosts: Vec<String>,
}

fn filled() -> &'static Filled {
    static FILLED: OnceLock<Filled> = OnceLock::new();
    FILLED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("dir");
        let now = Arc::new(AtomicU64::new(T0));
        let mut options = Options::new(Retention::default());
        options.clock = Clock::Manual(now.clone());
        let store = HistoryStore::open_with(&dir.path().join("history.db"), options).expect("open");
        let hosts: Vec<String> = (0..HOSTS).map(|i| format!("host:h{i:03}")).collect();
        let sample = |resource: &str, metric, at_ms, value| Sample {
            resource: resource.to_string(),
            metric,
            instance: String::new(),
            at_ms,
            value,
        };
        let started = std::time::Instant::now();
        let mut batch = Vec::new();
        let mut tick = 0u64;
        let mut at = T0;
        while at < END {
            now.store(at, Ordering::Relaxed);
            let wave = ((at / 60_000) % 1440) as f64 / 1440.0 * std::f64::consts::TAU;
            batch.clear();
            batch.push(sample(
                "host:long",
                MetricName::CpuPercent,
                at,
                30.0 + 20.0 * wave.sin() + (tick % 7) as f64,
            ));
            batch.push(sample(
                "host:long",
                MetricName::MemoryPercent,
                at,
                50.0 + (tick % 13) as f64 / 10.0,
            ));
            if at + D >= END {
                for (i, host) in hosts.iter().enumerate() {
                    let v = 20.0 + 10.0 * wave.cos() + ((tick + i as u64) % 11) as f64;
                    batch.push(sample(host, MetricName::CpuPercent, at, v));
                    batch.push(sample(
                        host,
                        MetricName::MemoryPercent,
                        at,
                        40.0 + (i % 40) as f64,
                    ));
                }
            }
            store.ingest(&batch).expect("ingest");
            if tick % 6 == 5 {
                store.flush().expect("flush");
            }
            tick += 1;
            at += 10_000;
        }
        store.flush().expect("flush");
        println!(
            "filled in {:.1} s: {} MB on disk; load {}",
            started.elapsed().as_secs_f64(),
            store.disk_bytes() / 1_000_000,
            std::fs::read_to_string("/proc/loadavg")
                .unwrap_or_default()
                .trim()
        );
        Filled {
            _dir: dir,
            store,
            hosts,
        }
    })
}

fn range(bencher: divan::Bencher, back: u64, step: Option<u64>) {
    let f = filled();
    bencher.bench(|| {
        let p = f
            .store
            .points(
                "host:long",
                MetricName::CpuPercent,
                "",
                END - back,
                END,
                step,
            )
            .expect("points");
        assert!(p.points.iter().filter(|p| p.1.is_some()).count() * 10 >= p.points.len() * 9);
        p
    });
}

#[divan::bench]
fn one_series_30d_auto_step(bencher: divan::Bencher) {
    range(bencher, 30 * D, None);
}

#[divan::bench]
fn one_series_30d_15min_step(bencher: divan::Bencher) {
    range(bencher, 30 * D, Some(15 * 60_000));
}

#[divan::bench]
fn one_series_7d_auto_step(bencher: divan::Bencher) {
    range(bencher, 7 * D, None);
}

#[divan::bench]
fn one_series_24h_auto_step(bencher: divan::Bencher) {
    range(bencher, D, None);
}

#[divan::bench]
fn one_series_1h_10s(bencher: divan::Bencher) {
    range(bencher, H, None);
}

fn sparklines(bencher: divan::Bencher, width: usize) {
    let f = filled();
    let names: Vec<&str> = f.hosts.iter().map(String::as_str).collect();
    bencher.bench(|| {
        let lines = f
            .store
            .sparklines(&names, MetricName::CpuPercent, None, D, width)
            .expect("sparklines");
        assert_eq!(lines.len(), HOSTS);
        lines
    });
}

#[divan::bench(sample_count = 20)]
fn sparklines_500_hosts_24h_96_points(bencher: divan::Bencher) {
    sparklines(bencher, 96);
}

#[divan::bench(sample_count = 20)]
fn sparklines_500_hosts_24h_288_points(bencher: divan::Bencher) {
    sparklines(bencher, 288);
}

#[divan::bench]
fn baseline_band_24h(bencher: divan::Bencher) {
    let f = filled();
    let p = f
        .store
        .points("host:long", MetricName::CpuPercent, "", END - D, END, None)
        .expect("points");
    bencher.bench(|| {
        f.store
            .baseline("host:long", MetricName::CpuPercent, "", &p)
            .expect("baseline")
            .expect("a band after 31 days")
    });
}

fn main() {
    divan::main();
}
