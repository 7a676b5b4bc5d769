//! The store: opening (replaying the journal), ingesting into memory, and
//! flushing batches to the journal. Sealing windows is in `seal`, queries
//! in `query`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, params};
use warden_protocol::metrics::{MetricName, Sample};

use crate::codec;
use crate::db;
use crate::error::HistoryError;
use crate::quantize::quantize;
use crate::retention::{Retention, format_duration};
use crate::state::{Counters, Route, Series, State, route};

/// Where time comes from: the system clock, or one a caller moves (tests,
/// simulations, imports replayed at speed).
#[derive(Debug, Clone)]
pub enum Clock {
    System,
    Manual(Arc<AtomicU64>),
}

impl Clock {
    pub fn now_ms(&self) -> u64 {
        match self {
            Clock::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            Clock::Manual(ms) => ms.load(Ordering::Relaxed),
        }
    }
}

/// How a store runs; [`Options::new`] gives the defaults.
#[derive(Debug, Clone)]
pub struct Options {
    pub retention: Retention,
    pub clock: Clock,
    /// How long after its end a window stays open for stragglers before it
    /// is sealed; later samples take the slower late path.
    pub grace: Duration,
    /// Samples from further in the future than this are refused.
    pub future_tolerance: Duration,
    /// [`HistoryStore::ingest`] flushes by itself past this many unflushed
    /// samples.
    pub max_pending: usize,
}

impl Options {
    pub fn new(retention: Retention) -> Options {
        Options {
            retention,
            clock: Clock::System,
            grace: Duration::from_secs(120),
            future_tolerance: Duration::from_secs(300),
            max_pending: 200_000,
        }
    }
}

/// How one [`HistoryStore::ingest`] call went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ingested {
    pub accepted: usize,
    /// Not finite, out of range, from the future, older than every tier,
    /// or without a resource.
    pub refused: usize,
}

/// What the store has seen go wrong since it was opened, and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    pub series: usize,
    pub accepted: u64,
    pub rejected_values: u64,
    pub rejected_future: u64,
    pub rejected_too_old: u64,
    /// Late samples for a 10 s slot that already had one (dropped).
    pub late_duplicates: u64,
    /// Distinct blocks found unreadable (skipped: their span reads as gaps).
    pub corrupt_blocks: u64,
    /// Journal batches found unreadable at open (their samples are lost).
    pub corrupt_journal_batches: u64,
    /// Samples in memory not yet written (a kill now would lose them).
    pub pending: usize,
    /// Where an unreadable database file was moved at open.
    pub quarantined: Option<PathBuf>,
    /// Tiers whose blocks were dropped at open because the retention
    /// changed their layout (`"1m"`).
    pub dropped_tiers: Vec<String>,
    pub last_error: Option<String>,
}

/// The embedded time-series store (see the crate docs).
pub struct HistoryStore {
    pub(crate) options: Options,
    pub(crate) writer: Mutex<Connection>,
    pub(crate) reader: Mutex<Connection>,
    pub(crate) state: Mutex<State>,
    pub(crate) quarantined: Option<PathBuf>,
    pub(crate) dropped_tiers: Vec<String>,
    pub(crate) last_error: Mutex<Option<String>>,
    path: PathBuf,
}

impl HistoryStore {
    /// The file's name in the data directory.
    pub const FILE_NAME: &'static str = "history.db";

    /// Open (or create) the store at `path` (normally
    /// `data_dir/history.db`) with the system clock.
    pub fn open(path: &Path, retention: Retention) -> Result<HistoryStore, HistoryError> {
        HistoryStore::open_with(path, Options::new(retention))
    }

    pub fn open_with(path: &Path, options: Options) -> Result<HistoryStore, HistoryError> {
        let now = options.clock.now_ms();
        let (mut conn, quarantined) = db::open(path, now)?;
        let dropped = db::adopt_layout(&mut conn, options.retention.tiers())?;
        let reader = db::open_reader(path)?;
        let state = load(&conn, &options, now)?;
        Ok(HistoryStore {
            options,
            writer: Mutex::new(conn),
            reader: Mutex::new(reader),
            state: Mutex::new(state),
            quarantined,
            dropped_tiers: dropped
                .iter()
                .map(|s| format_duration(*s as u64 * 1000))
                .collect(),
            last_error: Mutex::new(None),
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn retention(&self) -> &Retention {
        &self.options.retention
    }

    /// Take samples into memory (the open window's heads) and the next
    /// batch; [`HistoryStore::flush`] writes the batch. Bad samples are
    /// counted, not errors.
    pub fn ingest(&self, samples: &[Sample]) -> Result<Ingested, HistoryError> {
        let now = self.options.clock.now_ms();
        let newest = now.saturating_add(self.options.future_tolerance.as_millis() as u64);
        let oldest = now.saturating_sub(self.options.retention.longest_keep_ms());
        let finest = self.options.retention.finest_ms();
        let window = self.options.retention.window_ms();
        let slots = (window / finest) as usize;
        let mut report = Ingested::default();
        let must_flush = {
            let mut state = self.lock_state()?;
            let state = &mut *state;
            for sample in samples {
                let Some(value) = quantize(sample.value, sample.metric.unit())
                    .filter(|_| !sample.resource.is_empty())
                else {
                    state.counters.rejected_values += 1;
                    report.refused += 1;
                    continue;
                };
                if sample.at_ms > newest {
                    state.counters.rejected_future += 1;
                    report.refused += 1;
                    continue;
                }
                if sample.at_ms < oldest {
                    state.counters.rejected_too_old += 1;
                    report.refused += 1;
                    continue;
                }
                let id = match state.find(&sample.resource, sample.metric, &sample.instance) {
                    Some(id) => id,
                    None => state.create(
                        &sample.resource,
                        sample.metric,
                        &sample.instance,
                        sample.at_ms,
                    ),
                };
                if let Some(series) = state.get_mut(id) {
                    if series.latest.is_none_or(|(at, _)| at <= sample.at_ms) {
                        series.latest = Some((sample.at_ms, value));
                    }
                    series.first_ms = series.first_ms.min(sample.at_ms);
                }
                let slot = sample.at_ms - sample.at_ms % finest;
                match route(slot, state.window_start, window, finest) {
                    Route::Head(index) => {
                        state.put_head(id, index, value, slots);
                        state.pending.push((id, slot, value));
                    }
                    Route::Spill => {
                        state.spill.entry(id).or_default().push((slot, value));
                        state.pending.push((id, slot, value));
                    }
                    Route::Late => state.late.push((id, slot, value)),
                }
                state.counters.accepted += 1;
                report.accepted += 1;
            }
            state.pending.len() + state.late.len() > self.options.max_pending
        };
        if must_flush {
            self.flush()?;
        }
        Ok(report)
    }

    /// Write the batch ingested since the last flush (one transaction: new
    /// series, the batch in the journal, late samples into their blocks),
    /// then seal the windows whose grace has passed. After it returns, a
    /// kill loses nothing ingested before the call.
    pub fn flush(&self) -> Result<(), HistoryError> {
        let result = self.flush_inner();
        if let Err(e) = &result {
            tracing::warn!(error = %e, "history flush failed");
            if let Ok(mut last) = self.last_error.lock() {
                *last = Some(e.to_string());
            }
        }
        result
    }

    fn flush_inner(&self) -> Result<(), HistoryError> {
        let mut writer = self.lock_writer()?;
        let (pending, late, unsaved) = {
            let mut state = self.lock_state()?;
            let unsaved: Vec<(u32, String, &'static str, String, u64)> =
                std::mem::take(&mut state.unsaved)
                    .into_iter()
                    .filter_map(|id| {
                        let s = state.get(id)?;
                        Some((
                            id,
                            s.resource.to_string(),
                            s.metric.as_str(),
                            s.instance.to_string(),
                            s.first_ms,
                        ))
                    })
                    .collect();
            (
                std::mem::take(&mut state.pending),
                std::mem::take(&mut state.late),
                unsaved,
            )
        };
        let written = (|| -> Result<crate::seal::Applied, HistoryError> {
            let tx = writer.transaction()?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT OR IGNORE INTO series (id, resource, metric, instance, first_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                )?;
                for (id, resource, metric, instance, first) in &unsaved {
                    insert.execute(params![id, resource, metric, instance, *first as i64])?;
                }
            }
            if !pending.is_empty() {
                tx.prepare_cached("INSERT INTO journal (data) VALUES (?1)")?
                    .execute([codec::encode_journal(&pending)])?;
            }
            let applied = crate::seal::apply_late(
                &tx,
                &self.options.retention,
                self.options.clock.now_ms(),
                &late,
            )?;
            tx.commit()?;
            Ok(applied)
        })();
        match written {
            Ok(applied) => {
                let mut state = self.lock_state()?;
                state.counters.late_duplicates += applied.duplicates;
                state.counters.corrupt_blocks += applied.corrupt;
            }
            Err(e) => {
                // Keep everything for the next try.
                let mut state = self.lock_state()?;
                let mut back = pending;
                back.append(&mut state.pending);
                state.pending = back;
                state.late.extend(late);
                state.unsaved.extend(unsaved.iter().map(|u| u.0));
                return Err(e);
            }
        }
        crate::seal::advance(self, &mut writer)
    }

    pub fn health(&self) -> Health {
        let (counters, series, pending) = match self.state.lock() {
            Ok(state) => (
                state.counters,
                state.series.iter().flatten().count(),
                state.pending.len() + state.late.len(),
            ),
            Err(_) => (Counters::default(), 0, 0),
        };
        Health {
            series,
            accepted: counters.accepted,
            rejected_values: counters.rejected_values,
            rejected_future: counters.rejected_future,
            rejected_too_old: counters.rejected_too_old,
            late_duplicates: counters.late_duplicates,
            corrupt_blocks: counters.corrupt_blocks,
            corrupt_journal_batches: counters.corrupt_journal_batches,
            pending,
            quarantined: self.quarantined.clone(),
            dropped_tiers: self.dropped_tiers.clone(),
            last_error: self.last_error.lock().ok().and_then(|e| e.clone()),
        }
    }

    /// Bytes on disk: the database and its WAL.
    pub fn disk_bytes(&self) -> u64 {
        let wal = PathBuf::from(format!("{}-wal", self.path.display()));
        [self.path.as_path(), wal.as_path()]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    }

    pub(crate) fn lock_state(&self) -> Result<MutexGuard<'_, State>, HistoryError> {
        self.state.lock().map_err(|_| HistoryError::Poisoned)
    }

    pub(crate) fn lock_writer(&self) -> Result<MutexGuard<'_, Connection>, HistoryError> {
        self.writer.lock().map_err(|_| HistoryError::Poisoned)
    }

    pub(crate) fn lock_reader(&self) -> Result<MutexGuard<'_, Connection>, HistoryError> {
        self.reader.lock().map_err(|_| HistoryError::Poisoned)
    }
}

impl Drop for HistoryStore {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::warn!(error = %e, "history: last flush at close failed");
        }
    }
}

/// The series index, and the journal replayed into heads.
fn load(conn: &Connection, options: &Options, now: u64) -> Result<State, HistoryError> {
    let retention = &options.retention;
    let finest = retention.finest_ms();
    let window = retention.window_ms();
    let mut state = State::default();
    {
        let mut stmt = conn.prepare(
            "SELECT id, resource, metric, instance, first_ms, latest_ms, latest FROM series ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let metric: String = row.get(2)?;
            let Some(metric) = MetricName::parse(&metric) else {
                continue;
            };
            let resource: String = row.get(1)?;
            let resource: Arc<str> = match state.by_resource.get_key_value(resource.as_str()) {
                Some((key, _)) => key.clone(),
                None => Arc::from(resource),
            };
            let latest_ms: Option<i64> = row.get(5)?;
            let latest: Option<i64> = row.get(6)?;
            state.insert(
                row.get(0)?,
                Series {
                    resource,
                    metric,
                    instance: row.get::<_, String>(3)?.into(),
                    first_ms: row.get::<_, i64>(4)? as u64,
                    latest: latest_ms.zip(latest).map(|(at, v)| (at as u64, v)),
                    head: Vec::new(),
                },
            );
        }
    }
    let mut entries = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT data FROM journal ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let bytes: Vec<u8> = row.get(0)?;
            match codec::decode_journal(&bytes) {
                Ok(batch) => entries.extend(batch),
                Err(e) => {
                    tracing::warn!(error = %e, "history: unreadable journal batch skipped");
                    state.counters.corrupt_journal_batches += 1;
                }
            }
        }
    }
    let sealed_until = db::meta(conn, "sealed_until")?;
    let grace = options.grace.as_millis() as u64;
    let floor = |t: u64| t - t % window;
    state.window_start = match sealed_until {
        Some(s) => s.div_ceil(window) * window,
        None => entries
            .iter()
            .map(|e| e.1)
            .min()
            .map_or_else(|| floor(now.saturating_sub(grace)), floor),
    };
    let slots = (window / finest) as usize;
    for (id, slot, value) in entries {
        let Some(series) = state.get_mut(id) else {
            continue;
        };
        if series.latest.is_none_or(|(at, _)| at <= slot) {
            series.latest = Some((slot, value));
        }
        match route(slot, state.window_start, window, finest) {
            Route::Head(index) => state.put_head(id, index, value, slots),
            Route::Spill => state.spill.entry(id).or_default().push((slot, value)),
            Route::Late => state.late.push((id, slot, value)),
        }
    }
    Ok(state)
}
