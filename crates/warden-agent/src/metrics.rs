//! `metrics` frames (spec/agent.md): every `--metrics-interval-secs` (10 s
//! by default) the metrics of spec/patrol.md for this agent's host and its
//! Docker containers, ids scoped to this host as in its `inventory`
//! frames (`host:<name>`, `docker_container:<name>:<short id>`).
//!
//! One [`MetricsSource`] lives as long as the agent, so a reconnection
//! keeps the previous reading and the next frame still has its rates. Its
//! very first collection (no rates yet) is not sent: a second one a moment
//! later is, then one per interval.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Mutex, mpsc};
use tokio::time::{Instant, MissedTickBehavior, interval_at};
use warden_infra::metrics::{Collection, MetricsCollector};
use warden_infra::{DockerClient, DockerDiscovery};
use warden_protocol::agent::{AgentFrame, MetricSample, MetricsReport};

use crate::dispatch::now_ms;

/// The most samples in one frame: about 100 bytes each, far below the
/// 1 MiB frame limit; a host with more sends several frames.
pub const MAX_SAMPLES_PER_FRAME: usize = 2_000;

/// How long after the priming collection the first frame's is taken: its
/// rates are over this span.
const FIRST_SPAN: Duration = Duration::from_secs(1);

/// The engine to measure containers of, as inventory discovery finds it.
pub fn docker_client(discovery: &DockerDiscovery) -> Option<DockerClient> {
    match discovery {
        DockerDiscovery::FromEnv => DockerClient::from_env().ok(),
        DockerDiscovery::Client(client) => Some(client.clone()),
        DockerDiscovery::Disabled => None,
    }
}

/// This agent's collector, shared by its connections one after another.
#[derive(Debug)]
pub struct MetricsSource {
    collector: Mutex<MetricsCollector>,
    primed: std::sync::atomic::AtomicBool,
    every: Duration,
}

impl MetricsSource {
    /// Metrics of `host:<host>` and, with `docker`, its containers, every
    /// `every`.
    pub fn new(host: &str, docker: Option<DockerClient>, every: Duration) -> Self {
        MetricsSource {
            collector: Mutex::new(MetricsCollector::new(host, docker)),
            primed: std::sync::atomic::AtomicBool::new(false),
            every: every.max(Duration::from_millis(100)),
        }
    }

    pub fn interval(&self) -> Duration {
        self.every
    }

    async fn collect(&self) -> Collection {
        self.collector.lock().await.collect().await
    }
}

/// The most bytes of samples in one frame: half the frame limit, so the
/// JSON's escapes never push a frame over it.
const MAX_FRAME_SAMPLE_BYTES: usize = warden_protocol::agent::MAX_FRAME_BYTES / 2;

/// The frames of one collection, taken at `at` (ms): one, or several when
/// there are more than [`MAX_SAMPLES_PER_FRAME`] samples or their text
/// would come near the frame limit (long mount points). Pure.
pub fn frames(at: u64, samples: Vec<MetricSample>) -> Vec<AgentFrame> {
    let mut frames = Vec::new();
    let mut chunk: Vec<MetricSample> = Vec::new();
    let mut bytes = 0;
    for sample in samples {
        // Field names, quotes and the number: under 80 bytes.
        let size = sample.resource.len()
            + sample.metric.len()
            + sample.instance.as_ref().map_or(0, String::len)
            + 80;
        if !chunk.is_empty()
            && (chunk.len() >= MAX_SAMPLES_PER_FRAME || bytes + size > MAX_FRAME_SAMPLE_BYTES)
        {
            frames.push(std::mem::take(&mut chunk));
            bytes = 0;
        }
        bytes += size;
        chunk.push(sample);
    }
    if !chunk.is_empty() {
        frames.push(chunk);
    }
    frames
        .into_iter()
        .map(|samples| AgentFrame::Metrics(MetricsReport { at, samples }))
        .collect()
}

/// Sends a `metrics` frame every interval until the connection's outbound
/// queue closes.
pub async fn report_metrics(source: Arc<MetricsSource>, out: mpsc::Sender<AgentFrame>) {
    let first = if source
        .primed
        .swap(true, std::sync::atomic::Ordering::SeqCst)
    {
        source.every
    } else {
        // The previous reading rates need.
        source.collect().await;
        FIRST_SPAN.min(source.every)
    };
    let mut ticker = interval_at(Instant::now() + first, source.every);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut docker_failing = false;
    loop {
        ticker.tick().await;
        let collection = source.collect().await;
        match (&collection.docker_error, docker_failing) {
            (Some(error), false) => {
                tracing::info!("containers are not measured: {error}");
                docker_failing = true;
            }
            (None, true) => {
                tracing::info!("containers are measured again");
                docker_failing = false;
            }
            (Some(_), true) | (None, false) => {}
        }
        let samples = collection
            .samples
            .iter()
            .map(|measured| measured.frame_sample())
            .collect();
        for frame in frames(now_ms(), samples) {
            if out.send(frame).await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: usize) -> MetricSample {
        MetricSample {
            resource: "host:web1".into(),
            metric: "disk_used_percent".into(),
            instance: Some(format!("/mnt/disk{i}")),
            value: 42.5,
        }
    }

    #[test]
    fn many_samples_go_in_several_frames_each_under_the_limit() {
        assert!(frames(1, Vec::new()).is_empty());
        let few = frames(7, (0..3).map(sample).collect());
        assert_eq!(few.len(), 1);
        let many = frames(7, (0..MAX_SAMPLES_PER_FRAME * 2 + 1).map(sample).collect());
        assert_eq!(many.len(), 3);
        let mut total = 0;
        for frame in &many {
            let AgentFrame::Metrics(report) = frame else {
                panic!("{frame:?}")
            };
            assert_eq!(report.at, 7);
            total += report.samples.len();
            // Fits the wire, even with long mount points.
            assert!(frame.to_text().is_ok());
        }
        assert_eq!(total, MAX_SAMPLES_PER_FRAME * 2 + 1);
        // Few samples, each with a long instance: split by size.
        let long: Vec<MetricSample> = (0..600)
            .map(|i| MetricSample {
                instance: Some(format!("/{}{i}", "x".repeat(4000))),
                ..sample(i)
            })
            .collect();
        let split = frames(7, long);
        assert!(split.len() > 1);
        assert!(split.iter().all(|f| f.to_text().is_ok()));
    }
}
