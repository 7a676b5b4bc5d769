//! What the store holds in memory: the series index, each series' head
//! (its values of the open window, one `i64` a slot of the finest tier),
//! samples of the next window (`spill`), samples older than the open
//! window waiting for the next flush (`late`), and the batch not yet
//! journalled (`pending`). No IO.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use warden_protocol::metrics::{MetricName, MetricUnit};

/// A head slot without a value.
pub const EMPTY: i64 = i64::MIN;

/// A sample as the store keeps it: series id, slot start (ms), stored
/// integer.
pub type Entry = (u32, u64, i64);

pub struct Series {
    pub resource: Arc<str>,
    pub metric: MetricName,
    pub instance: Box<str>,
    pub first_ms: u64,
    /// (time, stored value) of the newest sample.
    pub latest: Option<(u64, i64)>,
    /// Empty, or one slot per finest-tier step of the open window.
    pub head: Vec<i64>,
}

impl Series {
    pub fn unit(&self) -> MetricUnit {
        self.metric.unit()
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub accepted: u64,
    pub rejected_values: u64,
    pub rejected_future: u64,
    pub rejected_too_old: u64,
    pub late_duplicates: u64,
    pub corrupt_blocks: u64,
    pub corrupt_journal_batches: u64,
}

#[derive(Default)]
pub struct State {
    pub by_resource: HashMap<Arc<str>, Vec<(MetricName, u32)>>,
    pub series: Vec<Option<Series>>,
    pub window_start: u64,
    /// Series whose head got a value in the open window, each once.
    pub dirty: Vec<u32>,
    /// By series: (slot start, value), in arrival order.
    pub spill: HashMap<u32, Vec<(u64, i64)>>,
    pub late: Vec<Entry>,
    pub pending: Vec<Entry>,
    /// Series created since the last flush.
    pub unsaved: Vec<u32>,
    pub counters: Counters,
    /// Unreadable blocks already counted: (series, tier resolution, start).
    pub corrupt_seen: HashSet<(u32, u64, u64)>,
}

/// Where a sample goes, given the open window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Slot index in the head.
    Head(usize),
    Spill,
    Late,
}

pub fn route(slot_ms: u64, window_start: u64, window_ms: u64, finest_ms: u64) -> Route {
    if slot_ms < window_start {
        Route::Late
    } else if slot_ms < window_start + window_ms {
        Route::Head(((slot_ms - window_start) / finest_ms) as usize)
    } else {
        Route::Spill
    }
}

impl State {
    pub fn find(&self, resource: &str, metric: MetricName, instance: &str) -> Option<u32> {
        self.by_resource.get(resource)?.iter().find_map(|(m, id)| {
            let series = self.get(*id)?;
            (*m == metric && &*series.instance == instance).then_some(*id)
        })
    }

    pub fn get(&self, id: u32) -> Option<&Series> {
        self.series.get(id as usize)?.as_ref()
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut Series> {
        self.series.get_mut(id as usize)?.as_mut()
    }

    /// Add a series known to the database or new (then `unsaved`).
    pub fn insert(&mut self, id: u32, series: Series) {
        let resource = series.resource.clone();
        let metric = series.metric;
        if self.series.len() <= id as usize {
            self.series.resize_with(id as usize + 1, || None);
        }
        self.series[id as usize] = Some(series);
        self.by_resource
            .entry(resource)
            .or_default()
            .push((metric, id));
    }

    pub fn create(
        &mut self,
        resource: &str,
        metric: MetricName,
        instance: &str,
        at_ms: u64,
    ) -> u32 {
        let id = self.series.len().max(1) as u32;
        let resource: Arc<str> = match self.by_resource.get_key_value(resource) {
            Some((key, _)) => key.clone(),
            None => Arc::from(resource),
        };
        self.insert(
            id,
            Series {
                resource,
                metric,
                instance: instance.into(),
                first_ms: at_ms,
                latest: None,
                head: Vec::new(),
            },
        );
        self.unsaved.push(id);
        id
    }

    pub fn remove(&mut self, id: u32) {
        let Some(series) = self.series.get_mut(id as usize).and_then(Option::take) else {
            return;
        };
        if let Some(list) = self.by_resource.get_mut(&*series.resource) {
            list.retain(|(_, i)| *i != id);
            if list.is_empty() {
                self.by_resource.remove(&*series.resource);
            }
        }
    }

    /// Put a stored value in the open window's head.
    pub fn put_head(&mut self, id: u32, index: usize, value: i64, window_slots: usize) {
        let Some(series) = self.series.get_mut(id as usize).and_then(Option::as_mut) else {
            return;
        };
        if series.head.is_empty() {
            series.head = vec![EMPTY; window_slots];
            self.dirty.push(id);
        }
        if let Some(slot) = series.head.get_mut(index) {
            *slot = value;
        }
    }

    /// Take a series' head as (slot start, value) pairs, leaving it empty.
    pub fn take_head(&mut self, id: u32, window_start: u64, finest_ms: u64) -> Vec<(u64, i64)> {
        let Some(series) = self.get_mut(id) else {
            return Vec::new();
        };
        let head = std::mem::take(&mut series.head);
        head_points(&head, window_start, finest_ms)
    }

    /// The open window's and the next ones' values of a series, in time
    /// order (for queries: not yet in the blocks).
    pub fn unsealed(&self, id: u32, window_start: u64, finest_ms: u64) -> Vec<(u64, i64)> {
        let mut out = self
            .get(id)
            .map(|s| head_points(&s.head, window_start, finest_ms))
            .unwrap_or_default();
        let mut spilled: Vec<(u64, i64)> = self.spill.get(&id).cloned().unwrap_or_default();
        // Stable: of two samples of one slot, the later stays last.
        spilled.sort_by_key(|p| p.0);
        out.extend(spilled);
        out
    }
}

fn head_points(head: &[i64], window_start: u64, finest_ms: u64) -> Vec<(u64, i64)> {
    head.iter()
        .enumerate()
        .filter(|(_, v)| **v != EMPTY)
        .map(|(i, v)| (window_start + i as u64 * finest_ms, *v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        let table = [
            (0, Route::Late),
            (899_999, Route::Late),
            (900_000, Route::Head(0)),
            (910_000, Route::Head(1)),
            (1_790_000, Route::Head(89)),
            (1_800_000, Route::Spill),
            (99_000_000, Route::Spill),
        ];
        for (slot, want) in table {
            assert_eq!(route(slot, 900_000, 900_000, 10_000), want, "{slot}");
        }
    }

    #[test]
    fn series_are_found_by_key_and_heads_fill_once() {
        let mut state = State::default();
        let a = state.create("host:a", MetricName::DiskUsedPercent, "/", 5);
        let b = state.create("host:a", MetricName::DiskUsedPercent, "/var", 5);
        let c = state.create("host:b", MetricName::CpuPercent, "", 5);
        assert_eq!(
            state.find("host:a", MetricName::DiskUsedPercent, "/var"),
            Some(b)
        );
        assert_eq!(
            state.find("host:a", MetricName::DiskUsedPercent, "/"),
            Some(a)
        );
        assert_eq!(state.find("host:b", MetricName::CpuPercent, ""), Some(c));
        assert_eq!(state.find("host:b", MetricName::Load1, ""), None);
        assert_eq!(state.unsaved, vec![a, b, c]);
        state.put_head(a, 2, 7, 4);
        state.put_head(a, 3, 8, 4);
        assert_eq!(state.dirty, vec![a]);
        assert_eq!(state.take_head(a, 1000, 10), vec![(1020, 7), (1030, 8)]);
        state.remove(a);
        assert_eq!(state.find("host:a", MetricName::DiskUsedPercent, "/"), None);
        assert_eq!(
            state.find("host:a", MetricName::DiskUsedPercent, "/var"),
            Some(b)
        );
    }
}
