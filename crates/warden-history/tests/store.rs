//! The store end to end on a real SQLite file: ingest, flush, seal, read
//! back from every tier, reopen, late samples, retention, baselines,
//! sparklines.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod common;

use common::*;
use warden_history::{HistoryError, HistoryStore, Retention};
use warden_protocol::metrics::{MetricName, MetricUnit};

/// One hour of 10 s cpu values for `hosts`, flushed every minute; the
/// clock follows the data. Value at step i: (i % 100) + host index.
fn fill_hour(store: &HistoryStore, clock: &Manual, hosts: &[&str], from: u64) {
    for i in 0..360u64 {
        let at = from + i * 10 * S;
        clock.set(at);
        let batch: Vec<_> = hosts
            .iter()
            .enumerate()
            .map(|(h, name)| cpu(name, at, (i % 100) as f64 + h as f64))
            .collect();
        let got = store.ingest(&batch).expect("ingest");
        assert_eq!(got.accepted, hosts.len());
        if i % 6 == 5 {
            store.flush().expect("flush");
        }
    }
}

#[test]
fn every_tier_answers_before_and_after_sealing_and_after_reopening() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join(HistoryStore::FILE_NAME);
    let clock = Manual::new(T0);
    let store = open(&path, &clock, Retention::default());
    fill_hour(&store, &clock, &["host:a", "host:b"], T0);

    let check = |store: &HistoryStore| {
        // 10 s: exactly what was sent.
        let p = store
            .points("host:a", MetricName::CpuPercent, "", T0, T0 + H, None)
            .expect("points");
        assert_eq!(
            (p.step_ms, p.tier_ms, p.unit),
            (10 * S, 10 * S, MetricUnit::Percent)
        );
        assert_eq!(p.points.len(), 360);
        for (i, (at, v)) in p.points.iter().enumerate() {
            assert_eq!(
                (*at, *v),
                (T0 + i as u64 * 10 * S, Some((i % 100) as f64)),
                "slot {i}"
            );
        }
        let summary = p.summary.expect("summary");
        assert_eq!((summary.min, summary.max, summary.last), (0.0, 99.0, 59.0));
        // 1 min: the average of six values.
        let p = store
            .points("host:b", MetricName::CpuPercent, "", T0, T0 + H, Some(M))
            .expect("points");
        assert_eq!((p.step_ms, p.tier_ms, p.points.len()), (M, M, 60));
        assert_eq!(p.points[0], (T0, Some(1.0 + 2.5)));
        // 15 min and 1 h tiers: averages over their slots.
        let p = store
            .points(
                "host:a",
                MetricName::CpuPercent,
                "",
                T0,
                T0 + H,
                Some(15 * M),
            )
            .expect("points");
        assert_eq!(p.tier_ms, 15 * M);
        let first: f64 = (0..90).map(|i| (i % 100) as f64).sum::<f64>() / 90.0;
        assert_eq!(p.points[0], (T0, Some((first * 100.0).round() / 100.0)));
        let p = store
            .points("host:a", MetricName::CpuPercent, "", T0, T0 + H, Some(H))
            .expect("points");
        assert_eq!(p.tier_ms, H);
        let all: f64 = (0..360).map(|i| (i % 100) as f64).sum::<f64>() / 360.0;
        assert_eq!(p.points, vec![(T0, Some((all * 100.0).round() / 100.0))]);
    };
    // The last window is still open (in memory): answers are whole anyway.
    check(&store);
    // Past the grace: every window sealed.
    clock.set(T0 + H + 3 * M);
    store.flush().expect("flush");
    check(&store);
    let series = store.series("host:a").expect("series");
    assert_eq!(series.len(), 1);
    assert_eq!(series[0].latest, Some(59.0));
    assert_eq!(series[0].at_ms, Some(T0 + H - 10 * S));
    drop(store);
    let store = open(&path, &clock, Retention::default());
    check(&store);
    assert_eq!(
        store.series("host:a").expect("series")[0].latest,
        Some(59.0)
    );
    assert!(matches!(
        store.points("host:zz", MetricName::CpuPercent, "", T0, T0 + H, None),
        Err(HistoryError::UnknownSeries { .. })
    ));
    assert!(matches!(
        store.points("host:a", MetricName::CpuPercent, "", T0 + H, T0, None),
        Err(HistoryError::BadQuery(_))
    ));
}

#[test]
fn an_unsealed_window_survives_a_reopen_through_the_journal() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("h.db");
    let clock = Manual::new(T0);
    let store = open(&path, &clock, Retention::default());
    for i in 0..30u64 {
        clock.set(T0 + i * 10 * S);
        store
            .ingest(&[cpu("host:a", T0 + i * 10 * S, i as f64)])
            .expect("ingest");
    }
    store.flush().expect("flush");
    // Not dropped cleanly: forget it, as a kill would (no last flush).
    std::mem::forget(store);
    let store = open(&path, &clock, Retention::default());
    let p = store
        .points("host:a", MetricName::CpuPercent, "", T0, T0 + 5 * M, None)
        .expect("points");
    let present: Vec<f64> = p.points.iter().filter_map(|p| p.1).collect();
    assert_eq!(present, (0..30).map(|i| i as f64).collect::<Vec<_>>());
}

#[test]
fn late_samples_fill_gaps_in_every_tier_and_duplicates_are_counted() {
    let dir = tempfile::tempdir().expect("dir");
    let clock = Manual::new(T0);
    let store = open(&dir.path().join("h.db"), &clock, Retention::default());
    // Every other 10 s slot, for an hour, then sealed.
    for i in (0..360u64).step_by(2) {
        clock.set(T0 + i * 10 * S);
        store
            .ingest(&[cpu("host:a", T0 + i * 10 * S, 10.0)])
            .expect("ingest");
    }
    clock.set(T0 + H + 5 * M);
    store.flush().expect("flush");
    // The gaps arrive late (an import), and one slot again.
    let late: Vec<_> = (1..360u64)
        .step_by(2)
        .map(|i| cpu("host:a", T0 + i * 10 * S, 20.0))
        .collect();
    store.ingest(&late).expect("ingest");
    store.ingest(&[cpu("host:a", T0, 99.0)]).expect("ingest");
    store.flush().expect("flush");
    assert_eq!(store.health().late_duplicates, 1);
    let p = store
        .points(
            "host:a",
            MetricName::CpuPercent,
            "",
            T0,
            T0 + H,
            Some(10 * S),
        )
        .expect("points");
    assert!(p.points.iter().all(|p| p.1.is_some()));
    assert_eq!(p.points[0].1, Some(10.0));
    assert_eq!(p.points[1].1, Some(20.0));
    for step in [M, 15 * M, H] {
        let p = store
            .points("host:a", MetricName::CpuPercent, "", T0, T0 + H, Some(step))
            .expect("points");
        let s = p.summary.expect("summary");
        assert_eq!((s.min, s.avg, s.max), (10.0, 15.0, 20.0), "step {step}");
    }
}

#[test]
fn retention_deletes_what_expired_and_refuses_what_is_older_than_everything() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("h.db");
    let clock = Manual::new(T0);
    let retention = Retention::parse([("10s", "1h"), ("1m", "3h")]).expect("retention");
    let store = open(&path, &clock, retention.clone());
    for hour in 0..6 {
        fill_hour(&store, &clock, &["host:a"], T0 + hour * H);
    }
    clock.set(T0 + 6 * H + 3 * M);
    store.flush().expect("flush");
    let conn = rusqlite::Connection::open(&path).expect("raw");
    // A block's row id is (start / resolution) << 32 | series.
    let oldest = |res: i64| -> i64 {
        let key: i64 = conn
            .query_row(&format!("SELECT min(key) FROM blocks_{res}"), [], |r| {
                r.get(0)
            })
            .expect("oldest");
        (key >> 32) * res * 1000
    };
    let now = (T0 + 6 * H + 3 * M) as i64;
    // Whole blocks go once their span has expired: at most a block more.
    let window = 15 * M as i64;
    assert!(
        oldest(10) >= now - H as i64 - 2 * window,
        "{}",
        now - oldest(10)
    );
    assert!(
        oldest(60) >= now - 3 * H as i64 - 4 * H as i64,
        "{}",
        now - oldest(60)
    );
    assert!(oldest(10) > T0 as i64);
    let p = store
        .points("host:a", MetricName::CpuPercent, "", T0, T0 + H, None)
        .expect("points");
    assert!(
        p.points.iter().all(|p| p.1.is_none()),
        "expired data still answered"
    );
    let refused = store.ingest(&[cpu("host:a", T0, 1.0)]).expect("ingest");
    assert_eq!(refused.refused, 1);
    assert_eq!(store.health().rejected_too_old, 1);
}

#[test]
fn bad_values_and_the_future_are_refused_and_counted() {
    let dir = tempfile::tempdir().expect("dir");
    let clock = Manual::new(T0);
    let store = open(&dir.path().join("h.db"), &clock, Retention::default());
    let got = store
        .ingest(&[
            cpu("host:a", T0, f64::NAN),
            cpu("host:a", T0, f64::INFINITY),
            cpu("", T0, 1.0),
            cpu("host:a", T0 + D, 1.0),
            cpu("host:a", T0, 1.0),
        ])
        .expect("ingest");
    assert_eq!((got.accepted, got.refused), (1, 4));
    let h = store.health();
    assert_eq!(
        (h.rejected_values, h.rejected_future, h.accepted),
        (3, 1, 1)
    );
}

#[test]
fn sparklines_come_for_many_resources_at_once() {
    let dir = tempfile::tempdir().expect("dir");
    let clock = Manual::new(T0);
    let store = open(&dir.path().join("h.db"), &clock, Retention::default());
    let names: Vec<String> = (0..20).map(|i| format!("host:{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    for hour in 0..3 {
        fill_hour(&store, &clock, &refs, T0 + hour * H);
    }
    let disk = sample(
        "host:3",
        MetricName::DiskUsedPercent,
        "/var",
        T0 + 3 * H - S,
        40.0,
    );
    let root = sample(
        "host:3",
        MetricName::DiskUsedPercent,
        "/",
        T0 + 3 * H - S,
        70.0,
    );
    store.ingest(&[disk, root]).expect("ingest");
    let mut asked = refs.clone();
    asked.push("host:none");
    let lines = store
        .sparklines(&asked, MetricName::CpuPercent, None, 3 * H, 12)
        .expect("sparklines");
    assert_eq!(lines.len(), 20);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line.resource, names[i]);
        assert_eq!((line.step_ms, line.values.len()), (15 * M, 12));
        assert!(line.values.iter().all(Option::is_some), "{line:?}");
    }
    // A metric with instances: the first instance unless one is named.
    let lines = store
        .sparklines(&["host:3"], MetricName::DiskUsedPercent, None, H, 4)
        .expect("sparklines");
    assert_eq!(lines[0].instance, "/");
    assert_eq!(lines[0].values.last(), Some(&Some(70.0)));
    let lines = store
        .sparklines(&["host:3"], MetricName::DiskUsedPercent, Some("/var"), H, 4)
        .expect("sparklines");
    assert_eq!(lines[0].values.last(), Some(&Some(40.0)));
}

#[test]
fn baselines_learn_the_rolling_day_then_the_hour_of_week() {
    let dir = tempfile::tempdir().expect("dir");
    let clock = Manual::new(T0);
    let store = open(&dir.path().join("h.db"), &clock, Retention::default());
    // Busy (80 %) from 12:00 to 24:00, quiet (10 %) otherwise, with a
    // little noise, for 9 days.
    for i in 0..(9 * 8640u64) {
        let at = T0 + i * 10 * S;
        let hour = (at / H) % 24;
        let base = if hour >= 12 { 80.0 } else { 10.0 };
        let noise = ((i * 7919) % 11) as f64 / 10.0 - 0.5;
        clock.set(at);
        store
            .ingest(&[cpu("host:a", at, base + noise)])
            .expect("ingest");
        if i % 60 == 59 {
            store.flush().expect("flush");
        }
        if i == 2 * 8640 {
            // Two days in: only the rolling band, wide (both regimes).
            let (low, high) = store
                .band_at("host:a", MetricName::CpuPercent, "", at)
                .expect("band")
                .expect("a rolling band");
            assert!(low <= 10.0 && high >= 80.0, "{low} {high}");
        }
    }
    let now = T0 + 9 * D;
    clock.set(now + 3 * M);
    store.flush().expect("flush");
    // Nine days in: the hour of week, narrow around each regime.
    let (low, high) = store
        .band_at("host:a", MetricName::CpuPercent, "", now - 10 * H)
        .expect("band")
        .expect("an hourly band");
    assert!(
        low > 70.0 && high < 90.0 && low <= 80.0 && high >= 80.0,
        "{low} {high}"
    );
    let (low, high) = store
        .band_at("host:a", MetricName::CpuPercent, "", now - 20 * H)
        .expect("band")
        .expect("an hourly band");
    assert!(low <= 10.0 && (10.0..20.0).contains(&high), "{low} {high}");
    // Aligned with points.
    let p = store
        .points("host:a", MetricName::CpuPercent, "", now - D, now, None)
        .expect("points");
    let band = store
        .baseline("host:a", MetricName::CpuPercent, "", &p)
        .expect("baseline")
        .expect("a band");
    assert_eq!(
        (band.low.len(), band.high.len()),
        (p.points.len(), p.points.len())
    );
    let inside = p
        .points
        .iter()
        .zip(band.low.iter().zip(&band.high))
        .filter(
            |((_, v), (l, h))| matches!((v, l, h), (Some(v), Some(l), Some(h)) if l <= v && v <= h),
        )
        .count();
    assert!(
        inside * 10 >= p.points.len() * 9,
        "{inside} of {}",
        p.points.len()
    );
}

#[test]
fn a_flusher_thread_writes_batches_without_being_asked() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("h.db");
    let clock = Manual::new(T0 + 3 * M);
    let store = std::sync::Arc::new(open(&path, &clock, Retention::default()));
    let flusher =
        warden_history::Flusher::spawn(store.clone(), std::time::Duration::from_millis(20))
            .expect("thread");
    store.ingest(&[cpu("host:a", T0 + M, 1.0)]).expect("ingest");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while store.health().pending > 0 {
        assert!(std::time::Instant::now() < deadline, "never flushed");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    drop(flusher);
    let conn = rusqlite::Connection::open(&path).expect("raw");
    let batches: i64 = conn
        .query_row("SELECT count(*) FROM journal", [], |r| r.get(0))
        .expect("count");
    assert_eq!(batches, 1);
}
