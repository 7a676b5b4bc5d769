//! `metrics` frames against the fake server: they arrive at the interval,
//! with spec/patrol.md's names, ids scoped to this agent's host as in its
//! inventory (its Docker containers' too, on the real engine when there is
//! one), and none when the interval is off.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use support::{TestServer, agent_config, enroll_agent, start_agent};
use warden_agent::inventory::{InventoryConfig, ProxmoxDiscovery};
use warden_infra::DockerDiscovery;
use warden_protocol::ResourceId;
use warden_protocol::agent::{AgentFrame, MetricsReport};
use warden_protocol::metrics::{MetricName, MetricUnit};

const IMAGE: &str = "warden-test-base:1";

/// A running container of the test image, removed when dropped; `None`
/// (said loudly) without an engine.
struct Container {
    name: String,
    id: String,
}

impl Container {
    fn start() -> Option<Container> {
        let reachable = Command::new("docker")
            .args(["version", "--format", "{{.Server.Version}}"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !reachable {
            eprintln!("!!! DOCKER ENGINE UNREACHABLE: the agent's metrics are of its host only");
            return None;
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../warden-infra/tests/support/build-test-image.sh");
        let built = Command::new("sh").arg(script).arg(IMAGE).output().unwrap();
        assert!(built.status.success());
        let mut container = Container {
            name: format!("warden-test-agent-metrics-{}", std::process::id()),
            id: String::new(),
        };
        let run = Command::new("docker")
            .args([
                "run",
                "-d",
                "--name",
                &container.name,
                IMAGE,
                "/bin/sleep",
                "300",
            ])
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        container.id = String::from_utf8(run.stdout).unwrap().trim().to_string();
        Some(container)
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("docker")
            .args(["rm", "-f", &self.name])
            .output();
    }
}

/// Every sample names a metric of spec/patrol.md, a resource of this
/// agent's host, an instance exactly when the metric has one, and a
/// plausible value.
fn assert_valid(report: &MetricsReport, host: &str) {
    assert!(!report.samples.is_empty());
    for sample in &report.samples {
        let metric = MetricName::parse(&sample.metric)
            .unwrap_or_else(|| panic!("unknown metric {}", sample.metric));
        let id: ResourceId = sample.resource.parse().unwrap();
        assert!(
            id.to_string() == format!("host:{host}") || id.host() == Some(host),
            "{id} is not on {host}"
        );
        assert_eq!(
            sample.instance.is_some(),
            metric.instance().is_some(),
            "{sample:?}"
        );
        assert!(
            sample.value.is_finite() && sample.value >= 0.0,
            "{sample:?}"
        );
        if metric.unit() == MetricUnit::Percent {
            assert!(sample.value <= 100.0, "{sample:?}");
        }
    }
}

#[tokio::test]
async fn metrics_frames_arrive_at_the_interval_with_valid_names() {
    let container = Container::start();
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "metricshost", dir.path()).await;
    let mut config = agent_config(&state_dir);
    config.metrics_interval = Some(Duration::from_secs(1));
    if container.is_some() {
        config.inventory = InventoryConfig {
            docker: DockerDiscovery::FromEnv,
            proxmox: ProxmoxDiscovery::Disabled,
            interval: Duration::from_secs(1),
        };
    }
    let started = Instant::now();
    let agent = start_agent(config);
    let mut conn = server.next_connection().await;
    let mut reports = Vec::new();
    while reports.len() < 4 {
        if let Some(AgentFrame::Metrics(report)) = conn.next_frame().await {
            reports.push((Instant::now(), report));
        }
    }
    let inventory = conn.inventory().await;
    agent.stop().await.unwrap();

    // The first a moment after connecting (its rates over its first
    // second), then one per interval.
    assert!(reports[0].0 - started < Duration::from_secs(5));
    for pair in reports.windows(2) {
        let gap = pair[1].1.at.saturating_sub(pair[0].1.at);
        assert!((700..=1600).contains(&gap), "{gap} ms between frames");
    }
    for (_, report) in &reports {
        assert_valid(report, "metricshost");
    }
    // Every frame has the host's share of the CPU (rates from the first),
    // and its root filesystem.
    for (_, report) in &reports {
        let has = |metric: &str, instance: Option<&str>| {
            report.samples.iter().any(|s| {
                s.resource == "host:metricshost"
                    && s.metric == metric
                    && s.instance.as_deref() == instance
            })
        };
        assert!(has("cpu_percent", None), "{report:?}");
        assert!(has("memory_percent", None));
        assert!(has("disk_used_percent", Some("/")));
        assert!(has("uptime_seconds", None));
    }
    // Its containers as its inventory names them.
    if let Some(container) = &container {
        let id = format!("docker_container:metricshost:{}", &container.id[..12]);
        assert!(inventory.iter().any(|r| r.id.to_string() == id));
        let last = &reports.last().unwrap().1;
        for metric in [
            "cpu_percent",
            "memory_used_bytes",
            "restarts",
            "uptime_seconds",
        ] {
            assert!(
                last.samples
                    .iter()
                    .any(|s| s.resource == id && s.metric == metric),
                "{metric} of {id} missing"
            );
        }
    }
}

#[tokio::test]
async fn no_metrics_frames_when_the_interval_is_off() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = enroll_agent(&server, "quiet", dir.path()).await;
    let mut config = agent_config(&state_dir);
    config.metrics_interval = None;
    let agent = start_agent(config);
    let mut conn = server.next_connection().await;
    let until = Instant::now() + Duration::from_millis(2500);
    let mut frames = 0;
    while Instant::now() < until {
        let next = tokio::time::timeout(Duration::from_millis(300), conn.next_frame()).await;
        if let Ok(Some(frame)) = next {
            frames += 1;
            assert!(
                !matches!(frame, AgentFrame::Metrics(_)),
                "a metrics frame with the interval off"
            );
        }
    }
    assert!(frames > 0, "the agent said nothing at all");
    agent.stop().await.unwrap();
}
