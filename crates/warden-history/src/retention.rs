//! Tiers and how long each is kept: the `[history] retention` table of
//! spec/patrol.md (`{ "10s" = "24h", "1m" = "7d", … }`, tier = kept for),
//! checked once at start, and the layout derived from it (the seal window,
//! each tier's block span). Pure: no IO.

use crate::error::RetentionError;

const SECOND: u64 = 1_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// At most this many tiers.
pub const MAX_TIERS: usize = 6;
/// A block of a rollup tier holds about this many slots.
const ROLLUP_BLOCK_SLOTS: u64 = 240;
/// The seal window holds at most this many slots of the finest tier (the
/// in-memory head is one `i64` per slot per series).
const MAX_WINDOW_SLOTS: u64 = 512;

/// One tier: values every `resolution_ms`, kept for `keep_ms`, stored in
/// blocks of `block_ms` (aligned on multiples of it since the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    pub resolution_ms: u64,
    pub keep_ms: u64,
    pub block_ms: u64,
}

impl Tier {
    /// Slots in one block.
    pub fn slots_per_block(&self) -> u64 {
        self.block_ms / self.resolution_ms
    }

    /// The start of the block holding `at_ms`.
    pub fn block_start(&self, at_ms: u64) -> u64 {
        at_ms - at_ms % self.block_ms
    }
}

/// The tiers kept, finest first, and the seal window: the span of the
/// finest tier held in memory before it is written as one block and
/// rolled up into the coarser tiers. Every tier's resolution divides the
/// window or is a multiple of it, so a window never straddles a slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retention {
    tiers: Vec<Tier>,
    window_ms: u64,
}

impl Default for Retention {
    /// 10 s for 24 h, 1 min for 7 d, 15 min for 90 d, 1 h for 2 y.
    fn default() -> Self {
        let pairs = [
            (10 * SECOND, DAY),
            (MINUTE, 7 * DAY),
            (15 * MINUTE, 90 * DAY),
            (HOUR, 730 * DAY),
        ];
        match Retention::from_ms(&pairs) {
            Ok(retention) => retention,
            // The pairs above are checked by a test; this arm is not taken.
            Err(_) => Retention {
                tiers: Vec::new(),
                window_ms: 15 * MINUTE,
            },
        }
    }
}

impl Retention {
    /// From the configuration's text form: `("10s", "24h")` pairs, tier =
    /// kept for, in any order.
    pub fn parse<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Retention, RetentionError> {
        let mut ms = Vec::new();
        for (tier, keep) in pairs {
            ms.push((parse_duration(tier)?, parse_duration(keep)?));
        }
        Retention::from_ms(&ms)
    }

    /// From (resolution, kept for) pairs in milliseconds, in any order.
    pub fn from_ms(pairs: &[(u64, u64)]) -> Result<Retention, RetentionError> {
        if pairs.is_empty() {
            return Err(RetentionError::Empty);
        }
        if pairs.len() > MAX_TIERS {
            return Err(RetentionError::TooManyTiers { max: MAX_TIERS });
        }
        let mut sorted = pairs.to_vec();
        sorted.sort_unstable();
        let finest = sorted[0].0;
        for pair in sorted.windows(2) {
            if pair[0].0 == pair[1].0 {
                return Err(RetentionError::DuplicateTier {
                    tier: format_duration(pair[0].0),
                });
            }
            if pair[1].1 < pair[0].1 {
                return Err(RetentionError::CoarserKeptShorter {
                    coarser: format_duration(pair[1].0),
                    finer: format_duration(pair[0].0),
                });
            }
        }
        for &(resolution, keep) in &sorted {
            if resolution < SECOND || resolution % SECOND != 0 {
                return Err(RetentionError::Resolution {
                    tier: format_duration(resolution),
                });
            }
            if resolution % finest != 0 {
                return Err(RetentionError::NotMultiple {
                    tier: format_duration(resolution),
                    finest: format_duration(finest),
                });
            }
            if keep < resolution {
                return Err(RetentionError::KeptShorterThanTier {
                    tier: format_duration(resolution),
                });
            }
        }
        let resolutions: Vec<u64> = sorted.iter().map(|p| p.0).collect();
        let window_ms = choose_window(&resolutions).ok_or_else(|| RetentionError::NoWindow {
            tiers: resolutions.iter().map(|r| format_duration(*r)).collect(),
        })?;
        let tiers = sorted
            .iter()
            .enumerate()
            .map(|(i, &(resolution_ms, keep_ms))| Tier {
                resolution_ms,
                keep_ms,
                block_ms: if i == 0 {
                    window_ms
                } else {
                    rollup_block_ms(resolution_ms, window_ms)
                },
            })
            .collect();
        Ok(Retention { tiers, window_ms })
    }

    /// Finest first; never empty.
    pub fn tiers(&self) -> &[Tier] {
        &self.tiers
    }

    /// The seal window (a block of the finest tier).
    pub fn window_ms(&self) -> u64 {
        self.window_ms
    }

    /// The finest tier's resolution.
    pub fn finest_ms(&self) -> u64 {
        self.tiers.first().map_or(10 * SECOND, |t| t.resolution_ms)
    }

    /// The longest time anything is kept.
    pub fn longest_keep_ms(&self) -> u64 {
        self.tiers.iter().map(|t| t.keep_ms).max().unwrap_or(0)
    }
}

/// Whether `window` nests with `resolution`: one divides the other.
fn nests(window: u64, resolution: u64) -> bool {
    window % resolution == 0 || resolution % window == 0
}

/// The seal window: about 15 minutes of the finest tier (90 slots at
/// 10 s), or the slot count nearest to 90 that nests with every tier.
fn choose_window(resolutions: &[u64]) -> Option<u64> {
    let finest = *resolutions.first()?;
    let mut candidates: Vec<u64> = (1..=MAX_WINDOW_SLOTS).map(|k| k * finest).collect();
    candidates.extend(resolutions.iter().copied());
    candidates
        .into_iter()
        .filter(|w| w / finest <= MAX_WINDOW_SLOTS && w % finest == 0)
        .filter(|&w| resolutions.iter().all(|&r| nests(w, r)))
        .min_by_key(|&w| ((w / finest).abs_diff(90), w))
}

/// A rollup tier's block: about [`ROLLUP_BLOCK_SLOTS`] slots, a whole
/// number of windows (or of slots, when a slot is longer than a window).
fn rollup_block_ms(resolution: u64, window: u64) -> u64 {
    let base = resolution.max(window);
    let wanted = ROLLUP_BLOCK_SLOTS * resolution;
    base * wanted.div_ceil(base).max(1)
}

/// `"10s"`, `"15m"`, `"24h"`, `"7d"`, `"2w"`, `"2y"` (365 days) to
/// milliseconds. A whole positive number and one unit.
pub fn parse_duration(text: &str) -> Result<u64, RetentionError> {
    let bad = || RetentionError::BadDuration {
        text: text.to_string(),
    };
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(bad)?;
    let (number, unit) = trimmed.split_at(split);
    let number: u64 = number.parse().map_err(|_| bad())?;
    let unit_ms = match unit {
        "s" => SECOND,
        "m" => MINUTE,
        "h" => HOUR,
        "d" => DAY,
        "w" => 7 * DAY,
        "y" => 365 * DAY,
        _ => return Err(bad()),
    };
    match number.checked_mul(unit_ms) {
        Some(0) | None => Err(bad()),
        Some(ms) => Ok(ms),
    }
}

/// The shortest text [`parse_duration`] reads back to `ms` (whole seconds
/// at least; finer is shown in ms).
pub fn format_duration(ms: u64) -> String {
    let units = [
        (365 * DAY, "y"),
        (7 * DAY, "w"),
        (DAY, "d"),
        (HOUR, "h"),
        (MINUTE, "m"),
        (SECOND, "s"),
    ];
    for (size, name) in units {
        if ms >= size && ms % size == 0 {
            return format!("{}{name}", ms / size);
        }
    }
    format!("{ms}ms")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_spec_and_nests() {
        let r = Retention::default();
        let got: Vec<(u64, u64, u64)> = r
            .tiers()
            .iter()
            .map(|t| (t.resolution_ms, t.keep_ms, t.block_ms))
            .collect();
        assert_eq!(
            got,
            vec![
                (10 * SECOND, DAY, 15 * MINUTE),
                (MINUTE, 7 * DAY, 4 * HOUR),
                (15 * MINUTE, 90 * DAY, 60 * HOUR),
                (HOUR, 730 * DAY, 240 * HOUR),
            ]
        );
        assert_eq!(r.window_ms(), 15 * MINUTE);
        let parsed = Retention::parse([("1h", "2y"), ("10s", "24h"), ("15m", "90d"), ("1m", "7d")]);
        assert_eq!(parsed, Ok(r));
    }

    #[test]
    fn durations_parse_and_print() {
        let table: &[(&str, Option<u64>)] = &[
            ("10s", Some(10 * SECOND)),
            ("1m", Some(MINUTE)),
            ("15m", Some(15 * MINUTE)),
            ("24h", Some(DAY)),
            ("7d", Some(7 * DAY)),
            ("2w", Some(14 * DAY)),
            ("2y", Some(730 * DAY)),
            (" 90d ", Some(90 * DAY)),
            ("0s", None),
            ("10", None),
            ("s", None),
            ("1.5h", None),
            ("-1h", None),
            ("10 s", None),
            ("10sec", None),
            ("1M", None),
            ("", None),
            ("99999999999999999999d", None),
            ("9999999999999999y", None),
        ];
        for (text, want) in table {
            assert_eq!(parse_duration(text).ok(), *want, "{text:?}");
            if let Some(ms) = want {
                assert_eq!(parse_duration(&format_duration(*ms)), Ok(*ms));
            }
        }
    }

    #[test]
    fn bad_tables_are_refused_with_a_reason() {
        type Case = (&'static [(&'static str, &'static str)], &'static str);
        let table: &[Case] = &[
            (&[], "no tier"),
            (&[("10s", "24h"), ("10x", "7d")], "\"10x\""),
            (&[("10s", "soon")], "\"soon\""),
            (
                &[("10s", "24h"), ("1m", "1h")],
                "1m is kept shorter than 10s",
            ),
            (&[("1m", "24h"), ("60s", "24h")], "1m is given twice"),
            (&[("10s", "5s")], "10s is kept for less than"),
            (
                &[("10s", "1d"), ("25s", "2d")],
                "25s is not a multiple of 10s",
            ),
            (
                &[
                    ("1s", "1h"),
                    ("2s", "1h"),
                    ("3s", "1h"),
                    ("4s", "1h"),
                    ("5s", "1h"),
                    ("6s", "1h"),
                    ("7s", "1h"),
                ],
                "at most 6",
            ),
        ];
        for (pairs, reason) in table {
            let err = Retention::parse(pairs.iter().copied()).expect_err("refused");
            assert!(err.to_string().contains(reason), "{pairs:?}: {err}");
        }
    }

    #[test]
    fn other_tables_get_a_window_that_nests_with_every_tier() {
        let table: &[(&[(&str, &str)], u64)] = &[
            (
                &[("5s", "1d"), ("30s", "2d"), ("5m", "7d"), ("1h", "1y")],
                5 * MINUTE,
            ),
            (
                &[("10s", "1d"), ("1m", "7d"), ("1h", "30d"), ("1d", "2y")],
                15 * MINUTE,
            ),
            (&[("1m", "30d")], 90 * MINUTE),
            (&[("10s", "1d"), ("7m", "7d")], 14 * MINUTE),
            (&[("10s", "1d"), ("1d", "7d")], 15 * MINUTE),
        ];
        for (pairs, window) in table {
            let r = Retention::parse(pairs.iter().copied()).expect("valid");
            assert_eq!(r.window_ms(), *window, "{pairs:?}");
            for t in r.tiers() {
                assert!(nests(r.window_ms(), t.resolution_ms));
                assert_eq!(t.block_ms % t.resolution_ms, 0);
                assert_eq!(t.block_ms % r.window_ms(), 0, "{t:?}");
            }
        }
    }
}
