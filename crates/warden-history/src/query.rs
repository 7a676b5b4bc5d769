//! Reading: the series of a resource, one series' points at a step chosen
//! from the kept tiers, sparklines for many resources at once, and the
//! baseline band aligned with points. Blocks come from SQLite (a second
//! connection), the open window from memory; an unreadable block reads as
//! a gap and is counted.

use rusqlite::{Connection, params};
use warden_protocol::metrics::{MetricName, MetricUnit};

use crate::baseline::{self, ROLLING};
use crate::codec::Block;
use crate::db;
use crate::error::HistoryError;
use crate::quantize::restore;
use crate::rollup::{Agg, combine, roll_up};
use crate::select::{self, DEFAULT_MAX_POINTS};
use crate::state::State;
use crate::store::HistoryStore;

/// One series kept for a resource (`GET /api/history/{resource}`).
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesInfo {
    pub metric: MetricName,
    pub instance: String,
    pub unit: MetricUnit,
    pub latest: Option<f64>,
    pub at_ms: Option<u64>,
}

/// Min, average, max and last over a whole answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub last: f64,
}

/// One series' answer: a point per step from `from` (aligned down to the
/// step) to `to`, the average of the step, `None` for a gap.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    pub unit: MetricUnit,
    pub step_ms: u64,
    /// The resolution of the tier read.
    pub tier_ms: u64,
    pub points: Vec<(u64, Option<f64>)>,
    pub summary: Option<Summary>,
}

/// The baseline band aligned with [`Points::points`].
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub low: Vec<Option<f64>>,
    pub high: Vec<Option<f64>>,
}

/// A resource's sparkline.
#[derive(Debug, Clone, PartialEq)]
pub struct Sparkline {
    pub resource: String,
    pub instance: String,
    pub step_ms: u64,
    pub values: Vec<Option<f64>>,
}

impl HistoryStore {
    /// The series kept for a resource, by metric and instance.
    pub fn series(&self, resource: &str) -> Result<Vec<SeriesInfo>, HistoryError> {
        let state = self.lock_state()?;
        let mut out: Vec<SeriesInfo> = state
            .by_resource
            .get(resource)
            .into_iter()
            .flatten()
            .filter_map(|(_, id)| state.get(*id))
            .map(|s| SeriesInfo {
                metric: s.metric,
                instance: s.instance.to_string(),
                unit: s.unit(),
                latest: s.latest.map(|(_, v)| restore(v, s.unit())),
                at_ms: s.latest.map(|(at, _)| at),
            })
            .collect();
        out.sort_by(|a, b| (a.metric, &a.instance).cmp(&(b.metric, &b.instance)));
        Ok(out)
    }

    /// One series from `from_ms` to `to_ms`; `step_ms` `None` picks the
    /// finest tier kept that far back answering in at most 2,000 points.
    pub fn points(
        &self,
        resource: &str,
        metric: MetricName,
        instance: &str,
        from_ms: u64,
        to_ms: u64,
        step_ms: Option<u64>,
    ) -> Result<Points, HistoryError> {
        if to_ms <= from_ms {
            return Err(HistoryError::BadQuery(format!(
                "`to` ({to_ms}) must come after `from` ({from_ms})"
            )));
        }
        if step_ms == Some(0) {
            return Err(HistoryError::BadQuery("step must be positive".into()));
        }
        let reader = self.lock_reader()?;
        let mut state = self.lock_state()?;
        let id = state
            .find(resource, metric, instance)
            .ok_or_else(|| unknown(resource, metric, instance))?;
        self.read(
            &reader,
            &mut state,
            id,
            metric.unit(),
            from_ms,
            to_ms,
            step_ms,
        )
    }

    /// Sparklines of one metric for many resources over the last
    /// `window_ms`, about `width` values each. A metric with instances
    /// takes `instance`, or each resource's first when `None`. Resources
    /// without that series are left out.
    pub fn sparklines(
        &self,
        resources: &[&str],
        metric: MetricName,
        instance: Option<&str>,
        window_ms: u64,
        width: usize,
    ) -> Result<Vec<Sparkline>, HistoryError> {
        // `width` buckets exactly, the last one holding now. The step is
        // what the tiers allow (the finest resolution at least).
        let asked = (window_ms / width.max(1) as u64).max(1);
        let now = self.options.clock.now_ms();
        let step = select::choose(
            self.options.retention.tiers(),
            now,
            now.saturating_sub(window_ms),
            now,
            Some(asked),
            DEFAULT_MAX_POINTS,
        )
        .step_ms;
        let to = (now / step + 1) * step;
        let from = to.saturating_sub(step * width.max(1) as u64);
        let reader = self.lock_reader()?;
        let mut state = self.lock_state()?;
        let mut out = Vec::with_capacity(resources.len());
        for resource in resources {
            let id = match instance {
                Some(i) => state.find(resource, metric, i),
                None => state
                    .by_resource
                    .get(*resource)
                    .into_iter()
                    .flatten()
                    .filter(|(m, _)| *m == metric)
                    .filter_map(|(_, id)| Some((state.get(*id)?.instance.clone(), *id)))
                    .min()
                    .map(|(_, id)| id),
            };
            let Some(id) = id else { continue };
            let points = self.read(&reader, &mut state, id, metric.unit(), from, to, Some(step))?;
            out.push(Sparkline {
                resource: resource.to_string(),
                instance: state
                    .get(id)
                    .map(|s| s.instance.to_string())
                    .unwrap_or_default(),
                step_ms: points.step_ms,
                values: points.points.into_iter().map(|(_, v)| v).collect(),
            });
        }
        Ok(out)
    }

    /// The baseline band for each of `points`' times: the band of its hour
    /// of week once the series is 7 days old and that hour was learnt,
    /// else the rolling 24 h band; `None` when neither exists yet.
    pub fn baseline(
        &self,
        resource: &str,
        metric: MetricName,
        instance: &str,
        points: &Points,
    ) -> Result<Option<Band>, HistoryError> {
        let times: Vec<u64> = points.points.iter().map(|p| p.0).collect();
        let bands = self.bands_at(resource, metric, instance, &times)?;
        if bands.iter().all(Option::is_none) {
            return Ok(None);
        }
        Ok(Some(Band {
            low: bands.iter().map(|b| b.map(|b| b.0)).collect(),
            high: bands.iter().map(|b| b.map(|b| b.1)).collect(),
        }))
    }

    /// The band (low, high) at one time, for an anomaly check.
    pub fn band_at(
        &self,
        resource: &str,
        metric: MetricName,
        instance: &str,
        at_ms: u64,
    ) -> Result<Option<(f64, f64)>, HistoryError> {
        Ok(self
            .bands_at(resource, metric, instance, &[at_ms])?
            .pop()
            .flatten())
    }

    fn bands_at(
        &self,
        resource: &str,
        metric: MetricName,
        instance: &str,
        times: &[u64],
    ) -> Result<Vec<Option<(f64, f64)>>, HistoryError> {
        let reader = self.lock_reader()?;
        let (id, first_ms) = {
            let state = self.lock_state()?;
            let id = state
                .find(resource, metric, instance)
                .ok_or_else(|| unknown(resource, metric, instance))?;
            (id, state.get(id).map_or(u64::MAX, |s| s.first_ms))
        };
        let mut learnt: Vec<Option<(f64, f64)>> = vec![None; ROLLING as usize + 1];
        let mut stmt =
            reader.prepare_cached("SELECT bucket, median, mad FROM baselines WHERE series = ?1")?;
        let rows = stmt.query_map(params![id], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                r.get::<_, f64>(1)?,
                r.get::<_, f64>(2)?,
            ))
        })?;
        for row in rows {
            let (bucket, median, mad) = row?;
            if let Some(slot) = learnt.get_mut(bucket as usize) {
                *slot = Some(baseline::band(median, mad, metric.unit()));
            }
        }
        let weekly = first_ms.saturating_add(baseline::WEEK_MS) <= self.options.clock.now_ms();
        let rolling = learnt[ROLLING as usize];
        Ok(times
            .iter()
            .map(|t| {
                let hourly = learnt[baseline::hour_of_week(*t) as usize].filter(|_| weekly);
                hourly.or(rolling)
            })
            .collect())
    }

    #[allow(clippy::too_many_arguments)]
    fn read(
        &self,
        reader: &Connection,
        state: &mut State,
        id: u32,
        unit: MetricUnit,
        from: u64,
        to: u64,
        step: Option<u64>,
    ) -> Result<Points, HistoryError> {
        let retention = &self.options.retention;
        let now = self.options.clock.now_ms();
        let choice = select::choose(retention.tiers(), now, from, to, step, DEFAULT_MAX_POINTS);
        let tiers = retention.tiers();
        let Some(tier) = tiers.get(choice.tier) else {
            return Err(HistoryError::BadQuery("no tier".into()));
        };
        let starts = select::bucket_starts(from, to, choice.step_ms);
        let first = starts.first().copied().unwrap_or(from);
        let blocks = db::scan_blocks(reader, id, tier, tier.block_start(first), to)?;
        // A tier answers for what it keeps, though whole blocks are
        // deleted only once all of their span expired.
        let kept_from = now.saturating_sub(tier.keep_ms);
        let mut slots: Vec<(u64, Agg)> = Vec::new();
        for (start, block) in blocks {
            match block {
                Ok(Block::Points(values)) => {
                    slots.extend(values.iter().enumerate().filter_map(|(i, v)| {
                        v.map(|v| (start + i as u64 * tier.resolution_ms, Agg::of(v)))
                    }))
                }
                Ok(Block::Rollup(aggs)) => slots.extend(
                    aggs.iter()
                        .enumerate()
                        .filter_map(|(i, a)| a.map(|a| (start + i as u64 * tier.resolution_ms, a))),
                ),
                Err(_) => {
                    if state.corrupt_seen.insert((id, tier.resolution_ms, start)) {
                        state.counters.corrupt_blocks += 1;
                        tracing::warn!(
                            series = id,
                            tier_ms = tier.resolution_ms,
                            start,
                            "history: unreadable block skipped"
                        );
                    }
                }
            }
        }
        let unsealed = state.unsealed(id, state.window_start, retention.finest_ms());
        if choice.tier == 0 {
            slots.extend(unsealed.into_iter().map(|(at, v)| (at, Agg::of(v))));
        } else {
            slots.extend(roll_up(&unsealed, tier.resolution_ms));
        }
        slots.retain(|s| s.0 >= kept_from);
        // Stable: for one slot, the stored part before the newer one.
        slots.sort_by_key(|s| s.0);
        let buckets = select::into_buckets(&starts, choice.step_ms, slots);
        let summary = combine(buckets.iter().flatten().copied()).map(|a| Summary {
            min: restore(a.min, unit),
            avg: restore(a.avg, unit),
            max: restore(a.max, unit),
            last: restore(a.last, unit),
        });
        Ok(Points {
            unit,
            step_ms: choice.step_ms,
            tier_ms: tier.resolution_ms,
            points: starts
                .iter()
                .zip(buckets)
                .map(|(t, b)| (*t, b.map(|a| restore(a.avg, unit))))
                .collect(),
            summary,
        })
    }
}

fn unknown(resource: &str, metric: MetricName, instance: &str) -> HistoryError {
    HistoryError::UnknownSeries {
        resource: resource.to_string(),
        metric: metric.as_str(),
        instance: instance.to_string(),
    }
}
