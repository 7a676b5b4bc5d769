//! RRD parsing on recorded answer shapes: nodes (PVE 8 and 9), a VM, a
//! container. Rows with only `time` are samples not (yet) consolidated; a
//! missing key is an absent sample, never a null.

use std::path::Path;

use serde_json::Value;
use warden_infra::proxmox::rrd::{
    Metric, RrdSource, Timeframe, build_histories, metric_series, parse_rrddata, sparkline_of,
};

fn recorded(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/proxmox-rrd")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let answer: Value = serde_json::from_str(&text).unwrap();
    answer["data"].clone()
}

#[test]
fn node_pve8_hour() {
    let table = parse_rrddata(&recorded("node-pve8-hour-average.json")).unwrap();
    assert_eq!(table.times.len(), 70);
    assert!(table.times.windows(2).all(|w| w[1] - w[0] == 60));
    // Two gap rows and the unconsolidated last row carry no samples.
    let cpu = metric_series(&table, Metric::Cpu, RrdSource::Node).unwrap();
    assert_eq!(cpu.len(), 67);
    assert!(
        cpu.iter().all(|p| (3.0..=43.0).contains(&p.v)),
        "cpu is a 0..1 fraction shown as %"
    );
    let memory = metric_series(&table, Metric::Memory, RrdSource::Node).unwrap();
    assert!(
        memory.iter().all(|p| (26.0..=46.0).contains(&p.v)),
        "{memory:?}"
    );
    let disk = metric_series(&table, Metric::Disk, RrdSource::Node).unwrap();
    assert!(
        disk.windows(2).all(|w| w[1].v >= w[0].v),
        "root use only grows here"
    );
    assert!(metric_series(&table, Metric::DiskRead, RrdSource::Node).is_none());
    let histories = build_histories(
        &table,
        &table,
        RrdSource::Node,
        Metric::for_source(RrdSource::Node),
        Timeframe::Hour,
        20,
    );
    assert_eq!(histories.len(), 8);
    for history in &histories {
        assert!(history.average.len() <= 20, "{}", history.metric);
        let summary = history.summary.unwrap();
        assert!(
            summary.min <= summary.avg && summary.avg <= summary.max,
            "{}",
            history.metric
        );
        assert_eq!(
            summary.latest.t, table.times[68],
            "the last consolidated row"
        );
    }
}

#[test]
fn node_pve9_has_more_columns_and_omitted_keys() {
    let table = parse_rrddata(&recorded("node-pve9-hour-average.json")).unwrap();
    assert_eq!(table.times.len(), 70);
    for column in [
        "memavailable",
        "arcsize",
        "pressurecpusome",
        "pressureiofull",
    ] {
        assert!(table.column(column).is_some(), "{column}");
    }
    let arc = table.column("arcsize").unwrap();
    let present = arc.iter().filter(|v| v.is_some()).count();
    // Omitted every 11th row (from the 6th), plus the gap and the last row.
    assert_eq!(present, 70 - 2 - 6);
    // The PVE 8 metrics read the same from PVE 9's column set.
    let memory = metric_series(&table, Metric::Memory, RrdSource::Node).unwrap();
    assert_eq!(memory.len(), 68);
}

#[test]
fn vm_and_container_series() {
    let day_max = parse_rrddata(&recorded("qemu-pve9-day-max.json")).unwrap();
    let week = parse_rrddata(&recorded("qemu-pve8-week-average.json")).unwrap();
    assert_eq!(week.times.len(), 70);
    let cpu = metric_series(&week, Metric::Cpu, RrdSource::Guest).unwrap();
    assert_eq!(cpu.len(), 68, "the last two rows are unconsolidated");
    let memory = metric_series(&day_max, Metric::Memory, RrdSource::Guest).unwrap();
    assert!(
        memory.iter().all(|p| p.v > 30.0 && p.v < 85.0),
        "{memory:?}"
    );
    for metric in Metric::for_source(RrdSource::Guest) {
        assert!(
            metric_series(&day_max, *metric, RrdSource::Guest).is_some_and(|s| !s.is_empty()),
            "{metric}"
        );
    }
    assert!(metric_series(&day_max, Metric::Load, RrdSource::Guest).is_none());

    let lxc = parse_rrddata(&recorded("lxc-pve8-day-average.json")).unwrap();
    let histories = build_histories(
        &lxc,
        &lxc,
        RrdSource::Guest,
        &[Metric::Disk, Metric::NetIn],
        Timeframe::Day,
        120,
    );
    assert_eq!(histories.len(), 2);
    let disk = &histories[0];
    // Fewer samples than max_points: kept as they are (70 rows, 3 gaps, 1 unconsolidated).
    assert_eq!(disk.average.len(), 66);
    let summary = disk.summary.unwrap();
    assert!(
        summary.min < summary.max && (13.0..16.0).contains(&summary.max),
        "{summary:?}"
    );
    let line = sparkline_of(&disk.average, 30);
    assert_eq!(line.chars().count(), 30);
    assert!(
        line.starts_with('▁') && line.ends_with('█'),
        "disk use grows: {line}"
    );
}
