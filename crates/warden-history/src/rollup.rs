//! Rollups: min, avg, max and last of a slot, with the count that lets two
//! rollups of one slot merge exactly (avg weighted by count). Pure: no IO.

/// The rollup of one slot, in stored integers (see `quantize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agg {
    pub min: i64,
    pub avg: i64,
    pub max: i64,
    pub last: i64,
    pub count: u32,
}

impl Agg {
    /// One value.
    pub fn of(value: i64) -> Agg {
        Agg {
            min: value,
            avg: value,
            max: value,
            last: value,
            count: 1,
        }
    }

    /// This slot's rollup with `later`'s, which covers later values: its
    /// `last` wins.
    pub fn then(self, later: Agg) -> Agg {
        Agg {
            last: later.last,
            ..self.with(later)
        }
    }

    /// This slot's rollup with `earlier`'s (a late sample filling a gap):
    /// this rollup's `last` stays.
    pub fn after(self, earlier: Agg) -> Agg {
        Agg {
            last: self.last,
            ..self.with(earlier)
        }
    }

    fn with(self, other: Agg) -> Agg {
        let count = self.count.saturating_add(other.count);
        let total = i128::from(self.avg) * i128::from(self.count)
            + i128::from(other.avg) * i128::from(other.count);
        Agg {
            min: self.min.min(other.min),
            avg: div_round(total, i128::from(count.max(1))),
            max: self.max.max(other.max),
            last: self.last,
            count,
        }
    }
}

/// `n / d` rounded half away from zero; `d` > 0.
fn div_round(n: i128, d: i128) -> i64 {
    let q = if n >= 0 {
        (n + d / 2) / d
    } else {
        (n - d / 2) / d
    };
    q.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Roll values, in time order, up into slots of `resolution_ms`: the
/// slots' starts and rollups, in time order. Averages are exact (summed
/// wide, rounded once).
pub fn roll_up(points: &[(u64, i64)], resolution_ms: u64) -> Vec<(u64, Agg)> {
    let mut out: Vec<(u64, Agg)> = Vec::new();
    let mut sum: i128 = 0;
    let finish = |out: &mut Vec<(u64, Agg)>, sum: i128| {
        if let Some((_, agg)) = out.last_mut() {
            agg.avg = div_round(sum, i128::from(agg.count.max(1)));
        }
    };
    for &(at, value) in points {
        let start = at - at % resolution_ms;
        match out.last_mut() {
            Some((slot, agg)) if *slot == start => {
                agg.min = agg.min.min(value);
                agg.max = agg.max.max(value);
                agg.last = value;
                agg.count = agg.count.saturating_add(1);
                sum += i128::from(value);
            }
            _ => {
                finish(&mut out, sum);
                out.push((start, Agg::of(value)));
                sum = i128::from(value);
            }
        }
    }
    finish(&mut out, sum);
    out
}

/// Rollups of consecutive slots, in time order, as one (the average
/// weighted by count, rounded once).
pub fn combine(aggs: impl IntoIterator<Item = Agg>) -> Option<Agg> {
    let mut total: i128 = 0;
    let mut out: Option<Agg> = None;
    for agg in aggs {
        total += i128::from(agg.avg) * i128::from(agg.count);
        out = Some(match out {
            None => agg,
            Some(acc) => acc.then(agg),
        });
    }
    out.map(|acc| Agg {
        avg: div_round(total, i128::from(acc.count.max(1))),
        ..acc
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges() {
        let a = Agg {
            min: 1,
            avg: 2,
            max: 4,
            last: 3,
            count: 3,
        };
        let b = Agg {
            min: 0,
            avg: 10,
            max: 20,
            last: 7,
            count: 1,
        };
        assert_eq!(
            a.then(b),
            Agg {
                min: 0,
                avg: 4,
                max: 20,
                last: 7,
                count: 4
            }
        );
        assert_eq!(
            a.after(b),
            Agg {
                min: 0,
                avg: 4,
                max: 20,
                last: 3,
                count: 4
            }
        );
        // Rounding: (1 + 2) / 2 = 1.5 → 2; (-1 - 2) / 2 = -1.5 → -2.
        assert_eq!(Agg::of(1).then(Agg::of(2)).avg, 2);
        assert_eq!(Agg::of(-1).then(Agg::of(-2)).avg, -2);
        // Extremes do not overflow.
        let big = Agg::of(i64::MAX).then(Agg::of(i64::MAX));
        assert_eq!(big.avg, i64::MAX);
        assert_eq!(combine([]), None);
        assert_eq!(combine([a]), Some(a));
    }

    #[test]
    fn roll_up_table() {
        // 10 s points into 1 min slots, with a gap.
        let points = [(0, 5), (10_000, 7), (50_000, 3), (130_000, 9), (170_000, 1)];
        assert_eq!(
            roll_up(&points, 60_000),
            vec![
                (
                    0,
                    Agg {
                        min: 3,
                        avg: 5,
                        max: 7,
                        last: 3,
                        count: 3
                    }
                ),
                (
                    120_000,
                    Agg {
                        min: 1,
                        avg: 5,
                        max: 9,
                        last: 1,
                        count: 2
                    }
                ),
            ]
        );
        assert_eq!(roll_up(&[], 60_000), vec![]);
    }

    proptest! {
        #[test]
        fn one_slot_is_min_mean_max_last(values in proptest::collection::vec(-1_000_000i64..1_000_000, 1..200)) {
            let points: Vec<(u64, i64)> = values.iter().enumerate().map(|(i, v)| (i as u64, *v)).collect();
            let rolled = roll_up(&points, 1_000);
            prop_assert_eq!(rolled.len(), 1);
            let agg = rolled[0].1;
            prop_assert_eq!(agg.min, *values.iter().min().unwrap_or(&0));
            prop_assert_eq!(agg.max, *values.iter().max().unwrap_or(&0));
            prop_assert_eq!(agg.last, *values.last().unwrap_or(&0));
            prop_assert_eq!(agg.count as usize, values.len());
            let mean = values.iter().sum::<i64>() as f64 / values.len() as f64;
            prop_assert!((agg.avg as f64 - mean).abs() <= 0.5);
        }

        #[test]
        fn rolling_up_in_two_stages_is_rolling_up_once(values in proptest::collection::vec(-10_000i64..10_000, 1..400)) {
            // 10 s points → 1 min → 15 min equals 10 s points → 15 min, but
            // for the averages' rounding.
            let points: Vec<(u64, i64)> = values.iter().enumerate().map(|(i, v)| (i as u64 * 10_000, *v)).collect();
            let direct = roll_up(&points, 900_000);
            let minutes = roll_up(&points, 60_000);
            let mut groups: Vec<(u64, Vec<Agg>)> = Vec::new();
            for (at, agg) in minutes {
                let start = at - at % 900_000;
                match groups.last_mut() {
                    Some((s, a)) if *s == start => a.push(agg),
                    _ => groups.push((start, vec![agg])),
                }
            }
            let staged: Vec<(u64, Agg)> = groups
                .into_iter()
                .filter_map(|(s, aggs)| combine(aggs).map(|a| (s, a)))
                .collect();
            prop_assert_eq!(direct.len(), staged.len());
            for ((da, d), (sa, s)) in direct.iter().zip(&staged) {
                prop_assert_eq!(da, sa);
                prop_assert_eq!((d.min, d.max, d.last, d.count), (s.min, s.max, s.last, s.count));
                // Each 1 min average is rounded once, then the 15 min one.
                prop_assert!((d.avg - s.avg).abs() <= 1);
            }
        }
    }
}
