//! Values are kept as integers at a fixed precision per unit: hundredths
//! for percentages and load averages (what `/proc` and `top` show), whole
//! bytes, bytes per second, counts and seconds. The integers compress
//! losslessly (`codec`), where XOR-coding the raw `f64`s of noisy gauges
//! costs 6–8 bytes a point. Pure: no IO.

use warden_protocol::metrics::MetricUnit;

/// The largest magnitude kept: integers up to 2^53 convert to and from
/// `f64` exactly.
const LIMIT: f64 = 9_007_199_254_740_992.0;

/// How many steps make one unit.
pub fn divisor(unit: MetricUnit) -> f64 {
    match unit {
        MetricUnit::Percent | MetricUnit::Load => 100.0,
        MetricUnit::Bytes
        | MetricUnit::BytesPerSecond
        | MetricUnit::Count
        | MetricUnit::Seconds => 1.0,
    }
}

/// The stored integer for a value; `None` for NaN, infinities and values
/// beyond ±2^53 steps.
pub fn quantize(value: f64, unit: MetricUnit) -> Option<i64> {
    let scaled = (value * divisor(unit)).round();
    if scaled.is_finite() && scaled.abs() <= LIMIT {
        Some(scaled as i64)
    } else {
        None
    }
}

/// The value of a stored integer.
pub fn restore(stored: i64, unit: MetricUnit) -> f64 {
    stored as f64 / divisor(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_unit_precision() {
        let table: &[(f64, MetricUnit, Option<i64>, f64)] = &[
            (23.456, MetricUnit::Percent, Some(2346), 23.46),
            (23.45, MetricUnit::Percent, Some(2345), 23.45),
            (0.0, MetricUnit::Percent, Some(0), 0.0),
            (100.0, MetricUnit::Percent, Some(10000), 100.0),
            (1.07, MetricUnit::Load, Some(107), 1.07),
            (
                4_294_967_296.4,
                MetricUnit::Bytes,
                Some(4_294_967_296),
                4_294_967_296.0,
            ),
            (1234.5, MetricUnit::BytesPerSecond, Some(1235), 1235.0),
            (-3.0, MetricUnit::Count, Some(-3), -3.0),
            (86_400.2, MetricUnit::Seconds, Some(86_400), 86_400.0),
            (f64::NAN, MetricUnit::Percent, None, 0.0),
            (f64::INFINITY, MetricUnit::Bytes, None, 0.0),
            (1e300, MetricUnit::Bytes, None, 0.0),
            (1e14, MetricUnit::Percent, None, 0.0),
        ];
        for &(value, unit, stored, back) in table {
            assert_eq!(quantize(value, unit), stored, "{value} {unit:?}");
            if let Some(s) = stored {
                assert_eq!(restore(s, unit), back);
            }
        }
    }
}
