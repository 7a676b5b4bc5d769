//! The history vocabulary of spec/patrol.md: metric names, their units and
//! whether they have an instance (a mount point, a device, an interface),
//! and one sample of a series. Agents send samples in `metrics` frames;
//! this machine, Docker and Proxmox `rrddata` are sampled into the same
//! series, so one query covers every source.

use serde::{Deserialize, Serialize};

/// A metric of spec/patrol.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricName {
    CpuPercent,
    Load1,
    MemoryPercent,
    MemoryUsedBytes,
    SwapPercent,
    DiskUsedPercent,
    DiskInodesPercent,
    DiskReadBytesPerS,
    DiskWriteBytesPerS,
    NetRxBytesPerS,
    NetTxBytesPerS,
    Restarts,
    UptimeSeconds,
}

/// What a metric's numbers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricUnit {
    Percent,
    Load,
    Bytes,
    BytesPerSecond,
    Count,
    Seconds,
}

impl MetricUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            MetricUnit::Percent => "%",
            MetricUnit::Load => "load",
            MetricUnit::Bytes => "bytes",
            MetricUnit::BytesPerSecond => "bytes/s",
            MetricUnit::Count => "count",
            MetricUnit::Seconds => "s",
        }
    }
}

/// What a metric's instance names, when it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstanceKind {
    MountPoint,
    Device,
    Interface,
}

impl MetricName {
    pub const ALL: [MetricName; 13] = [
        MetricName::CpuPercent,
        MetricName::Load1,
        MetricName::MemoryPercent,
        MetricName::MemoryUsedBytes,
        MetricName::SwapPercent,
        MetricName::DiskUsedPercent,
        MetricName::DiskInodesPercent,
        MetricName::DiskReadBytesPerS,
        MetricName::DiskWriteBytesPerS,
        MetricName::NetRxBytesPerS,
        MetricName::NetTxBytesPerS,
        MetricName::Restarts,
        MetricName::UptimeSeconds,
    ];

    /// The name on the wire and in the API (`cpu_percent`).
    pub fn as_str(self) -> &'static str {
        match self {
            MetricName::CpuPercent => "cpu_percent",
            MetricName::Load1 => "load1",
            MetricName::MemoryPercent => "memory_percent",
            MetricName::MemoryUsedBytes => "memory_used_bytes",
            MetricName::SwapPercent => "swap_percent",
            MetricName::DiskUsedPercent => "disk_used_percent",
            MetricName::DiskInodesPercent => "disk_inodes_percent",
            MetricName::DiskReadBytesPerS => "disk_read_bytes_per_s",
            MetricName::DiskWriteBytesPerS => "disk_write_bytes_per_s",
            MetricName::NetRxBytesPerS => "net_rx_bytes_per_s",
            MetricName::NetTxBytesPerS => "net_tx_bytes_per_s",
            MetricName::Restarts => "restarts",
            MetricName::UptimeSeconds => "uptime_seconds",
        }
    }

    pub fn parse(name: &str) -> Option<MetricName> {
        MetricName::ALL.into_iter().find(|m| m.as_str() == name)
    }

    pub fn unit(self) -> MetricUnit {
        match self {
            MetricName::CpuPercent
            | MetricName::MemoryPercent
            | MetricName::SwapPercent
            | MetricName::DiskUsedPercent
            | MetricName::DiskInodesPercent => MetricUnit::Percent,
            MetricName::Load1 => MetricUnit::Load,
            MetricName::MemoryUsedBytes => MetricUnit::Bytes,
            MetricName::DiskReadBytesPerS
            | MetricName::DiskWriteBytesPerS
            | MetricName::NetRxBytesPerS
            | MetricName::NetTxBytesPerS => MetricUnit::BytesPerSecond,
            MetricName::Restarts => MetricUnit::Count,
            MetricName::UptimeSeconds => MetricUnit::Seconds,
        }
    }

    /// What the instance names; `None`: the series has no instance.
    pub fn instance(self) -> Option<InstanceKind> {
        match self {
            MetricName::DiskUsedPercent | MetricName::DiskInodesPercent => {
                Some(InstanceKind::MountPoint)
            }
            MetricName::DiskReadBytesPerS | MetricName::DiskWriteBytesPerS => {
                Some(InstanceKind::Device)
            }
            MetricName::NetRxBytesPerS | MetricName::NetTxBytesPerS => {
                Some(InstanceKind::Interface)
            }
            MetricName::CpuPercent
            | MetricName::Load1
            | MetricName::MemoryPercent
            | MetricName::MemoryUsedBytes
            | MetricName::SwapPercent
            | MetricName::Restarts
            | MetricName::UptimeSeconds => None,
        }
    }
}

/// One measurement of one series: (resource id, metric, instance) at a
/// time, in milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The canonical resource id (`host:web1`, `docker_container:web1:abc`).
    pub resource: String,
    pub metric: MetricName,
    /// Empty unless the metric has an instance.
    #[serde(default)]
    pub instance: String,
    pub at_ms: u64,
    pub value: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_say_their_unit_and_instance() {
        for metric in MetricName::ALL {
            assert_eq!(MetricName::parse(metric.as_str()), Some(metric));
            let json = serde_json::to_string(&metric).unwrap();
            assert_eq!(json, format!("\"{}\"", metric.as_str()));
        }
        assert_eq!(MetricName::parse("cpu"), None);
        assert_eq!(
            MetricName::DiskUsedPercent.instance(),
            Some(InstanceKind::MountPoint)
        );
        assert_eq!(MetricName::NetRxBytesPerS.unit().as_str(), "bytes/s");
        assert_eq!(MetricName::CpuPercent.instance(), None);
    }
}
