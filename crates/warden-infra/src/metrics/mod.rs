//! Metrics of this machine and its Docker containers (spec/patrol.md
//! "Metric names"), sampled the way an agent sends them in `metrics`
//! frames and the server keeps them for this machine.
//!
//! - [`procfs`]: the kernel's files, parsed (pure);
//! - [`rules`]: which filesystems, disks and interfaces get series; rates
//!   and percentages (pure);
//! - [`host`]: a reading of this machine and its metrics; the
//!   [`HostSampler`] keeps the previous reading for rates;
//! - [`cgroup`], [`containers`]: the containers' counters, from their
//!   control groups or the engine's statistics; the [`ContainerSampler`];
//! - [`MetricsCollector`]: both, as samples of resource ids
//!   (`host:<name>`, `docker_container:<name>:<short id>`, the ids the
//!   inventory gives them).
//!
//! Rates need two readings: a collector's first collection has no CPU
//! share and no rates; take one at start ([`MetricsCollector::collect`]
//! and drop it) when the first report should have them.

pub mod cgroup;
pub mod containers;
pub mod host;
pub mod procfs;
pub mod rules;

use warden_protocol::agent::MetricSample;
use warden_protocol::metrics::{MetricName, Sample};
use warden_protocol::{ResourceId, ResourceKind};

pub use containers::{ContainerMeasurements, ContainerSampler, CounterSource, HostShare};
pub use host::{HostPaths, HostReading, HostSampler};

use crate::docker::DockerClient;

/// One metric's value now; the instance names the mount point, device or
/// interface of metrics that have one.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub metric: MetricName,
    pub instance: Option<String>,
    pub value: f64,
}

/// A measurement of one resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub resource: ResourceId,
    pub metric: MetricName,
    pub instance: Option<String>,
    pub value: f64,
}

impl Measured {
    fn of(resource: &ResourceId, measurement: Measurement) -> Self {
        Measured {
            resource: resource.clone(),
            metric: measurement.metric,
            instance: measurement.instance,
            value: measurement.value,
        }
    }

    /// As a `metrics` frame carries it.
    pub fn frame_sample(&self) -> MetricSample {
        MetricSample {
            resource: self.resource.to_string(),
            metric: self.metric.as_str().to_string(),
            instance: self.instance.clone(),
            value: self.value,
        }
    }

    /// As the history keeps it, taken at `at_ms`.
    pub fn sample(&self, at_ms: u64) -> Sample {
        Sample {
            resource: self.resource.to_string(),
            metric: self.metric,
            instance: self.instance.clone().unwrap_or_default(),
            at_ms,
            value: self.value,
        }
    }
}

/// What one collection gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collection {
    /// The host's first, then each container's.
    pub samples: Vec<Measured>,
    /// Containers measured, and from where.
    pub containers: Vec<(String, Option<CounterSource>)>,
    /// Why the containers are missing, when they are.
    pub docker_error: Option<String>,
}

/// Samples a host and its containers, keeping what rates need between
/// collections.
#[derive(Debug)]
pub struct MetricsCollector {
    hostname: String,
    host_id: ResourceId,
    host: HostSampler,
    containers: Option<ContainerSampler>,
}

impl MetricsCollector {
    /// The host `host:<hostname>` and, with `docker`, its containers.
    /// `hostname` is the name the inventory scopes ids to.
    pub fn new(hostname: &str, docker: Option<DockerClient>) -> Self {
        MetricsCollector::with_samplers(
            hostname,
            HostSampler::new(),
            docker.map(ContainerSampler::new),
        )
    }

    pub fn with_samplers(
        hostname: &str,
        host: HostSampler,
        containers: Option<ContainerSampler>,
    ) -> Self {
        MetricsCollector {
            hostname: hostname.to_string(),
            host_id: ResourceId::global(ResourceKind::Host, hostname),
            host,
            containers,
        }
    }

    pub fn host_id(&self) -> &ResourceId {
        &self.host_id
    }

    /// One collection. The host is read on a blocking thread (a `statvfs`
    /// may wait on a slow disk), the engine awaited. Needs a tokio runtime.
    pub async fn collect(&mut self) -> Collection {
        let mut sampler = std::mem::take(&mut self.host);
        let (sampler, measured) = match tokio::task::spawn_blocking(move || {
            let measured = sampler.sample();
            (sampler, measured)
        })
        .await
        {
            Ok(done) => done,
            // The sampler panicked: start again with a fresh one.
            Err(_) => (HostSampler::new(), Vec::new()),
        };
        self.host = sampler;
        let mut collection = Collection {
            samples: measured
                .into_iter()
                .map(|m| Measured::of(&self.host_id, m))
                .collect(),
            ..Collection::default()
        };
        let share = HostShare {
            cpus: self
                .host
                .last()
                .and_then(|r| r.cpu)
                .map_or(1, |(_, cpus)| cpus),
            memory_total: self.host.last().and_then(|r| r.memory).map(|m| m.total),
        };
        if let Some(containers) = &mut self.containers {
            match containers.sample(share).await {
                Ok(measured) => {
                    for container in measured {
                        let id = ResourceId::scoped(
                            ResourceKind::DockerContainer,
                            &self.hostname,
                            container.short_id(),
                        );
                        collection
                            .containers
                            .push((container.id.clone(), container.source));
                        collection.samples.extend(
                            container
                                .measurements
                                .into_iter()
                                .map(|m| Measured::of(&id, m)),
                        );
                    }
                }
                Err(error) => collection.docker_error = Some(error.to_string()),
            }
        }
        collection
    }
}
