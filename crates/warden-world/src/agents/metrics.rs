//! What an agent's `metrics` frame may say (spec/agent.md, names of
//! spec/patrol.md): samples of its own machine only — `host:{name}` and
//! resources scoped to `{name}`, the rule its inventory follows — with a
//! known metric name (an unknown one is skipped: a newer agent may send
//! more), an instance exactly when the metric has one, and a finite,
//! non-negative value. Pure: the connection counts what was dropped and
//! hands the rest, as history samples, to whoever keeps them.

use warden_protocol::agent::MetricsReport;
use warden_protocol::metrics::{MetricName, Sample};
use warden_protocol::{ResourceId, ResourceKind};

/// An agent's clock this far from the server's is not believed: its
/// samples are taken as of their arrival.
pub const MAX_CLOCK_SKEW_MS: u64 = 5 * 60 * 1000;

/// Why a sample was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SampleRejection {
    /// Not an id, or another machine's resource.
    NotThisAgentsHost,
    /// A name this version does not know (not an error).
    UnknownMetric,
    /// An instance where the metric has none, or none where it needs one.
    Instance,
    /// NaN, infinite or negative.
    Value,
}

impl SampleRejection {
    pub const ALL: [SampleRejection; 4] = [
        SampleRejection::NotThisAgentsHost,
        SampleRejection::UnknownMetric,
        SampleRejection::Instance,
        SampleRejection::Value,
    ];

    /// The `/metrics` label value.
    pub fn as_str(self) -> &'static str {
        match self {
            SampleRejection::NotThisAgentsHost => "foreign_resource",
            SampleRejection::UnknownMetric => "unknown_metric",
            SampleRejection::Instance => "bad_instance",
            SampleRejection::Value => "bad_value",
        }
    }
}

/// A frame's samples, sorted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AcceptedMetrics {
    pub samples: Vec<Sample>,
    pub rejected: Vec<(String, SampleRejection)>,
}

/// The samples of `report` that agent `name` may report, as history
/// samples, taken at the frame's `at` (or at `received_ms` when the
/// agent's clock is off by more than [`MAX_CLOCK_SKEW_MS`]). Pure.
pub fn accept_metrics(name: &str, report: MetricsReport, received_ms: u64) -> AcceptedMetrics {
    let host_id = ResourceId::global(ResourceKind::Host, name);
    let at_ms = if report.at.abs_diff(received_ms) > MAX_CLOCK_SKEW_MS {
        received_ms
    } else {
        report.at
    };
    let mut accepted = AcceptedMetrics::default();
    for sample in report.samples {
        let verdict = check(
            name,
            &host_id,
            &sample.resource,
            &sample.metric,
            sample.instance.as_deref(),
            sample.value,
        );
        match verdict {
            Ok(metric) => accepted.samples.push(Sample {
                resource: sample.resource,
                metric,
                instance: sample.instance.unwrap_or_default(),
                at_ms,
                value: sample.value,
            }),
            Err(why) => accepted.rejected.push((sample.resource, why)),
        }
    }
    accepted
}

fn check(
    name: &str,
    host_id: &ResourceId,
    resource: &str,
    metric: &str,
    instance: Option<&str>,
    value: f64,
) -> Result<MetricName, SampleRejection> {
    let id: ResourceId = resource
        .parse()
        .map_err(|_| SampleRejection::NotThisAgentsHost)?;
    // The canonical spelling only: the history is keyed by it.
    if id.to_string() != resource || (id != *host_id && id.host() != Some(name)) {
        return Err(SampleRejection::NotThisAgentsHost);
    }
    let metric = MetricName::parse(metric).ok_or(SampleRejection::UnknownMetric)?;
    let has_instance = instance.is_some_and(|i| !i.is_empty());
    if has_instance != metric.instance().is_some() {
        return Err(SampleRejection::Instance);
    }
    if !value.is_finite() || value < 0.0 {
        return Err(SampleRejection::Value);
    }
    Ok(metric)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::agent::MetricSample;

    fn sample(resource: &str, metric: &str, instance: Option<&str>, value: f64) -> MetricSample {
        MetricSample {
            resource: resource.into(),
            metric: metric.into(),
            instance: instance.map(str::to_string),
            value,
        }
    }

    #[test]
    fn an_agent_speaks_for_its_own_machine_in_known_names() {
        let cases: [(MetricSample, Option<SampleRejection>); 14] = [
            (sample("host:web1", "cpu_percent", None, 12.5), None),
            (
                sample("host:web1", "disk_used_percent", Some("/"), 40.0),
                None,
            ),
            (
                sample("docker_container:web1:abc123", "restarts", None, 2.0),
                None,
            ),
            (
                sample("lxc:web1:101", "net_rx_bytes_per_s", Some("eth0"), 0.0),
                None,
            ),
            (
                sample("host:web2", "cpu_percent", None, 1.0),
                Some(SampleRejection::NotThisAgentsHost),
            ),
            (
                sample("docker_container:web2:abc", "cpu_percent", None, 1.0),
                Some(SampleRejection::NotThisAgentsHost),
            ),
            (
                sample("node:pve1", "cpu_percent", None, 1.0),
                Some(SampleRejection::NotThisAgentsHost),
            ),
            (
                sample("not an id", "cpu_percent", None, 1.0),
                Some(SampleRejection::NotThisAgentsHost),
            ),
            (
                sample("host:web1", "gpu_percent", None, 1.0),
                Some(SampleRejection::UnknownMetric),
            ),
            (
                sample("host:web1", "cpu_percent", Some("cpu0"), 1.0),
                Some(SampleRejection::Instance),
            ),
            (
                sample("host:web1", "disk_used_percent", None, 1.0),
                Some(SampleRejection::Instance),
            ),
            (
                sample("host:web1", "disk_used_percent", Some(""), 1.0),
                Some(SampleRejection::Instance),
            ),
            (
                sample("host:web1", "load1", None, f64::NAN),
                Some(SampleRejection::Value),
            ),
            (
                sample("host:web1", "uptime_seconds", None, -1.0),
                Some(SampleRejection::Value),
            ),
        ];
        for (sample, expected) in cases {
            let what = format!("{sample:?}");
            let report = MetricsReport {
                at: 1_000_000,
                samples: vec![sample],
            };
            let accepted = accept_metrics("web1", report, 1_000_000);
            match expected {
                None => {
                    assert_eq!(accepted.samples.len(), 1, "{what}");
                    assert!(accepted.rejected.is_empty(), "{what}");
                }
                Some(why) => {
                    assert!(accepted.samples.is_empty(), "{what}");
                    assert_eq!(accepted.rejected[0].1, why, "{what}");
                }
            }
        }
    }

    #[test]
    fn samples_keep_the_agents_time_unless_its_clock_is_off() {
        let report = |at| MetricsReport {
            at,
            samples: vec![sample("host:web1", "disk_used_percent", Some("/var"), 3.0)],
        };
        let kept = accept_metrics("web1", report(990_000), 1_000_000);
        assert_eq!(kept.samples[0].at_ms, 990_000);
        assert_eq!(kept.samples[0].instance, "/var");
        assert_eq!(kept.samples[0].metric, MetricName::DiskUsedPercent);
        let skewed = accept_metrics("web1", report(1_000_000 + MAX_CLOCK_SKEW_MS + 1), 1_000_000);
        assert_eq!(skewed.samples[0].at_ms, 1_000_000);
    }
}
