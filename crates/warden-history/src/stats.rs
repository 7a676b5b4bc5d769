//! What the store holds, per tier: blocks, bytes and points (for
//! `/metrics` and the benches; it decodes every block, so it is slow on a
//! large store).

use crate::codec::{self, Block};
use crate::error::HistoryError;
use crate::store::HistoryStore;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TierStats {
    pub resolution_ms: u64,
    pub blocks: u64,
    /// Bytes of the blocks' blobs (without SQLite's own row overhead).
    pub bytes: u64,
    /// Slots holding a value.
    pub points: u64,
    /// Blocks that did not decode.
    pub corrupt: u64,
}

impl HistoryStore {
    pub fn tier_stats(&self) -> Result<Vec<TierStats>, HistoryError> {
        let reader = self.lock_reader()?;
        let mut out = Vec::new();
        for tier in self.options.retention.tiers() {
            let mut stats = TierStats {
                resolution_ms: tier.resolution_ms,
                blocks: 0,
                bytes: 0,
                points: 0,
                corrupt: 0,
            };
            let mut stmt =
                reader.prepare(&format!("SELECT data FROM {}", crate::db::table(tier)))?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let data: Vec<u8> = row.get(0)?;
                stats.blocks += 1;
                stats.bytes += data.len() as u64;
                match codec::decode_block(&data) {
                    Ok(Block::Points(v)) => stats.points += v.iter().flatten().count() as u64,
                    Ok(Block::Rollup(v)) => stats.points += v.iter().flatten().count() as u64,
                    Err(_) => stats.corrupt += 1,
                }
            }
            out.push(stats);
        }
        Ok(out)
    }
}
