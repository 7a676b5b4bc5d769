//! Sealing: a window whose grace has passed is written as one block per
//! series in the finest tier and rolled up into the coarser ones (read,
//! merge, rewrite: a coarse block is rewritten once per window, not per
//! sample); late samples take the same path. Then expired blocks are
//! deleted, and at each hour the baselines of the hour's series refreshed.
//!
//! Windows are sealed a chunk of series per transaction, holding the state
//! lock only for that chunk, so ingest and queries wait milliseconds, not
//! the whole seal. The journal is emptied only after the last chunk; a
//! kill in between replays the window, and since a finest-tier slot that
//! already holds a value is never written again, the replay adds nothing
//! twice.

use rusqlite::{Connection, Transaction, params};

use crate::baseline::{self, HOUR_MS, ROLLING};
use crate::codec::{self, Block};
use crate::db::{self, Read};
use crate::error::HistoryError;
use crate::quantize::restore;
use crate::retention::{Retention, Tier};
use crate::rollup::{Agg, roll_up};
use crate::state::{Entry, Series};
use crate::store::HistoryStore;

/// Series per seal transaction.
const CHUNK: usize = 1_000;
const MINUTE_MS: u64 = 60_000;

/// Whether data is the newest of its slots (a window being sealed) or
/// older data filling gaps (late samples, imports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Seal,
    Late,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    pub duplicates: u64,
    pub corrupt: u64,
}

impl Applied {
    fn add(&mut self, other: Applied) {
        self.duplicates += other.duplicates;
        self.corrupt += other.corrupt;
    }
}

fn kept(tier: &Tier, block_start: u64, now: u64) -> bool {
    block_start + tier.block_ms + tier.keep_ms > now
}

/// Write one series' values of one window (slot start, stored value; in
/// time order) into every tier.
pub fn apply_window(
    tx: &Connection,
    tiers: &[Tier],
    now: u64,
    series: u32,
    window_start: u64,
    points: &[(u64, i64)],
    mode: Mode,
) -> Result<Applied, HistoryError> {
    let mut applied = Applied::default();
    let Some((finest, coarser)) = tiers.split_first() else {
        return Ok(applied);
    };
    let mut accepted: Vec<(u64, i64)> = Vec::with_capacity(points.len());
    if kept(finest, window_start, now) {
        let slots = finest.slots_per_block() as usize;
        let mut values = match db::read_block(tx, series, finest, window_start)? {
            Read::Absent => vec![None; slots],
            Read::Found(Block::Points(v)) if v.len() == slots => v,
            Read::Found(_) | Read::Corrupt => {
                applied.corrupt += 1;
                vec![None; slots]
            }
        };
        for &(at, value) in points {
            let index = ((at - window_start) / finest.resolution_ms) as usize;
            match values.get_mut(index) {
                Some(slot @ None) => {
                    *slot = Some(value);
                    accepted.push((at, value));
                }
                Some(Some(_)) if mode == Mode::Late => applied.duplicates += 1,
                // Sealing again after a kill mid-seal: already there.
                Some(Some(_)) | None => {}
            }
        }
        if !accepted.is_empty() {
            db::write_block(tx, series, finest, window_start, &Block::Points(values))?;
        }
    } else {
        accepted.extend_from_slice(points);
    }
    for tier in coarser {
        let rolled = roll_up(&accepted, tier.resolution_ms);
        let mut i = 0;
        while i < rolled.len() {
            let start = tier.block_start(rolled[i].0);
            let end = rolled[i..]
                .iter()
                .position(|(at, _)| tier.block_start(*at) != start)
                .map_or(rolled.len(), |n| i + n);
            if kept(tier, start, now) {
                applied.add(merge_rollups(
                    tx,
                    series,
                    tier,
                    start,
                    &rolled[i..end],
                    mode,
                )?);
            }
            i = end;
        }
    }
    Ok(applied)
}

fn merge_rollups(
    tx: &Connection,
    series: u32,
    tier: &Tier,
    start: u64,
    slots: &[(u64, Agg)],
    mode: Mode,
) -> Result<Applied, HistoryError> {
    let mut applied = Applied::default();
    let n = tier.slots_per_block() as usize;
    let mut aggs = match db::read_block(tx, series, tier, start)? {
        Read::Absent => vec![None; n],
        Read::Found(Block::Rollup(v)) if v.len() == n => v,
        Read::Found(_) | Read::Corrupt => {
            applied.corrupt += 1;
            vec![None; n]
        }
    };
    for &(at, agg) in slots {
        let index = ((at - start) / tier.resolution_ms) as usize;
        if let Some(slot) = aggs.get_mut(index) {
            *slot = Some(match (*slot, mode) {
                (None, _) => agg,
                (Some(old), Mode::Seal) => old.then(agg),
                (Some(old), Mode::Late) => old.after(agg),
            });
        }
    }
    db::write_block(tx, series, tier, start, &Block::Rollup(aggs))?;
    Ok(applied)
}

/// Late samples (older than the open window), grouped by series and
/// window.
pub fn apply_late(
    tx: &Transaction,
    retention: &Retention,
    now: u64,
    late: &[Entry],
) -> Result<Applied, HistoryError> {
    let mut sorted = late.to_vec();
    // Stable: of two samples of one slot, the first received stays.
    sorted.sort_by_key(|e| (e.0, e.1));
    let window = retention.window_ms();
    let mut applied = Applied::default();
    let mut i = 0;
    while i < sorted.len() {
        let (series, slot, _) = sorted[i];
        let start = slot - slot % window;
        let end = sorted[i..]
            .iter()
            .position(|e| e.0 != series || e.1 - e.1 % window != start)
            .map_or(sorted.len(), |n| i + n);
        let points: Vec<(u64, i64)> = sorted[i..end].iter().map(|e| (e.1, e.2)).collect();
        applied.add(apply_window(
            tx,
            retention.tiers(),
            now,
            series,
            start,
            &points,
            Mode::Late,
        )?);
        i = end;
    }
    Ok(applied)
}

/// Seal every window whose grace has passed.
pub fn advance(store: &HistoryStore, writer: &mut Connection) -> Result<(), HistoryError> {
    let retention = &store.options.retention;
    let window = retention.window_ms();
    let finest = retention.finest_ms();
    let grace = store.options.grace.as_millis() as u64;
    loop {
        let now = store.options.clock.now_ms();
        let (start, ids) = {
            let mut state = store.lock_state()?;
            if now < state.window_start + window + grace {
                return Ok(());
            }
            (state.window_start, std::mem::take(&mut state.dirty))
        };
        let end = start + window;
        let refresh = (end / HOUR_MS) > (start / HOUR_MS);
        for chunk in ids.chunks(CHUNK) {
            let mut state = store.lock_state()?;
            let mut taken: Vec<(u32, Vec<(u64, i64)>)> = Vec::with_capacity(chunk.len());
            for &id in chunk {
                let points = state.take_head(id, start, finest);
                if !points.is_empty() {
                    taken.push((id, points));
                }
            }
            let result = (|| -> Result<Applied, HistoryError> {
                let tx = writer.transaction()?;
                let mut applied = Applied::default();
                for (id, points) in &taken {
                    applied.add(apply_window(
                        &tx,
                        retention.tiers(),
                        now,
                        *id,
                        start,
                        points,
                        Mode::Seal,
                    )?);
                    if let Some(series) = state.get(*id) {
                        save_series(&tx, *id, series)?;
                        if refresh {
                            refresh_baseline(&tx, retention, *id, series, end)?;
                        }
                    }
                }
                tx.commit()?;
                Ok(applied)
            })();
            match result {
                Ok(applied) => state.counters.corrupt_blocks += applied.corrupt,
                Err(e) => {
                    // Retried as late samples at the next flush (and still
                    // in the journal until then).
                    for (id, points) in taken {
                        state
                            .late
                            .extend(points.into_iter().map(|(at, v)| (id, at, v)));
                    }
                    return Err(e);
                }
            }
        }
        finish_window(store, writer, start, now, refresh)?;
    }
}

fn save_series(tx: &Transaction, id: u32, series: &Series) -> Result<(), HistoryError> {
    let (latest_ms, latest) = series
        .latest
        .map_or((None, None), |(at, v)| (Some(at as i64), Some(v)));
    tx.prepare_cached(
        "INSERT INTO series (id, resource, metric, instance, first_ms, latest_ms, latest) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (id) DO UPDATE SET latest_ms = excluded.latest_ms, latest = excluded.latest, first_ms = min(first_ms, excluded.first_ms)",
    )?
    .execute(params![
        id,
        &*series.resource,
        series.metric.as_str(),
        &*series.instance,
        series.first_ms as i64,
        latest_ms,
        latest
    ])?;
    Ok(())
}

/// Move the open window on, rewrite the journal as what is still
/// unsealed, delete what expired, and hourly forget series silent for
/// longer than anything is kept.
fn finish_window(
    store: &HistoryStore,
    writer: &mut Connection,
    start: u64,
    now: u64,
    hourly: bool,
) -> Result<(), HistoryError> {
    let retention = &store.options.retention;
    let window = retention.window_ms();
    let finest = retention.finest_ms();
    let grace = store.options.grace.as_millis() as u64;
    let slots = (window / finest) as usize;
    let mut state = store.lock_state()?;
    // Heads filled after their chunk was sealed belong to the sealed
    // window: they go the late way.
    for id in std::mem::take(&mut state.dirty) {
        let points = state.take_head(id, start, finest);
        state
            .late
            .extend(points.into_iter().map(|(at, v)| (id, at, v)));
    }
    let floor = |t: u64| t - t % window;
    let mut next = start + window;
    let caught_up = floor(now.saturating_sub(grace));
    let earliest_spill = state.spill.values().flatten().map(|e| floor(e.0)).min();
    next = next.max(earliest_spill.map_or(caught_up, |s| s.min(caught_up)));
    let spill = std::mem::take(&mut state.spill);
    let mut unsealed = Vec::new();
    for (id, entries) in spill {
        for (slot, value) in entries {
            if slot < next {
                state.late.push((id, slot, value));
            } else if slot < next + window {
                state.put_head(id, ((slot - next) / finest) as usize, value, slots);
                unsealed.push((id, slot, value));
            } else {
                state.spill.entry(id).or_default().push((slot, value));
                unsealed.push((id, slot, value));
            }
        }
    }
    let dead: Vec<u32> = if hourly {
        let oldest = now.saturating_sub(retention.longest_keep_ms());
        state
            .series
            .iter()
            .enumerate()
            .filter_map(|(id, s)| {
                let s = s.as_ref()?;
                let last = s.latest.map_or(s.first_ms, |l| l.0);
                (last < oldest && s.head.is_empty()).then_some(id as u32)
            })
            .collect()
    } else {
        Vec::new()
    };
    let tx = writer.transaction()?;
    tx.execute("DELETE FROM journal", [])?;
    if !unsealed.is_empty() {
        tx.execute(
            "INSERT INTO journal (data) VALUES (?1)",
            [codec::encode_journal(&unsealed)],
        )?;
    }
    for tier in retention.tiers() {
        let cutoff = now.saturating_sub(tier.keep_ms + tier.block_ms);
        db::delete_before(&tx, tier, cutoff)?;
    }
    for id in &dead {
        // Its blocks expired already: it was silent longer than any tier
        // keeps.
        tx.execute("DELETE FROM baselines WHERE series = ?1", [id])?;
        tx.execute("DELETE FROM series WHERE id = ?1", [id])?;
    }
    db::set_meta(&tx, "sealed_until", next)?;
    tx.commit()?;
    for id in dead {
        state.remove(id);
    }
    state.window_start = next;
    drop(state);
    if hourly {
        give_back_space(writer)?;
    }
    Ok(())
}

/// Return free pages to the system when a quarter of the file is free
/// (expired blocks' pages are otherwise reused by new ones).
fn give_back_space(conn: &Connection) -> Result<(), HistoryError> {
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
    let total: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    if free * 4 > total {
        conn.execute_batch("PRAGMA incremental_vacuum")?;
    }
    Ok(())
}

/// The tier baselines are learnt from: the coarsest with at least four
/// values an hour.
pub fn baseline_tier(tiers: &[Tier]) -> Option<&Tier> {
    tiers
        .iter()
        .rev()
        .find(|t| t.resolution_ms <= 15 * MINUTE_MS)
}

/// The averages of a tier's slots in `from..to`.
fn averages(
    conn: &Connection,
    series: u32,
    tier: &Tier,
    from: u64,
    to: u64,
    unit: warden_protocol::metrics::MetricUnit,
) -> Result<Vec<f64>, HistoryError> {
    let blocks = db::scan_blocks(conn, series, tier, tier.block_start(from), to)?;
    let mut out = Vec::new();
    for (start, block) in blocks {
        let Ok(Block::Rollup(aggs)) = block else {
            continue;
        };
        for (i, agg) in aggs.iter().enumerate() {
            let at = start + i as u64 * tier.resolution_ms;
            if let Some(agg) = agg.filter(|_| at >= from && at < to) {
                out.push(restore(agg.avg, unit));
            }
        }
    }
    Ok(out)
}

/// Refresh the rolling 24 h band and, once the series is 7 days old, the
/// band of the hour of week that just ended at `end`.
fn refresh_baseline(
    tx: &Transaction,
    retention: &Retention,
    id: u32,
    series: &Series,
    end: u64,
) -> Result<(), HistoryError> {
    let Some(tier) = baseline_tier(retention.tiers()) else {
        return Ok(());
    };
    let unit = series.unit();
    let hour = end - end % HOUR_MS - HOUR_MS;
    let mut buckets = vec![(
        ROLLING,
        averages(tx, id, tier, end.saturating_sub(24 * HOUR_MS), end, unit)?,
    )];
    if series.first_ms + baseline::WEEK_MS <= end {
        let oldest = end.saturating_sub(tier.keep_ms);
        let mut values = Vec::new();
        for h in baseline::same_hours(hour, oldest) {
            values.extend(averages(tx, id, tier, h, h + HOUR_MS, unit)?);
        }
        buckets.push((baseline::hour_of_week(hour), values));
    }
    for (bucket, values) in buckets {
        match baseline::median_mad(&values) {
            Some((median, mad)) => {
                tx.prepare_cached("INSERT OR REPLACE INTO baselines (series, bucket, median, mad) VALUES (?1, ?2, ?3, ?4)")?
                    .execute(params![id, bucket, median, mad])?;
            }
            None => {
                tx.prepare_cached("DELETE FROM baselines WHERE series = ?1 AND bucket = ?2")?
                    .execute(params![id, bucket])?;
            }
        }
    }
    Ok(())
}
