//! Sustained ingest, simulated as fast as possible: `HOSTS` hosts × 60
//! series every 10 s for `MINUTES` simulated minutes (defaults 1,000 and
//! 10: 6,000 samples/s), one `ingest` per host frame, one `flush` per 10 s
//! tick, on a manual clock. Starts at 11:58 so the run seals a window,
//! rolls every tier and refreshes baselines at the hour.
//!
//! Prints CPU time per simulated second of the store (ingest + flush +
//! seals; the synthetic data's generation is measured apart and taken
//! off), the worst flush, peak RSS, samples lost, bytes per point per tier
//! and the file size.
//!
//! `cargo bench -p warden-history --bench ingest`
//! `HOSTS=50 MINUTES=10080 cargo bench -p warden-history --bench ingest` (a week)

#![allow(clippy::expect_used)] // benchmark set-up: a panic is a broken benchmark

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use warden_history::{Clock, HistoryStore, Options, Retention};
use warden_protocol::metrics::{MetricName, Sample};

const T0: u64 = 1_767_225_600_000 + 11 * 3_600_000 + 58 * 60_000;
const TICK: u64 = 10_000;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: deterministic noise.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Roughly normal, mean 0, sd 1.
    fn normal(&mut self) -> f64 {
        (0..4).map(|_| self.unit()).sum::<f64>() * 1.732 - 3.464
    }
}

/// One host's series and state: the "typical" mix. 6 system series,
/// 5 mounts × (used, inodes), 6 block devices × (read, write) of which 2
/// busy, 16 interfaces × (rx, tx) of which 4 busy: 60 series.
struct Host {
    name: String,
    rng: Rng,
    cpu: f64,
    load: f64,
    mem: f64,
    disk: [f64; 5],
    uptime: f64,
}

const TOTAL_MEMORY: f64 = 16.0 * 1024.0 * 1024.0 * 1024.0;

impl Host {
    fn new(i: u64) -> Host {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (i + 1).wrapping_mul(0x1234_5678_9abc_def1));
        let disk = [0.0; 5].map(|_| 20.0 + 60.0 * rng.unit());
        Host {
            name: format!("host:h{i:04}"),
            cpu: 5.0 + 30.0 * rng.unit(),
            load: 0.5 + 2.0 * rng.unit(),
            mem: 0.3 + 0.4 * rng.unit(),
            disk,
            uptime: 86_400.0 * 30.0 * rng.unit(),
            rng,
        }
    }

    fn frame(&mut self, at: u64, out: &mut Vec<Sample>) {
        out.clear();
        let mut push = |metric: MetricName, instance: &str, value: f64| {
            out.push(Sample {
                resource: self.name.clone(),
                metric,
                instance: instance.to_string(),
                at_ms: at,
                value,
            })
        };
        let r = &mut self.rng;
        self.cpu = (self.cpu + 2.0 * r.normal()).clamp(0.5, 100.0);
        self.load = (self.load + 0.05 * r.normal()).max(0.0);
        self.mem = (self.mem + 0.001 * r.normal()).clamp(0.05, 0.98);
        self.uptime += 10.0;
        let used = (self.mem * TOTAL_MEMORY / 4096.0).round() * 4096.0;
        push(MetricName::CpuPercent, "", self.cpu);
        push(MetricName::Load1, "", self.load);
        push(MetricName::MemoryPercent, "", self.mem * 100.0);
        push(MetricName::MemoryUsedBytes, "", used);
        push(MetricName::SwapPercent, "", 1.25);
        push(MetricName::UptimeSeconds, "", self.uptime);
        const MOUNTS: [&str; 5] = ["/", "/var", "/home", "/srv", "/boot"];
        for (i, mount) in MOUNTS.iter().enumerate() {
            if r.unit() < 0.05 {
                self.disk[i] = (self.disk[i] + 0.01).min(100.0);
            }
            push(MetricName::DiskUsedPercent, mount, self.disk[i]);
            push(MetricName::DiskInodesPercent, mount, self.disk[i] / 3.0);
        }
        const DEVICES: [&str; 6] = ["sda", "sdb", "nvme0n1", "nvme1n1", "sdc", "sdd"];
        for (i, dev) in DEVICES.iter().enumerate() {
            for metric in [
                MetricName::DiskReadBytesPerS,
                MetricName::DiskWriteBytesPerS,
            ] {
                let busy = i < 2 && r.unit() < 0.6;
                let v = if busy {
                    (2e5 * (1.0 + r.normal().abs() * 3.0)).round()
                } else {
                    0.0
                };
                push(metric, dev, v);
            }
        }
        for (i, iface) in IFACES.iter().enumerate() {
            for metric in [MetricName::NetRxBytesPerS, MetricName::NetTxBytesPerS] {
                let v = if i < 4 {
                    (5e4 * (2.0 + r.normal())).max(0.0).round()
                } else if r.unit() < 0.1 {
                    (60.0 * r.unit()).round()
                } else {
                    0.0
                };
                push(metric, iface, v);
            }
        }
    }
}

const IFACES: [&str; 16] = [
    "eth0", "eth1", "bond0", "vmbr0", "docker0", "veth1", "veth2", "veth3", "veth4", "veth5",
    "veth6", "veth7", "tap100i0", "tap101i0", "lo", "wg0",
];

/// CPU seconds of this process (user + system), from /proc.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15; index 0 here is field 3.
    (ticks(11) + ticks(12)) / 100.0
}

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let hosts = env("HOSTS", 1_000);
    let minutes = env("MINUTES", 10);
    let ticks = minutes * 6;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "history ingest: {hosts} hosts x 60 series, {minutes} simulated min, load before: {}",
        load.trim()
    );

    // The data alone, to take its cost off.
    let mut fleet: Vec<Host> = (0..hosts).map(Host::new).collect();
    let mut frame = Vec::with_capacity(60);
    let generation_start = cpu_seconds();
    let mut generated = 0u64;
    for tick in 0..ticks {
        for host in fleet.iter_mut() {
            host.frame(T0 + tick * TICK, &mut frame);
            generated += frame.len() as u64;
            std::hint::black_box(&frame);
        }
    }
    let generation = cpu_seconds() - generation_start;

    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join(HistoryStore::FILE_NAME);
    let now = Arc::new(AtomicU64::new(T0));
    let mut options = Options::new(Retention::default());
    options.clock = Clock::Manual(now.clone());
    let store = HistoryStore::open_with(&path, options).expect("open");
    let mut fleet: Vec<Host> = (0..hosts).map(Host::new).collect();
    let start_cpu = cpu_seconds();
    let start = Instant::now();
    let mut worst_flush = Duration::ZERO;
    let mut accepted = 0u64;
    for tick in 0..ticks {
        let at = T0 + tick * TICK;
        now.store(at + 1_000, Ordering::Relaxed);
        for host in fleet.iter_mut() {
            host.frame(at, &mut frame);
            accepted += store.ingest(&frame).expect("ingest").accepted as u64;
        }
        let flush = Instant::now();
        store.flush().expect("flush");
        worst_flush = worst_flush.max(flush.elapsed());
    }
    let total_cpu = cpu_seconds() - start_cpu;
    let wall = start.elapsed();
    let store_cpu = (total_cpu - generation).max(0.0);
    let simulated = (ticks * TICK) as f64 / 1000.0;
    println!(
        "samples: {generated} generated, {accepted} accepted, {} lost",
        generated - accepted
    );
    println!(
        "cpu: {:.2} s total, {:.2} s generating, {:.2} s store over {simulated:.0} simulated s = {:.2} % of one core ({:.2} % with generation); wall {:.2} s",
        total_cpu,
        generation,
        store_cpu,
        100.0 * store_cpu / simulated,
        100.0 * total_cpu / simulated,
        wall.as_secs_f64()
    );
    println!(
        "worst flush (incl. seal): {:.1} ms",
        worst_flush.as_secs_f64() * 1000.0
    );
    println!("peak RSS: {} MB", status_kb("VmHWM:") / 1024);
    let health = store.health();
    println!(
        "health: series {}, pending {}, corrupt {}, refused {}",
        health.series,
        health.pending,
        health.corrupt_blocks,
        health.rejected_values + health.rejected_future + health.rejected_too_old
    );
    for t in store.tier_stats().expect("stats") {
        println!(
            "tier {:>7} ms: {:>8} blocks, {:>11} bytes, {:>11} points, {:.2} bytes/point",
            t.resolution_ms,
            t.blocks,
            t.bytes,
            t.points,
            t.bytes as f64 / t.points.max(1) as f64
        );
    }
    let disk = store.disk_bytes();
    println!(
        "file: {:.1} MB ({:.2} bytes per sample ingested, journal and SQLite overhead included)",
        disk as f64 / 1e6,
        disk as f64 / accepted.max(1) as f64
    );
    if let Ok(keep) = std::env::var("KEEP_DB") {
        // Closing checkpoints the WAL into the file.
        drop(store);
        std::fs::copy(&path, &keep).expect("copy the database");
        println!("database kept at {keep}");
    }
    println!(
        "load after: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}
