//! Helpers shared by the integration tests: a store on a manual clock.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use warden_history::{Clock, HistoryStore, Options, Retention};
use warden_protocol::metrics::{MetricName, Sample};

/// Thursday 2026-01-01 00:00 UTC: on an hour and a window.
pub const T0: u64 = 1_767_225_600_000;
pub const S: u64 = 1_000;
pub const M: u64 = 60 * S;
pub const H: u64 = 60 * M;
pub const D: u64 = 24 * H;

pub struct Manual(pub Arc<AtomicU64>);

impl Manual {
    pub fn new(at: u64) -> Manual {
        Manual(Arc::new(AtomicU64::new(at)))
    }
    pub fn set(&self, at: u64) {
        self.0.store(at, Ordering::Relaxed);
    }
    pub fn clock(&self) -> Clock {
        Clock::Manual(self.0.clone())
    }
}

pub fn open(path: &Path, clock: &Manual, retention: Retention) -> HistoryStore {
    let mut options = Options::new(retention);
    options.clock = clock.clock();
    HistoryStore::open_with(path, options).expect("open")
}

pub fn sample(
    resource: &str,
    metric: MetricName,
    instance: &str,
    at_ms: u64,
    value: f64,
) -> Sample {
    Sample {
        resource: resource.to_string(),
        metric,
        instance: instance.to_string(),
        at_ms,
        value,
    }
}

pub fn cpu(resource: &str, at_ms: u64, value: f64) -> Sample {
    sample(resource, MetricName::CpuPercent, "", at_ms, value)
}
