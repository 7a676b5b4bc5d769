//! The tamper-evident audit log: every executor decision is appended with
//! `hash = sha256(prev_hash || "\n" || record)`, so changing, removing or
//! reordering any record breaks the chain from there on.

use rusqlite::{TransactionBehavior, params};
use serde::Serialize;
use sha2::{Digest, Sha256};
use warden_protocol::AuditRecord;

use crate::{Store, StoreError, StoreResult, sql_i64};

/// The hash before the first record.
const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditEntry {
    pub seq: i64,
    pub at_ms: i64,
    pub record: AuditRecord,
    pub hash: String,
}

/// Where and why the chain breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("audit chain broken at record {seq}: {reason}")]
pub struct AuditBreak {
    pub seq: i64,
    pub reason: String,
}

fn chain_hash(prev_hash: &str, record: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(prev_hash.as_bytes());
    hasher.update(b"\n");
    hasher.update(record.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Store {
    /// Append one record (in a write transaction, so concurrent writers
    /// cannot fork the chain).
    pub fn append_audit(&self, record: &AuditRecord, at_ms: u64) -> StoreResult<i64> {
        let text = serde_json::to_string(record).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let prev: String = tx
            .query_row(
                "SELECT hash FROM audit ORDER BY seq DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(GENESIS.to_string()),
                other => Err(other),
            })?;
        let hash = chain_hash(&prev, &text);
        tx.execute(
            "INSERT INTO audit (at_ms, record, prev_hash, hash) VALUES (?1, ?2, ?3, ?4)",
            params![sql_i64(at_ms), text, prev, hash],
        )?;
        let seq = tx.last_insert_rowid();
        tx.commit()?;
        Ok(seq)
    }

    /// Recompute the whole chain. `Ok(n)` is the number of records checked.
    pub fn verify_audit(&self) -> StoreResult<Result<usize, AuditBreak>> {
        let conn = self.conn()?;
        let mut statement =
            conn.prepare("SELECT seq, record, prev_hash, hash FROM audit ORDER BY seq")?;
        let mut rows = statement.query([])?;
        let mut expected_prev = GENESIS.to_string();
        let mut count = 0;
        while let Some(row) = rows.next()? {
            let seq: i64 = row.get(0)?;
            let record: String = row.get(1)?;
            let prev: String = row.get(2)?;
            let hash: String = row.get(3)?;
            if prev != expected_prev {
                return Ok(Err(AuditBreak {
                    seq,
                    reason: "the previous record was changed or removed".into(),
                }));
            }
            if chain_hash(&prev, &record) != hash {
                return Ok(Err(AuditBreak {
                    seq,
                    reason: "the record was changed".into(),
                }));
            }
            expected_prev = hash;
            count += 1;
        }
        Ok(Ok(count))
    }

    /// The last `n` records, oldest first.
    pub fn audit_tail(&self, n: usize) -> StoreResult<Vec<AuditEntry>> {
        let conn = self.conn()?;
        let mut statement =
            conn.prepare("SELECT seq, at_ms, record, hash FROM audit ORDER BY seq DESC LIMIT ?1")?;
        let rows = statement.query_map(params![i64::try_from(n).unwrap_or(i64::MAX)], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut entries = Vec::new();
        for row in rows {
            let (seq, at_ms, record, hash) = row?;
            let record = serde_json::from_str(&record)
                .map_err(|e| StoreError::Corrupt(format!("audit record {seq}: {e}")))?;
            entries.push(AuditEntry {
                seq,
                at_ms,
                record,
                hash,
            });
        }
        entries.reverse();
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(decision: &str) -> AuditRecord {
        AuditRecord {
            session_id: "s".into(),
            tool: "read".into(),
            target: Some("host:web1".into()),
            decision: decision.into(),
            code: None,
            summary: "uptime".into(),
            duration_ms: 3,
        }
    }

    #[test]
    fn the_chain_verifies_and_detects_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("warden.db");
        let store = Store::open(&path).unwrap();
        for decision in ["allowed", "executed", "blocked"] {
            store.append_audit(&record(decision), 1).unwrap();
        }
        assert_eq!(store.verify_audit().unwrap(), Ok(3));
        assert_eq!(
            store
                .audit_tail(2)
                .unwrap()
                .iter()
                .map(|e| e.record.decision.as_str())
                .collect::<Vec<_>>(),
            ["executed", "blocked"]
        );

        // Edit a record behind Warden's back.
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute(
            "UPDATE audit SET record = replace(record, 'blocked', 'allowed') WHERE seq = 3",
            [],
        )
        .unwrap();
        assert_eq!(store.verify_audit().unwrap().unwrap_err().seq, 3);
        raw.execute(
            "UPDATE audit SET record = replace(record, 'allowed', 'blocked') WHERE seq = 3",
            [],
        )
        .unwrap();
        assert_eq!(store.verify_audit().unwrap(), Ok(3));
        // Remove one in the middle.
        raw.execute("DELETE FROM audit WHERE seq = 2", []).unwrap();
        assert_eq!(store.verify_audit().unwrap().unwrap_err().seq, 3);
    }
}
