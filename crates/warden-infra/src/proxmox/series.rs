//! Series of samples made compact for the model and the CLI: downsampling
//! to at most `max_points`, min/avg/max/latest, and a sparkline. Pure.

use serde::Serialize;

/// One sample of a series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    /// Unix seconds.
    pub t: i64,
    pub v: f64,
}

/// How a bucket of points becomes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Mean,
    Max,
}

/// At most `max_points` points: contiguous buckets of (nearly) equal size,
/// each reduced to one point stamped with its first time.
pub fn downsample(points: &[Point], max_points: usize, reduce: Reduce) -> Vec<Point> {
    let max_points = max_points.max(1);
    if points.len() <= max_points {
        return points.to_vec();
    }
    let n = points.len();
    (0..max_points)
        .map(|bucket| {
            let start = bucket * n / max_points;
            let end = ((bucket + 1) * n / max_points).max(start + 1);
            let slice = &points[start..end];
            let v = match reduce {
                Reduce::Mean => slice.iter().map(|p| p.v).sum::<f64>() / slice.len() as f64,
                Reduce::Max => slice.iter().map(|p| p.v).fold(f64::NEG_INFINITY, f64::max),
            };
            Point { t: slice[0].t, v }
        })
        .collect()
}

/// Min, mean and max over a range, and its latest sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub min: f64,
    pub avg: f64,
    /// The peak: from the MAX series when there is one.
    pub max: f64,
    pub latest: Point,
    pub samples: usize,
}

/// The summary of the AVERAGE series, with the peak from the MAX series.
pub fn summarize(average: &[Point], peaks: &[Point]) -> Option<Summary> {
    let latest = *average.last()?;
    let min = average.iter().map(|p| p.v).fold(f64::INFINITY, f64::min);
    let max_avg = average
        .iter()
        .map(|p| p.v)
        .fold(f64::NEG_INFINITY, f64::max);
    let max_peak = peaks.iter().map(|p| p.v).fold(f64::NEG_INFINITY, f64::max);
    Some(Summary {
        min,
        avg: average.iter().map(|p| p.v).sum::<f64>() / average.len() as f64,
        max: max_avg.max(max_peak),
        latest,
        samples: average.len(),
    })
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// One character per value, scaled between the smallest and largest
/// value; a gap is a space, a flat series is all `▄`.
pub fn sparkline(values: &[Option<f64>]) -> String {
    let present = values.iter().flatten().copied().filter(|v| v.is_finite());
    let (lo, hi) = present.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    values
        .iter()
        .map(|value| match value {
            Some(v) if v.is_finite() => {
                if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
                    BARS[3]
                } else {
                    let level = ((v - lo) / (hi - lo) * (BARS.len() - 1) as f64).round();
                    BARS[(level as usize).min(BARS.len() - 1)]
                }
            }
            Some(_) | None => ' ',
        })
        .collect()
}

/// A sparkline of a series squeezed to at most `width` characters (bucket means).
pub fn sparkline_of(points: &[Point], width: usize) -> String {
    let values: Vec<Option<f64>> = downsample(points, width, Reduce::Mean)
        .iter()
        .map(|p| Some(p.v))
        .collect();
    sparkline(&values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn downsampling_means_and_peaks() {
        let points: Vec<Point> = (0..10).map(|i| Point { t: i, v: i as f64 }).collect();
        let mean = downsample(&points, 5, Reduce::Mean);
        assert_eq!(
            mean.iter().map(|p| (p.t, p.v)).collect::<Vec<_>>(),
            vec![(0, 0.5), (2, 2.5), (4, 4.5), (6, 6.5), (8, 8.5)]
        );
        let max = downsample(&points, 3, Reduce::Max);
        assert_eq!(
            max.iter().map(|p| p.v).collect::<Vec<_>>(),
            vec![2.0, 5.0, 9.0]
        );
        assert_eq!(downsample(&points, 20, Reduce::Mean), points);
        assert_eq!(downsample(&points, 0, Reduce::Max).len(), 1);
    }
    #[test]
    fn summary_takes_the_peak_from_max() {
        let avg = [Point { t: 1, v: 2.0 }, Point { t: 2, v: 4.0 }];
        let peaks = [Point { t: 1, v: 9.0 }];
        let s = summarize(&avg, &peaks).unwrap();
        assert_eq!(
            (s.min, s.avg, s.max, s.latest, s.samples),
            (2.0, 3.0, 9.0, Point { t: 2, v: 4.0 }, 2)
        );
        assert_eq!(summarize(&[], &peaks), None);
    }
    #[test]
    fn sparklines() {
        assert_eq!(sparkline(&[Some(0.0), Some(7.0), None, Some(3.5)]), "▁█ ▅");
        assert_eq!(sparkline(&[Some(5.0), Some(5.0)]), "▄▄");
        assert_eq!(sparkline(&[]), "");
        assert_eq!(sparkline(&[None, Some(f64::NAN)]), "  ");
        let points: Vec<Point> = (0..100).map(|i| Point { t: i, v: i as f64 }).collect();
        let line = sparkline_of(&points, 8);
        assert_eq!(line, "▁▂▃▄▅▆▇█");
    }

    proptest! {
        #[test]
        fn downsampled_series_are_bounded_and_ordered(
            values in prop::collection::vec(-1e6f64..1e6, 0..600),
            max_points in 1usize..200,
        ) {
            let points: Vec<Point> = values.iter().enumerate().map(|(i, v)| Point { t: i as i64 * 60, v: *v }).collect();
            for reduce in [Reduce::Mean, Reduce::Max] {
                let out = downsample(&points, max_points, reduce);
                prop_assert!(out.len() <= max_points);
                prop_assert_eq!(out.len(), points.len().min(max_points));
                prop_assert!(out.windows(2).all(|w| w[0].t < w[1].t));
                if let (Some(lo), Some(hi)) = (
                    values.iter().copied().reduce(f64::min),
                    values.iter().copied().reduce(f64::max),
                ) {
                    prop_assert!(out.iter().all(|p| p.v >= lo - 1e-6 && p.v <= hi + 1e-6));
                }
            }
            let peaks = downsample(&points, max_points, Reduce::Max);
            let overall = values.iter().copied().reduce(f64::max);
            prop_assert_eq!(peaks.iter().map(|p| p.v).reduce(f64::max), overall);
        }

        #[test]
        fn sparklines_have_one_char_per_value(values in prop::collection::vec(prop::option::of(-1e9f64..1e9), 0..100)) {
            let line = sparkline(&values);
            prop_assert_eq!(line.chars().count(), values.len());
            for (c, v) in line.chars().zip(&values) {
                prop_assert_eq!(c == ' ', v.is_none());
            }
        }
    }
}
