//! The SQLite side: opening (a file that is not a database is moved aside,
//! never fatal), the schema, and reading and writing blocks.
//!
//! Tables: `series` (one row per series: its key, first time seen and
//! latest value), one `blocks_<seconds>` table per tier, `tiers` (their
//! layout, so a changed retention drops only the tiers it changed),
//! `journal` (the batches written since the last seal), `baselines` and
//! `meta`.
//!
//! A block's row id is its time then its series, `(start / resolution) <<
//! 32 | series`: a seal appends the new window's blocks at the end of the
//! table, so pages fill completely (keyed by series first, the same
//! blocks landed all over the tree and left pages a third empty), expired
//! blocks are one range at the front, and a series' blocks in a range are
//! point lookups of the block starts it covers.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OptionalExtension, Transaction, params};

use crate::codec::{self, Block, CodecError};
use crate::error::HistoryError;
use crate::retention::Tier;

const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS series (
    id INTEGER PRIMARY KEY,
    resource TEXT NOT NULL,
    metric TEXT NOT NULL,
    instance TEXT NOT NULL,
    first_ms INTEGER NOT NULL,
    latest_ms INTEGER,
    latest INTEGER,
    UNIQUE (resource, metric, instance)
);
CREATE TABLE IF NOT EXISTS tiers (res_s INTEGER PRIMARY KEY, block_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS journal (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS baselines (
    series INTEGER NOT NULL,
    bucket INTEGER NOT NULL,
    median REAL NOT NULL,
    mad REAL NOT NULL,
    PRIMARY KEY (series, bucket)
) WITHOUT ROWID;
";

/// Open (creating, mode 0600) the database at `path`. A file SQLite
/// cannot read as a database is renamed `<path>.corrupt-<ms>` (with its
/// WAL) and a new one started; its new name is returned.
pub fn open(path: &Path, now_ms: u64) -> Result<(Connection, Option<PathBuf>), HistoryError> {
    match try_open(path) {
        Ok(conn) => Ok((conn, None)),
        Err(HistoryError::Sqlite(e)) if is_corrupt(&e) => {
            let aside = PathBuf::from(format!("{}.corrupt-{now_ms}", path.display()));
            let io = |source| HistoryError::Open {
                path: path.to_path_buf(),
                source,
            };
            std::fs::rename(path, &aside).map_err(io)?;
            for suffix in ["-wal", "-shm"] {
                let side = PathBuf::from(format!("{}{suffix}", path.display()));
                if side.exists() {
                    let moved = PathBuf::from(format!("{}{suffix}", aside.display()));
                    std::fs::rename(&side, moved).map_err(io)?;
                }
            }
            tracing::warn!(path = %path.display(), aside = %aside.display(), "history database unreadable, moved aside");
            Ok((try_open(path)?, Some(aside)))
        }
        Err(e) => Err(e),
    }
}

/// A second connection to the same file, for readers.
pub fn open_reader(path: &Path) -> Result<Connection, HistoryError> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

fn try_open(path: &Path) -> Result<Connection, HistoryError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(|source| HistoryError::Open {
            path: path.to_path_buf(),
            source,
        })?;
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Before the first table: lets expired space go back to the system.
    conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))?;
    // WAL + NORMAL: a committed batch survives the process being killed
    // (the WAL is in the page cache); only a power loss may cost the last.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.execute_batch(SCHEMA)?;
    Ok(conn)
}

pub fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

pub fn res_s(tier: &Tier) -> i64 {
    (tier.resolution_ms / 1_000) as i64
}

/// The table of a tier's blocks (from a number: nothing to escape).
pub fn table(tier: &Tier) -> String {
    format!("blocks_{}", res_s(tier))
}

/// A block's row id: its start in steps of the tier, then its series.
pub fn block_key(tier: &Tier, start_ms: u64, series: u32) -> i64 {
    (((start_ms / tier.resolution_ms) << 32) | u64::from(series)) as i64
}

/// The first row id of blocks starting at or after `start_ms`.
pub fn first_key(tier: &Tier, start_ms: u64) -> i64 {
    block_key(tier, start_ms, 0)
}

/// Drop the blocks of tiers whose layout changed since the last open (a
/// new resolution set or block span), create the tables of new ones, and
/// record the layout. Returns the resolutions dropped.
pub fn adopt_layout(conn: &mut Connection, tiers: &[Tier]) -> Result<Vec<i64>, HistoryError> {
    let tx = conn.transaction()?;
    let stored: Vec<(i64, i64)> = {
        let mut stmt = tx.prepare("SELECT res_s, block_ms FROM tiers")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut dropped = Vec::new();
    for (res, block_ms) in stored {
        let kept = tiers
            .iter()
            .any(|t| res_s(t) == res && t.block_ms as i64 == block_ms);
        if !kept {
            tx.execute_batch(&format!("DROP TABLE IF EXISTS blocks_{res}"))?;
            tx.execute("DELETE FROM tiers WHERE res_s = ?1", [res])?;
            dropped.push(res);
        }
    }
    for t in tiers {
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS {} (key INTEGER PRIMARY KEY, data BLOB NOT NULL)",
            table(t)
        ))?;
        tx.execute(
            "INSERT OR REPLACE INTO tiers (res_s, block_ms) VALUES (?1, ?2)",
            params![res_s(t), t.block_ms as i64],
        )?;
    }
    tx.commit()?;
    Ok(dropped)
}

pub fn meta(conn: &Connection, key: &str) -> Result<Option<u64>, HistoryError> {
    let v: Option<i64> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()?;
    Ok(v.map(|v| v as u64))
}

pub fn set_meta(tx: &Transaction, key: &str, value: u64) -> Result<(), HistoryError> {
    tx.prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?
        .execute(params![key, value as i64])?;
    Ok(())
}

/// What reading a block found.
pub enum Read {
    Absent,
    Found(Block),
    /// Present but unreadable: skipped, to be counted.
    Corrupt,
}

fn raw_block(
    conn: &Connection,
    series: u32,
    tier: &Tier,
    start_ms: u64,
) -> rusqlite::Result<Option<Vec<u8>>> {
    conn.prepare_cached(&format!("SELECT data FROM {} WHERE key = ?1", table(tier)))?
        .query_row([block_key(tier, start_ms, series)], |r| r.get(0))
        .optional()
}

pub fn read_block(
    conn: &Connection,
    series: u32,
    tier: &Tier,
    start_ms: u64,
) -> Result<Read, HistoryError> {
    Ok(match raw_block(conn, series, tier, start_ms) {
        Ok(None) => Read::Absent,
        Ok(Some(bytes)) => match codec::decode_block(&bytes) {
            Ok(block) => Read::Found(block),
            Err(_) => Read::Corrupt,
        },
        Err(e) if is_corrupt(&e) => Read::Corrupt,
        Err(e) => return Err(e.into()),
    })
}

pub fn write_block(
    tx: &Connection,
    series: u32,
    tier: &Tier,
    start_ms: u64,
    block: &Block,
) -> Result<(), HistoryError> {
    tx.prepare_cached(&format!(
        "INSERT OR REPLACE INTO {} (key, data) VALUES (?1, ?2)",
        table(tier)
    ))?
    .execute(params![
        block_key(tier, start_ms, series),
        codec::encode_block(block)
    ])?;
    Ok(())
}

/// Delete a tier's blocks starting before `before_ms`.
pub fn delete_before(tx: &Connection, tier: &Tier, before_ms: u64) -> Result<(), HistoryError> {
    tx.prepare_cached(&format!("DELETE FROM {} WHERE key < ?1", table(tier)))?
        .execute([first_key(tier, before_ms)])?;
    Ok(())
}

/// A block's start and content, or why it could not be read.
pub type ScannedBlock = (u64, Result<Block, CodecError>);

/// The blocks of a series and tier starting in `from_ms..to_ms` (`from_ms`
/// on a block start), in time order: (start, block or the error that made
/// it unreadable). A page SQLite reports corrupt reads as an unreadable
/// block.
pub fn scan_blocks(
    conn: &Connection,
    series: u32,
    tier: &Tier,
    from_ms: u64,
    to_ms: u64,
) -> Result<Vec<ScannedBlock>, HistoryError> {
    let mut out = Vec::new();
    let mut start = tier.block_start(from_ms);
    while start < to_ms {
        match raw_block(conn, series, tier, start) {
            Ok(None) => {}
            Ok(Some(bytes)) => out.push((start, codec::decode_block(&bytes))),
            Err(e) if is_corrupt(&e) => out.push((start, Err(CodecError::Malformed))),
            Err(e) => return Err(e.into()),
        }
        start += tier.block_ms;
    }
    Ok(out)
}
