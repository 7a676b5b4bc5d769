//! The Docker containers' metrics (spec/patrol.md, `docker_container`):
//! CPU share of all the host's processors, memory of its limit, traffic
//! per interface, restarts and uptime.
//!
//! Counters come from the kernel when the container's control group is in
//! sight ([`super::cgroup`]), else from the engine's one-shot statistics;
//! restarts and the start time from `inspect`, kept between samples and
//! asked again when the container's state changes, every minute, or when
//! its main process is no longer its own (it restarted). The listing, one
//! cheap request, runs every sample.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use warden_protocol::metrics::MetricName;

use super::Measurement;
use super::cgroup::{CgroupPaths, read_counters};
use super::procfs::NetCounters;
use super::rules::{clamp_percent, network_rates, percent};
use crate::docker::{
    ContainerInspect, ContainerStats, ContainerSummary, DockerClient, DockerError,
};

/// How long inspected facts serve before they are asked again (a restart
/// between two inspections shows up at the next one).
const FACTS_TTL: Duration = Duration::from_secs(60);

/// One reading of a running container's counters.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerCounters {
    pub at: Instant,
    /// CPU time used since the container started, in nanoseconds.
    pub cpu_ns: Option<u64>,
    /// Memory in use, the page cache that could be dropped left out (as
    /// `docker stats` counts it).
    pub memory_used: Option<u64>,
    /// `None`: no limit (the host's memory is).
    pub memory_limit: Option<u64>,
    /// Per interface inside the container (`eth0`), loopback left out.
    pub networks: Vec<NetCounters>,
}

/// The engine's statistics as counters.
pub fn counters_from_engine(stats: &ContainerStats, at: Instant) -> ContainerCounters {
    let memory = stats.memory_stats.as_ref();
    let usage = memory.and_then(|m| m.usage);
    // cgroup v2 says `inactive_file`, v1 `total_inactive_file`.
    let inactive = memory
        .and_then(|m| m.stats.as_ref())
        .and_then(|s| {
            s.get("inactive_file")
                .or_else(|| s.get("total_inactive_file"))
        })
        .copied()
        .unwrap_or(0);
    let mut networks: Vec<NetCounters> = stats
        .networks
        .iter()
        .flatten()
        .filter(|(name, _)| name.as_str() != "lo")
        .map(|(name, n)| NetCounters {
            interface: name.clone(),
            rx_bytes: n.rx_bytes.unwrap_or(0),
            tx_bytes: n.tx_bytes.unwrap_or(0),
        })
        .collect();
    networks.sort_by(|a, b| a.interface.cmp(&b.interface));
    ContainerCounters {
        at,
        cpu_ns: stats
            .cpu_stats
            .as_ref()
            .and_then(|c| c.cpu_usage.as_ref())
            .and_then(|u| u.total_usage),
        memory_used: usage.map(|u| u.saturating_sub(inactive)),
        memory_limit: memory.and_then(|m| m.limit).filter(|l| *l > 0),
        networks,
    }
}

/// What `inspect` says of a container, kept between samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerFacts {
    pub running: bool,
    /// The main process, in the engine's pid namespace.
    pub pid: Option<u32>,
    pub restarts: u64,
    /// When it last started, ms since the Unix epoch.
    pub started_at_ms: Option<i64>,
    /// The listing's state when inspected.
    pub listed_state: String,
    pub fetched: Instant,
}

/// The facts of an inspected container.
pub fn facts_from_inspect(
    inspect: &ContainerInspect,
    listed_state: &str,
    at: Instant,
) -> ContainerFacts {
    let state = inspect.state.as_ref();
    ContainerFacts {
        running: state.and_then(|s| s.running).unwrap_or(false),
        pid: state
            .and_then(|s| s.pid)
            .and_then(|p| u32::try_from(p).ok())
            .filter(|p| *p > 0),
        restarts: inspect
            .restart_count
            .and_then(|r| u64::try_from(r).ok())
            .unwrap_or(0),
        started_at_ms: state
            .and_then(|s| s.started_at.as_deref())
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .map(|t| t.as_millisecond())
            .filter(|ms| *ms > 0),
        listed_state: listed_state.to_string(),
        fetched: at,
    }
}

/// Whether a container must be inspected (again) before it is measured.
pub fn needs_inspect(cached: Option<&ContainerFacts>, listed_state: &str, now: Instant) -> bool {
    match cached {
        None => true,
        Some(facts) => {
            facts.listed_state != listed_state
                || now.saturating_duration_since(facts.fetched) >= FACTS_TTL
        }
    }
}

/// The host a container's shares are of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostShare {
    /// Online processors: a container using all of them is at 100 %.
    pub cpus: usize,
    /// The host's memory: the limit of a container without one.
    pub memory_total: Option<u64>,
}

/// A container's metrics from its facts and two readings of its counters
/// (`now` is `None` when it is not running or could not be read). Pure.
pub fn container_measurements(
    before: Option<&ContainerCounters>,
    now: Option<&ContainerCounters>,
    facts: &ContainerFacts,
    host: HostShare,
    now_ms: i64,
) -> Vec<Measurement> {
    let mut out = Vec::new();
    let mut put = |metric, instance: Option<&str>, value: Option<f64>| {
        if let Some(value) = value.filter(|v| v.is_finite()) {
            out.push(Measurement {
                metric,
                instance: instance.map(str::to_string),
                value,
            });
        }
    };
    if let Some(now) = now {
        let seconds = before.map(|b| now.at.saturating_duration_since(b.at).as_secs_f64());
        if let (Some(was), Some(is), Some(seconds)) =
            (before.and_then(|b| b.cpu_ns), now.cpu_ns, seconds)
        {
            let capacity_ns = seconds * 1e9 * host.cpus.max(1) as f64;
            let share = (is >= was && capacity_ns > 0.0)
                .then(|| clamp_percent((is - was) as f64 * 100.0 / capacity_ns));
            put(MetricName::CpuPercent, None, share);
        }
        if let Some(used) = now.memory_used {
            let limit = match (now.memory_limit, host.memory_total) {
                (Some(limit), Some(total)) => Some(limit.min(total)),
                (Some(limit), None) => Some(limit),
                (None, total) => total,
            };
            put(
                MetricName::MemoryPercent,
                None,
                limit.and_then(|l| percent(used, l)),
            );
            put(MetricName::MemoryUsedBytes, None, Some(used as f64));
        }
        if let (Some(before), Some(seconds)) = (before, seconds) {
            network_rates(&before.networks, &now.networks, seconds, &mut put);
        }
    }
    put(MetricName::Restarts, None, Some(facts.restarts as f64));
    let uptime = match (facts.running, facts.started_at_ms) {
        (true, Some(started)) => Some(now_ms.saturating_sub(started).max(0) as f64 / 1000.0),
        (true, None) => None,
        (false, _) => Some(0.0),
    };
    put(MetricName::UptimeSeconds, None, uptime);
    out
}

/// Where a container's counters came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterSource {
    /// Its control group and network namespace, read from the kernel.
    Cgroup,
    /// The engine's statistics.
    Engine,
}

/// One container's metrics from one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerMeasurements {
    /// The full id (its resource id takes the 12-hex short id).
    pub id: String,
    /// `None`: not running, or its counters could not be read.
    pub source: Option<CounterSource>,
    pub measurements: Vec<Measurement>,
}

impl ContainerMeasurements {
    /// The 12-hex short id `docker ps` shows and resource ids use.
    pub fn short_id(&self) -> &str {
        self.id.get(..12).unwrap_or(&self.id)
    }
}

/// Measures the containers of one engine, keeping facts and readings
/// between samples.
#[derive(Debug)]
pub struct ContainerSampler {
    client: DockerClient,
    cgroups: CgroupPaths,
    previous: HashMap<String, ContainerCounters>,
    facts: HashMap<String, ContainerFacts>,
    /// Where each container's last counters came from.
    sources: HashMap<String, CounterSource>,
}

impl ContainerSampler {
    pub fn new(client: DockerClient) -> Self {
        ContainerSampler::with_paths(client, CgroupPaths::default())
    }

    pub fn with_paths(client: DockerClient, cgroups: CgroupPaths) -> Self {
        ContainerSampler {
            client,
            cgroups,
            previous: HashMap::new(),
            facts: HashMap::new(),
            sources: HashMap::new(),
        }
    }

    /// Every container's metrics now. Fails only when the engine cannot
    /// list its containers; a container that cannot be inspected or read
    /// (removed meanwhile) is left out or has fewer metrics.
    pub async fn sample(
        &mut self,
        host: HostShare,
    ) -> Result<Vec<ContainerMeasurements>, DockerError> {
        let listed = self.client.list_containers().await?;
        let mut out = Vec::with_capacity(listed.len());
        for container in &listed {
            if let Some(measured) = self.measure(container, host).await {
                out.push(measured);
            }
        }
        // Forget removed containers.
        self.previous
            .retain(|id, _| listed.iter().any(|c| &c.id == id));
        self.facts
            .retain(|id, _| listed.iter().any(|c| &c.id == id));
        self.sources
            .retain(|id, _| listed.iter().any(|c| &c.id == id));
        Ok(out)
    }

    async fn measure(
        &mut self,
        container: &ContainerSummary,
        host: HostShare,
    ) -> Option<ContainerMeasurements> {
        let id = container.id.as_str();
        let mut facts = self.facts_of(container, false).await?;
        let mut reading = None;
        if facts.running {
            reading = facts
                .pid
                .and_then(|pid| read_counters(&self.cgroups, id, pid));
            if reading.is_none() && facts.pid.is_some() && self.cgroup_was_read(id) {
                // Its process is gone or another's: it restarted.
                facts = self.facts_of(container, true).await?;
                reading = facts
                    .pid
                    .and_then(|pid| read_counters(&self.cgroups, id, pid));
            }
        }
        let source = match (&reading, facts.running) {
            (Some(_), _) => Some(CounterSource::Cgroup),
            (None, true) => match self.client.container_stats(id).await {
                Ok(stats) => {
                    reading = Some(counters_from_engine(&stats, Instant::now()));
                    Some(CounterSource::Engine)
                }
                Err(error) => {
                    tracing::debug!(container = id, %error, "no statistics for a container");
                    None
                }
            },
            (None, false) => None,
        };
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        let measurements = container_measurements(
            self.previous.get(id),
            reading.as_ref(),
            &facts,
            host,
            now_ms,
        );
        match reading {
            Some(reading) => {
                self.previous.insert(id.to_string(), reading);
            }
            None => {
                self.previous.remove(id);
            }
        }
        match source {
            Some(source) => {
                self.sources.insert(id.to_string(), source);
            }
            None => {
                self.sources.remove(id);
            }
        }
        Some(ContainerMeasurements {
            id: id.to_string(),
            source,
            measurements,
        })
    }

    /// The container's facts, inspected when stale or when `again`.
    async fn facts_of(
        &mut self,
        container: &ContainerSummary,
        again: bool,
    ) -> Option<ContainerFacts> {
        let now = Instant::now();
        let cached = self.facts.get(&container.id);
        if !again && !needs_inspect(cached, &container.state, now) {
            return cached.cloned();
        }
        match self.client.inspect_container(&container.id).await {
            Ok(inspect) => {
                let facts = facts_from_inspect(&inspect, &container.state, now);
                self.facts.insert(container.id.clone(), facts.clone());
                Some(facts)
            }
            Err(error) => {
                tracing::debug!(container = %container.id, %error, "cannot inspect a container");
                self.facts.remove(&container.id);
                None
            }
        }
    }

    fn cgroup_was_read(&self, id: &str) -> bool {
        self.sources.get(id) == Some(&CounterSource::Cgroup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: &str = r#"{
      "read": "2024-05-01T10:00:10.000000000Z",
      "cpu_stats": {"cpu_usage": {"total_usage": 5000000000}, "system_cpu_usage": 90000000000, "online_cpus": 2},
      "memory_stats": {"usage": 300000000, "limit": 1000000000,
                       "stats": {"inactive_file": 100000000, "active_file": 5}},
      "networks": {"eth0": {"rx_bytes": 1000, "tx_bytes": 2000},
                   "eth1": {"rx_bytes": 10, "tx_bytes": 20}}
    }"#;

    const INSPECT: &str = r#"{
      "Id": "3f4e1c2b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
      "RestartCount": 3,
      "State": {"Status": "running", "Running": true, "Pid": 4242,
                "StartedAt": "2024-05-01T10:00:00.5Z"}
    }"#;

    fn facts() -> ContainerFacts {
        let inspect: ContainerInspect = serde_json::from_str(INSPECT).unwrap();
        facts_from_inspect(&inspect, "running", Instant::now())
    }

    #[test]
    fn engine_statistics_as_counters() {
        let stats: ContainerStats = serde_json::from_str(STATS).unwrap();
        let counters = counters_from_engine(&stats, Instant::now());
        assert_eq!(counters.cpu_ns, Some(5_000_000_000));
        assert_eq!(counters.memory_used, Some(200_000_000));
        assert_eq!(counters.memory_limit, Some(1_000_000_000));
        let names: Vec<&str> = counters
            .networks
            .iter()
            .map(|n| n.interface.as_str())
            .collect();
        assert_eq!(names, ["eth0", "eth1"]);
        // cgroup v1 engines name the page cache differently.
        let v1 = STATS.replace("\"inactive_file\"", "\"total_inactive_file\"");
        let stats: ContainerStats = serde_json::from_str(&v1).unwrap();
        assert_eq!(
            counters_from_engine(&stats, Instant::now()).memory_used,
            Some(200_000_000)
        );
        // A stopped container's statistics are empty.
        let empty: ContainerStats = serde_json::from_str("{}").unwrap();
        let counters = counters_from_engine(&empty, Instant::now());
        assert_eq!((counters.cpu_ns, counters.memory_used), (None, None));
    }

    #[test]
    fn inspected_facts() {
        let facts = facts();
        assert!(facts.running);
        assert_eq!(facts.pid, Some(4242));
        assert_eq!(facts.restarts, 3);
        assert_eq!(facts.started_at_ms, Some(1_714_557_600_500));
        // Never started: the engine says year 1.
        let never: ContainerInspect = serde_json::from_str(
            r#"{"State": {"Running": false, "Pid": 0, "StartedAt": "0001-01-01T00:00:00Z"}}"#,
        )
        .unwrap();
        let facts = facts_from_inspect(&never, "created", Instant::now());
        assert_eq!(
            (facts.pid, facts.started_at_ms, facts.restarts),
            (None, None, 0)
        );
    }

    #[test]
    fn when_to_inspect_again() {
        let facts = facts();
        let now = facts.fetched;
        assert!(needs_inspect(None, "running", now));
        assert!(!needs_inspect(
            Some(&facts),
            "running",
            now + Duration::from_secs(10)
        ));
        assert!(needs_inspect(Some(&facts), "restarting", now));
        assert!(needs_inspect(Some(&facts), "running", now + FACTS_TTL));
    }

    fn value(measured: &[Measurement], metric: MetricName) -> Option<f64> {
        measured
            .iter()
            .find(|m| m.metric == metric)
            .map(|m| m.value)
    }

    #[test]
    fn measurements_from_two_readings() {
        let start = Instant::now();
        let counters = |at: Instant, cpu_s: u64, rx: u64, limit: Option<u64>| ContainerCounters {
            at,
            cpu_ns: Some(cpu_s * 1_000_000_000),
            memory_used: Some(250),
            memory_limit: limit,
            networks: vec![NetCounters {
                interface: "eth0".into(),
                rx_bytes: rx,
                tx_bytes: 0,
            }],
        };
        let host = HostShare {
            cpus: 4,
            memory_total: Some(10_000),
        };
        let facts = facts();
        let started = facts.started_at_ms.unwrap();
        let first = counters(start, 100, 0, Some(1000));
        let measured = container_measurements(None, Some(&first), &facts, host, started + 90_000);
        assert_eq!(value(&measured, MetricName::CpuPercent), None);
        assert_eq!(value(&measured, MetricName::MemoryPercent), Some(25.0));
        assert_eq!(value(&measured, MetricName::MemoryUsedBytes), Some(250.0));
        assert_eq!(value(&measured, MetricName::Restarts), Some(3.0));
        assert_eq!(value(&measured, MetricName::UptimeSeconds), Some(90.0));
        // 20 s of CPU in 10 s on 4 processors: half of all of them.
        let second = counters(start + Duration::from_secs(10), 120, 50_000, None);
        let measured =
            container_measurements(Some(&first), Some(&second), &facts, host, started + 100_000);
        assert_eq!(value(&measured, MetricName::CpuPercent), Some(50.0));
        // No limit: the host's memory is.
        assert_eq!(value(&measured, MetricName::MemoryPercent), Some(2.5));
        assert_eq!(value(&measured, MetricName::NetRxBytesPerS), Some(5000.0));
        for m in &measured {
            assert_eq!(m.instance.is_some(), m.metric.instance().is_some(), "{m:?}");
        }
        // A restart reset the counters: no share this time.
        let reset = counters(start + Duration::from_secs(20), 1, 10, None);
        let measured =
            container_measurements(Some(&second), Some(&reset), &facts, host, started + 110_000);
        assert_eq!(value(&measured, MetricName::CpuPercent), None);
        assert_eq!(value(&measured, MetricName::NetRxBytesPerS), None);
        // Stopped: restarts and no uptime, nothing else.
        let stopped = ContainerFacts {
            running: false,
            ..facts
        };
        let measured = container_measurements(None, None, &stopped, host, started);
        assert_eq!(value(&measured, MetricName::UptimeSeconds), Some(0.0));
        assert_eq!(measured.len(), 2);
    }
}
