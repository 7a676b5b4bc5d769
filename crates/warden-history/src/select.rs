//! Which tier answers a query, at which step, and how a tier's slots fall
//! into the answer's buckets. Pure: no IO.

use crate::retention::Tier;
use crate::rollup::{Agg, combine};

/// Without a step, a query gets at most about this many points: the finest
/// tier that covers the range in that many.
pub const DEFAULT_MAX_POINTS: u64 = 2_000;

/// The tier (index, finest first) read, and the step of the answer (a
/// multiple of that tier's resolution).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub tier: usize,
    pub step_ms: u64,
}

/// Choose the tier for `from_ms..to_ms` at `now_ms`. With a step: the
/// coarsest tier still kept at `from_ms` whose resolution is at most the
/// step (the step rounded up to a multiple of it), else the finest tier
/// kept there; without: the finest tier kept at `from_ms` that answers in
/// at most `max_points`. When no tier reaches back to `from_ms`, the one
/// that keeps longest.
pub fn choose(
    tiers: &[Tier],
    now_ms: u64,
    from_ms: u64,
    to_ms: u64,
    step_ms: Option<u64>,
    max_points: u64,
) -> Choice {
    let covers = |t: &Tier| now_ms.saturating_sub(t.keep_ms) <= from_ms;
    let longest = tiers
        .iter()
        .enumerate()
        .max_by_key(|(i, t)| (t.keep_ms, *i))
        .map_or(0, |(i, _)| i);
    let span = to_ms.saturating_sub(from_ms).max(1);
    let tier = match step_ms {
        Some(step) => tiers
            .iter()
            .enumerate()
            .filter(|(_, t)| covers(t) && t.resolution_ms <= step)
            .map(|(i, _)| i)
            .next_back()
            .or_else(|| tiers.iter().position(covers)),
        None => tiers
            .iter()
            .position(|t| covers(t) && span.div_ceil(t.resolution_ms) <= max_points.max(1))
            .or_else(|| tiers.iter().rposition(covers)),
    }
    .unwrap_or(longest);
    let resolution = tiers.get(tier).map_or(1, |t| t.resolution_ms);
    let step = step_ms.unwrap_or(resolution).max(resolution);
    Choice {
        tier,
        step_ms: step.div_ceil(resolution) * resolution,
    }
}

/// The bucket starts of an answer: multiples of `step_ms` from the one
/// holding `from_ms`, before `to_ms`.
pub fn bucket_starts(from_ms: u64, to_ms: u64, step_ms: u64) -> Vec<u64> {
    let step = step_ms.max(1);
    let first = from_ms - from_ms % step;
    (0..)
        .map(|i| first + i * step)
        .take_while(|t| *t < to_ms)
        .collect()
}

/// Fold slots (start, rollup), in time order, into the buckets of
/// [`bucket_starts`]; a bucket without a slot is `None`.
pub fn into_buckets(
    starts: &[u64],
    step_ms: u64,
    slots: impl IntoIterator<Item = (u64, Agg)>,
) -> Vec<Option<Agg>> {
    let mut groups: Vec<Vec<Agg>> = vec![Vec::new(); starts.len()];
    let Some(&first) = starts.first() else {
        return Vec::new();
    };
    for (at, agg) in slots {
        if at < first {
            continue;
        }
        let index = ((at - first) / step_ms.max(1)) as usize;
        if let Some(group) = groups.get_mut(index) {
            group.push(agg);
        }
    }
    groups.into_iter().map(combine).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retention::Retention;

    const S: u64 = 1_000;
    const M: u64 = 60 * S;
    const H: u64 = 60 * M;
    const D: u64 = 24 * H;

    #[test]
    fn tiers_for_ranges() {
        let r = Retention::default();
        let now = 2_000 * D;
        let table: &[(u64, Option<u64>, Choice)] = &[
            // range back from now, step → tier, step
            (
                H,
                None,
                Choice {
                    tier: 0,
                    step_ms: 10 * S,
                },
            ),
            (
                5 * H,
                None,
                Choice {
                    tier: 0,
                    step_ms: 10 * S,
                },
            ),
            (
                D,
                None,
                Choice {
                    tier: 1,
                    step_ms: M,
                },
            ),
            (
                7 * D,
                None,
                Choice {
                    tier: 2,
                    step_ms: 15 * M,
                },
            ),
            (
                30 * D,
                None,
                Choice {
                    tier: 3,
                    step_ms: H,
                },
            ),
            (
                365 * D,
                None,
                Choice {
                    tier: 3,
                    step_ms: H,
                },
            ),
            // Beyond every tier: the longest kept.
            (
                3 * 365 * D,
                None,
                Choice {
                    tier: 3,
                    step_ms: H,
                },
            ),
            // A step: the coarsest tier no coarser than it, kept that far.
            (
                H,
                Some(10 * S),
                Choice {
                    tier: 0,
                    step_ms: 10 * S,
                },
            ),
            (
                H,
                Some(30 * S),
                Choice {
                    tier: 0,
                    step_ms: 30 * S,
                },
            ),
            (
                H,
                Some(25 * S),
                Choice {
                    tier: 0,
                    step_ms: 30 * S,
                },
            ),
            (
                H,
                Some(5 * M),
                Choice {
                    tier: 1,
                    step_ms: 5 * M,
                },
            ),
            (
                D,
                Some(15 * M),
                Choice {
                    tier: 2,
                    step_ms: 15 * M,
                },
            ),
            (
                D,
                Some(D),
                Choice {
                    tier: 3,
                    step_ms: D,
                },
            ),
            // 10 s asked over a week: 10 s is gone there, the finest kept.
            (
                7 * D,
                Some(10 * S),
                Choice {
                    tier: 1,
                    step_ms: M,
                },
            ),
            (
                30 * D,
                Some(S),
                Choice {
                    tier: 2,
                    step_ms: 15 * M,
                },
            ),
            (
                30 * D,
                Some(15 * M),
                Choice {
                    tier: 2,
                    step_ms: 15 * M,
                },
            ),
            (
                30 * D,
                Some(90 * M),
                Choice {
                    tier: 3,
                    step_ms: 2 * H,
                },
            ),
        ];
        for &(back, step, want) in table {
            let got = choose(r.tiers(), now, now - back, now, step, DEFAULT_MAX_POINTS);
            assert_eq!(got, want, "back {back} step {step:?}");
        }
    }

    #[test]
    fn buckets() {
        assert_eq!(bucket_starts(25, 70, 10), vec![20, 30, 40, 50, 60]);
        assert_eq!(bucket_starts(20, 20, 10), Vec::<u64>::new());
        let starts = bucket_starts(0, 40, 20);
        let got = into_buckets(
            &starts,
            20,
            [(0, Agg::of(1)), (10, Agg::of(3)), (45, Agg::of(9))],
        );
        assert_eq!(
            got,
            vec![
                Some(Agg {
                    min: 1,
                    avg: 2,
                    max: 3,
                    last: 3,
                    count: 2
                }),
                None
            ]
        );
    }
}
