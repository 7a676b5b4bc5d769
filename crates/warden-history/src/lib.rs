//! Warden's embedded time-series store: the history of every host, guest
//! and container (spec/patrol.md), in one SQLite file in the data
//! directory (`history.db`).
//!
//! # Layout and why
//!
//! A series is (resource, metric, instance). Its values live in **tiers**
//! (by default 10 s for 24 h, 1 min for 7 d, 15 min for 90 d, 1 h for 2 y;
//! see [`Retention`]). The finest tier keeps one value per slot, the
//! coarser ones min, avg, max, last and a count per slot (so two rollups
//! of one slot merge exactly). Each tier is stored as **blocks**: one
//! SQLite row per series and span (15 min of 10 s values = 90 slots; about
//! 240 slots in the coarser tiers), compressed as integers at a fixed
//! precision per unit (`quantize`: hundredths of a percent, whole bytes),
//! delta or delta-of-delta coded and bit-packed in groups of 16, with a
//! checksum (`codec`). Typical host data takes about 1–2 bytes a point
//! there, where one row per sample in SQLite takes 30–40 and XOR-coded
//! raw floats 6–8 for noisy gauges.
//!
//! Compared (2026-11): `tsink` 0.10 (an embedded TSDB: one maintainer, no
//! rollup tiers or retention per tier, its own file format beside
//! SQLite), `tsz` 0.1.4 (Gorilla coding, unmaintained since 2018, floats
//! only), `pco` 1.1 (excellent numeric compression, but batch-only and
//! needs rustc 1.87 over the workspace's 1.85). A small codec of our own
//! inside SQLite (already linked, WAL-safe, one file to back up) met the
//! targets; see the crate's benches for the numbers.
//!
//! # Writes, durability, bounds
//!
//! [`HistoryStore::ingest`] only touches memory: the open **window** (15
//! min by default) of each series is an array of slots (the head), and
//! the samples since the last flush are the **batch**.
//! [`HistoryStore::flush`] (call it every few seconds, or run a
//! [`Flusher`]) writes the batch to a journal table in one transaction;
//! SQLite in WAL mode keeps a committed transaction through a kill -9, so
//! a kill loses at most the batch not yet flushed. When a window's grace
//! (2 min) has passed, it is **sealed**: one block per series in the
//! finest tier, merged into the coarser tiers' blocks, the journal
//! emptied (see `seal`). Samples for older windows (stragglers, imports)
//! take the same merge path at the next flush.
//!
//! Size is bounded by retention: at every seal, blocks whose span ended
//! longer ago than their tier keeps are deleted (through an index on
//! (tier, start)), and every hour series silent for longer than the
//! longest tier are forgotten; SQLite reuses the freed pages, and an
//! incremental vacuum gives space back when a quarter of the file is free.
//! The file thus stays near series × Σ(points kept per tier × bytes per
//! point).
//!
//! # Damage
//!
//! A block whose checksum fails (or a page SQLite reports corrupt) reads
//! as a gap and is counted in [`HistoryStore::health`]; a journal batch
//! that fails is skipped at open and counted; a file that is not a
//! database is moved aside at open and a new one started. None is fatal.
//!
//! # Measured (2-core machine, shared; `benches/`)
//!
//! 1,000 hosts × 60 series every 10 s (6,000 samples/s), simulated at
//! speed: 0.3–0.4 % of one core per simulated second including the seals,
//! peak RSS 127 MB, nothing lost; the worst flush (one with a seal of
//! 60,000 series) 1–5 s, during which ingest and queries wait at most one
//! chunk of 1,000 series. 10 s tier: 1.04 bytes a point after a week;
//! rollup tiers about 3.5 (five columns). A week of 20 such hosts took
//! 94.6 MB on disk (1.30 bytes per sample ingested, all overhead
//! included), so about 4.7 GB for 1,000 hosts. One series over 30 days:
//! 0.08 ms (1 h step) or 0.26 ms (15 min step); 24 h sparklines of 500
//! hosts: 8 ms at 96 points, 56 ms at 288.
//!
//! # Baselines
//!
//! At each hour, the series written in it get their rolling 24 h band
//! refreshed and, once 7 days old, the band of that hour of week (median ±
//! 3 scaled MADs of four weeks of the same hour in the 15 min tier); see
//! `baseline`.

mod baseline;
mod codec;
mod db;
mod error;
mod flusher;
mod quantize;
mod query;
mod retention;
mod rollup;
mod seal;
mod select;
mod state;
mod stats;
mod store;

pub use baseline::{band, hour_of_week, median_mad};
pub use error::{HistoryError, RetentionError};
pub use flusher::Flusher;
pub use quantize::{quantize, restore};
pub use query::{Band, Points, SeriesInfo, Sparkline, Summary};
pub use retention::{Retention, Tier, format_duration, parse_duration};
pub use rollup::Agg;
pub use select::{Choice, DEFAULT_MAX_POINTS, choose};
pub use stats::TierStats;
pub use store::{Clock, Health, HistoryStore, Ingested, Options};
