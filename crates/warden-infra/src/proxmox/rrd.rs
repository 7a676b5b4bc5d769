//! History from PVE's `rrddata`: parsing (absent samples are omitted keys,
//! numbers may be strings) and metrics derived from the column sets of
//! nodes (PVE 8 and 9), VMs and containers; [`super::series`] makes them
//! compact. Pure: no IO here.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

use super::values::{as_float, uint_field};

pub use super::series::{Point, Reduce, Summary, downsample, sparkline, sparkline_of, summarize};

/// Points returned per series unless asked otherwise.
pub const DEFAULT_MAX_POINTS: usize = 120;

/// The `timeframe` of `rrddata`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Timeframe {
    Hour,
    Day,
    Week,
    Month,
    Year,
}

impl Timeframe {
    pub const ALL: [Timeframe; 5] = [
        Timeframe::Hour,
        Timeframe::Day,
        Timeframe::Week,
        Timeframe::Month,
        Timeframe::Year,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Timeframe::Hour => "hour",
            Timeframe::Day => "day",
            Timeframe::Week => "week",
            Timeframe::Month => "month",
            Timeframe::Year => "year",
        }
    }
}

impl fmt::Display for Timeframe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A range word that is not a timeframe.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown range `{0}`: expected hour, day, week, month or year")]
pub struct UnknownTimeframe(pub String);

impl FromStr for Timeframe {
    type Err = UnknownTimeframe;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.trim().to_ascii_lowercase();
        Timeframe::ALL
            .into_iter()
            .find(|t| t.as_str() == lower)
            .ok_or_else(|| UnknownTimeframe(text.to_string()))
    }
}

/// The consolidation function (`cf`) of `rrddata`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Consolidation {
    Average,
    Max,
}

impl Consolidation {
    /// The `cf` parameter value.
    pub fn as_param(self) -> &'static str {
        match self {
            Consolidation::Average => "AVERAGE",
            Consolidation::Max => "MAX",
        }
    }
}

/// Rows of one `rrddata` answer: times ascending, one column per key seen;
/// a sample absent from a row is `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RrdTable {
    pub times: Vec<i64>,
    pub columns: BTreeMap<String, Vec<Option<f64>>>,
}

impl RrdTable {
    pub fn column(&self, name: &str) -> Option<&[Option<f64>]> {
        self.columns.get(name).map(Vec::as_slice)
    }
}

/// Why an `rrddata` answer cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rrddata did not answer a list of samples (got {got})")]
pub struct RrdShapeError {
    pub got: String,
}

/// Parses the `data` of `rrddata`. Rows without a `time` are dropped (PVE
/// sends `[{}]` when there is no data yet); non-numeric values are absent.
pub fn parse_rrddata(data: &Value) -> Result<RrdTable, RrdShapeError> {
    let Some(rows) = data.as_array() else {
        let mut got = data.to_string();
        got.truncate(80);
        return Err(RrdShapeError { got });
    };
    let mut timed: Vec<(i64, &serde_json::Map<String, Value>)> = rows
        .iter()
        .filter_map(|row| {
            let time = uint_field(row, "time").and_then(|t| i64::try_from(t).ok())?;
            Some((time, row.as_object()?))
        })
        .collect();
    timed.sort_by_key(|(time, _)| *time);
    timed.dedup_by_key(|(time, _)| *time);
    let mut table = RrdTable {
        times: timed.iter().map(|(t, _)| *t).collect(),
        columns: BTreeMap::new(),
    };
    for (row_index, (_, row)) in timed.iter().enumerate() {
        for (key, value) in row.iter() {
            if key == "time" {
                continue;
            }
            let column = table
                .columns
                .entry(key.clone())
                .or_insert_with(|| vec![None; timed.len()]);
            column[row_index] = as_float(value);
        }
    }
    Ok(table)
}

/// What the history is of: a node's columns differ from a guest's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RrdSource {
    Node,
    Guest,
}

/// A metric the `metrics` tool can chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// CPU use, % of the allotted CPUs.
    Cpu,
    /// Memory used, % of the total.
    Memory,
    /// Root (node) or guest disk used, % of the size.
    Disk,
    /// Network in, bytes/s.
    NetIn,
    /// Network out, bytes/s.
    NetOut,
    /// Disk reads, bytes/s (guests).
    DiskRead,
    /// Disk writes, bytes/s (guests).
    DiskWrite,
    /// Load average (nodes).
    Load,
    /// CPU time waiting for IO, % (nodes).
    IoWait,
    /// Swap used, % (nodes).
    Swap,
}

impl Metric {
    pub const ALL: [Metric; 10] = [
        Metric::Cpu,
        Metric::Memory,
        Metric::Disk,
        Metric::NetIn,
        Metric::NetOut,
        Metric::DiskRead,
        Metric::DiskWrite,
        Metric::Load,
        Metric::IoWait,
        Metric::Swap,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Cpu => "cpu",
            Metric::Memory => "memory",
            Metric::Disk => "disk",
            Metric::NetIn => "netin",
            Metric::NetOut => "netout",
            Metric::DiskRead => "diskread",
            Metric::DiskWrite => "diskwrite",
            Metric::Load => "load",
            Metric::IoWait => "iowait",
            Metric::Swap => "swap",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Cpu | Metric::Memory | Metric::Disk | Metric::IoWait | Metric::Swap => "%",
            Metric::NetIn | Metric::NetOut | Metric::DiskRead | Metric::DiskWrite => "B/s",
            Metric::Load => "",
        }
    }

    /// The metrics a source has, in display order.
    pub fn for_source(source: RrdSource) -> &'static [Metric] {
        match source {
            RrdSource::Node => &[
                Metric::Cpu,
                Metric::Memory,
                Metric::Disk,
                Metric::NetIn,
                Metric::NetOut,
                Metric::Load,
                Metric::IoWait,
                Metric::Swap,
            ],
            RrdSource::Guest => &[
                Metric::Cpu,
                Metric::Memory,
                Metric::Disk,
                Metric::NetIn,
                Metric::NetOut,
                Metric::DiskRead,
                Metric::DiskWrite,
            ],
        }
    }

    /// How the metric is computed from the columns of `source`.
    fn formula(self, source: RrdSource) -> Option<Formula> {
        use Formula::{Percent, Ratio, Raw};
        match (self, source) {
            (Metric::Cpu, _) => Some(Percent("cpu")),
            (Metric::Memory, RrdSource::Node) => Some(Ratio("memused", "memtotal")),
            (Metric::Memory, RrdSource::Guest) => Some(Ratio("mem", "maxmem")),
            (Metric::Disk, RrdSource::Node) => Some(Ratio("rootused", "roottotal")),
            (Metric::Disk, RrdSource::Guest) => Some(Ratio("disk", "maxdisk")),
            (Metric::NetIn, _) => Some(Raw("netin")),
            (Metric::NetOut, _) => Some(Raw("netout")),
            (Metric::DiskRead, RrdSource::Guest) => Some(Raw("diskread")),
            (Metric::DiskWrite, RrdSource::Guest) => Some(Raw("diskwrite")),
            (Metric::Load, RrdSource::Node) => Some(Raw("loadavg")),
            (Metric::IoWait, RrdSource::Node) => Some(Percent("iowait")),
            (Metric::Swap, RrdSource::Node) => Some(Ratio("swapused", "swaptotal")),
            (Metric::DiskRead | Metric::DiskWrite, RrdSource::Node)
            | (Metric::Load | Metric::IoWait | Metric::Swap, RrdSource::Guest) => None,
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A metric name that names no metric.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown metric `{0}`: expected cpu, memory, disk, netin, netout, diskread, diskwrite, load, iowait or swap"
)]
pub struct UnknownMetric(pub String);

impl FromStr for Metric {
    type Err = UnknownMetric;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "mem" | "ram" => "memory",
            "net_in" | "network_in" => "netin",
            "net_out" | "network_out" => "netout",
            "loadavg" => "load",
            other => other,
        };
        Metric::ALL
            .into_iter()
            .find(|m| m.as_str() == alias)
            .ok_or_else(|| UnknownMetric(text.to_string()))
    }
}

enum Formula {
    /// A 0..1 fraction shown as %.
    Percent(&'static str),
    /// `a / b` as %, absent when `b` is absent or zero.
    Ratio(&'static str, &'static str),
    Raw(&'static str),
}

/// The metric at every row where its columns are present; `None` when the
/// source does not have it.
pub fn metric_series(table: &RrdTable, metric: Metric, source: RrdSource) -> Option<Vec<Point>> {
    let formula = metric.formula(source)?;
    let value_at = |column: &str, row: usize| table.column(column).and_then(|c| c[row]);
    let points = (0..table.times.len())
        .filter_map(|row| {
            let v = match &formula {
                Formula::Percent(column) => value_at(column, row)? * 100.0,
                Formula::Ratio(used, total) => {
                    let total = value_at(total, row).filter(|t| *t > 0.0)?;
                    value_at(used, row)? / total * 100.0
                }
                Formula::Raw(column) => value_at(column, row)?,
            };
            v.is_finite().then_some(Point {
                t: table.times[row],
                v,
            })
        })
        .collect();
    Some(points)
}

/// A metric's history over a timeframe, compact enough for the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricHistory {
    pub metric: Metric,
    pub unit: &'static str,
    pub timeframe: Timeframe,
    /// The AVERAGE series, downsampled.
    pub average: Vec<Point>,
    /// The MAX series, downsampled (each point the bucket's peak).
    pub peak: Vec<Point>,
    /// `None` when there are no samples in the range.
    pub summary: Option<Summary>,
}

/// Builds the histories of `metrics` from the AVERAGE and MAX tables.
/// Metrics the source does not have are left out.
pub fn build_histories(
    average: &RrdTable,
    max: &RrdTable,
    source: RrdSource,
    metrics: &[Metric],
    timeframe: Timeframe,
    max_points: usize,
) -> Vec<MetricHistory> {
    metrics
        .iter()
        .filter_map(|&metric| {
            let avg_points = metric_series(average, metric, source)?;
            let max_points_full = metric_series(max, metric, source).unwrap_or_default();
            Some(MetricHistory {
                metric,
                unit: metric.unit(),
                timeframe,
                summary: summarize(&avg_points, &max_points_full),
                average: downsample(&avg_points, max_points, Reduce::Mean),
                peak: downsample(&max_points_full, max_points, Reduce::Max),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn rows_with_omitted_keys_and_string_numbers() {
        let table = parse_rrddata(&json!([
            {"time": 120, "cpu": "0.5", "maxcpu": 4},
            {"time": 60, "cpu": 0.25, "mem": 10},
            {"time": 60, "cpu": 0.99},
            {},
            {"cpu": 1},
            {"time": 180}
        ]))
        .unwrap();
        assert_eq!(table.times, vec![60, 120, 180]);
        assert_eq!(table.column("cpu").unwrap(), &[Some(0.25), Some(0.5), None]);
        assert_eq!(table.column("mem").unwrap(), &[Some(10.0), None, None]);
        assert_eq!(table.column("maxcpu").unwrap(), &[None, Some(4.0), None]);
        assert!(parse_rrddata(&json!([{}])).unwrap().times.is_empty());
        assert!(parse_rrddata(&json!({"a": 1})).is_err());
    }

    #[test]
    fn metrics_from_columns() {
        let table = parse_rrddata(&json!([
            {"time": 1, "cpu": 0.1, "mem": 50, "maxmem": 200, "netin": 1000},
            {"time": 2, "cpu": 0.2, "mem": 100, "maxmem": 0},
            {"time": 3, "mem": 150, "maxmem": 200}
        ]))
        .unwrap();
        let cpu = metric_series(&table, Metric::Cpu, RrdSource::Guest).unwrap();
        assert_eq!(
            cpu.iter().map(|p| (p.t, p.v.round())).collect::<Vec<_>>(),
            vec![(1, 10.0), (2, 20.0)]
        );
        let mem = metric_series(&table, Metric::Memory, RrdSource::Guest).unwrap();
        assert_eq!(mem, vec![Point { t: 1, v: 25.0 }, Point { t: 3, v: 75.0 }]);
        assert_eq!(
            metric_series(&table, Metric::NetIn, RrdSource::Guest)
                .unwrap()
                .len(),
            1
        );
        assert!(metric_series(&table, Metric::Load, RrdSource::Guest).is_none());
        assert_eq!(
            metric_series(&table, Metric::Load, RrdSource::Node),
            Some(vec![])
        );
    }

    #[test]
    fn names_parse() {
        assert_eq!("Week".parse::<Timeframe>(), Ok(Timeframe::Week));
        assert!(
            "fortnight"
                .parse::<Timeframe>()
                .unwrap_err()
                .to_string()
                .contains("expected hour")
        );
        assert_eq!("RAM".parse::<Metric>(), Ok(Metric::Memory));
        assert_eq!("loadavg".parse::<Metric>(), Ok(Metric::Load));
        assert!("temp".parse::<Metric>().is_err());
        for m in Metric::ALL {
            assert_eq!(m.as_str().parse::<Metric>(), Ok(m));
        }
    }

    proptest! {
        #[test]
        fn parsing_is_total(rows in prop::collection::vec(
            prop::collection::btree_map("time|cpu|mem|maxmem|netin", prop_oneof![
                (0u32..10_000).prop_map(|n| json!(n)),
                (0u32..10_000).prop_map(|n| json!(n.to_string())),
                Just(json!(null)),
                Just(json!("x")),
            ], 0..5),
            0..50,
        )) {
            let data = Value::Array(rows.into_iter().map(|m| json!(m)).collect());
            let table = parse_rrddata(&data).unwrap();
            prop_assert!(table.times.windows(2).all(|w| w[0] < w[1]));
            for column in table.columns.values() {
                prop_assert_eq!(column.len(), table.times.len());
            }
        }
    }
}
