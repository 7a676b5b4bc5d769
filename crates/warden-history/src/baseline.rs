//! Baselines: a robust band per series, the median ± 3 scaled MADs of its
//! values by hour of week once 7 days exist (four weeks of the same hour,
//! from a 15 min tier: up to 16 values), else of the last 24 hours. A
//! floor on the band's half-width per unit keeps a flat series from
//! calling every wiggle an anomaly. Pure: no IO.

use warden_protocol::metrics::MetricUnit;

pub const HOUR_MS: u64 = 3_600_000;
pub const WEEK_MS: u64 = 7 * 24 * HOUR_MS;
/// Hours of week are buckets `0..168`; this one is the rolling 24 hours.
pub const ROLLING: u32 = 168;
/// Weeks looked back for an hour of week.
pub const WEEKS: u64 = 4;
/// Fewer values than this give no band.
pub const MIN_VALUES: usize = 3;
/// Half-width in scaled MADs (1.4826 MAD estimates σ for normal data).
const K: f64 = 3.0;
const MAD_SCALE: f64 = 1.4826;

/// The hour of the week of a time, Monday 00:00 UTC being 0.
pub fn hour_of_week(at_ms: u64) -> u32 {
    let hours = at_ms / HOUR_MS;
    let days = hours / 24;
    // 1970-01-01 was a Thursday: day 3 of a week starting Monday.
    (((days + 3) % 7) * 24 + hours % 24) as u32
}

/// The median and the median absolute deviation; `None` with fewer than
/// [`MIN_VALUES`] finite values.
pub fn median_mad(values: &[f64]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.len() < MIN_VALUES {
        return None;
    }
    let median = median_of(&mut v);
    let mut deviations: Vec<f64> = v.iter().map(|x| (x - median).abs()).collect();
    Some((median, median_of(&mut deviations)))
}

fn median_of(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The band (low, high) of a median and MAD for a unit.
pub fn band(median: f64, mad: f64, unit: MetricUnit) -> (f64, f64) {
    let half = (K * MAD_SCALE * mad).max(min_half_width(median, unit));
    let (mut low, high) = (median - half, median + half);
    if low < 0.0 && median >= 0.0 {
        low = 0.0;
    }
    (low, high)
}

/// The narrowest half-band: 2 points of a percentage, 0.25 of a load or
/// 10 % of it, 5 % of a byte count or rate (at least 1 KiB), one count,
/// 5 % of a duration (at least a minute).
pub fn min_half_width(median: f64, unit: MetricUnit) -> f64 {
    let m = median.abs();
    match unit {
        MetricUnit::Percent => 2.0,
        MetricUnit::Load => (0.1 * m).max(0.25),
        MetricUnit::Bytes | MetricUnit::BytesPerSecond => (0.05 * m).max(1024.0),
        MetricUnit::Count => 1.0,
        MetricUnit::Seconds => (0.05 * m).max(60.0),
    }
}

/// The starts of the hours (the same hour of week as `hour_start`) whose
/// values make that hour's baseline: this one and the weeks before, back
/// to `oldest_ms`.
pub fn same_hours(hour_start: u64, oldest_ms: u64) -> Vec<u64> {
    (0..WEEKS)
        .filter_map(|k| hour_start.checked_sub(k * WEEK_MS))
        .filter(|h| *h >= oldest_ms)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_of_week() {
        let table: &[(u64, u32)] = &[
            (0, 72),                                // Thu 1970-01-01 00:00
            (4 * 24 * HOUR_MS, 0),                  // Mon 1970-01-05 00:00
            (4 * 24 * HOUR_MS + HOUR_MS - 1, 0),    // Mon 00:59:59.999
            (4 * 24 * HOUR_MS - 1, 167),            // Sun 23:59:59.999
            (1_767_225_600_000, 72),                // Thu 2026-01-01 00:00
            (1_767_225_600_000 + 13 * HOUR_MS, 85), // Thu 13:00
        ];
        for &(at, want) in table {
            assert_eq!(hour_of_week(at), want, "{at}");
            assert_eq!(hour_of_week(at + WEEK_MS), want);
        }
    }

    #[test]
    fn median_and_mad() {
        type Case = (&'static [f64], Option<(f64, f64)>);
        let table: &[Case] = &[
            (&[], None),
            (&[1.0, 2.0], None),
            (&[1.0, 2.0, 3.0], Some((2.0, 1.0))),
            (&[1.0, 2.0, 3.0, 4.0], Some((2.5, 1.0))),
            // One wild value moves neither.
            (&[10.0, 11.0, 9.0, 10.0, 1e9], Some((10.0, 1.0))),
            (&[5.0, 5.0, 5.0, 5.0], Some((5.0, 0.0))),
            (&[f64::NAN, 1.0, 2.0, 3.0], Some((2.0, 1.0))),
        ];
        for (values, want) in table {
            assert_eq!(median_mad(values), *want, "{values:?}");
        }
    }

    #[test]
    fn bands() {
        let table: &[(f64, f64, MetricUnit, (f64, f64))] = &[
            (
                50.0,
                1.0,
                MetricUnit::Percent,
                (50.0 - 4.4478, 50.0 + 4.4478),
            ),
            // Flat: the floor.
            (40.0, 0.0, MetricUnit::Percent, (38.0, 42.0)),
            // Never below zero for a non-negative quantity.
            (1.0, 0.0, MetricUnit::Percent, (0.0, 3.0)),
            (2.0, 0.0, MetricUnit::Load, (1.75, 2.25)),
            (1e9, 0.0, MetricUnit::Bytes, (0.95e9, 1.05e9)),
            (0.0, 0.0, MetricUnit::BytesPerSecond, (0.0, 1024.0)),
            (3.0, 0.0, MetricUnit::Count, (2.0, 4.0)),
        ];
        for &(median, mad, unit, (low, high)) in table {
            let (l, h) = band(median, mad, unit);
            assert!(
                (l - low).abs() < 1e-6 && (h - high).abs() < 1e-6,
                "{median} {mad}: {l} {h}"
            );
        }
    }

    #[test]
    fn same_hours_go_back_whole_weeks_within_what_is_kept() {
        let h = 10 * WEEK_MS + 5 * HOUR_MS;
        assert_eq!(
            same_hours(h, 0),
            vec![h, h - WEEK_MS, h - 2 * WEEK_MS, h - 3 * WEEK_MS]
        );
        assert_eq!(same_hours(h, h - WEEK_MS), vec![h, h - WEEK_MS]);
        assert_eq!(same_hours(HOUR_MS, 0), vec![HOUR_MS]);
    }
}
