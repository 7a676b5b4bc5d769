//! The store's side of the audit log: appending (one IMMEDIATE transaction
//! reads the head, checks the anchor and inserts, so concurrent writers in
//! any process chain correctly), reading pages, verifying, re-anchoring.

use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};
use warden_protocol::AuditRecord;

use super::anchor::{AnchorFile, AuditAnchor};
use super::record::{AuditEntry, GENESIS_HASH, format_at, record_hash};
use super::verify::{AnchorCheck, AnchorSource, AuditProblem, AuditVerification, ChainWalk};
use crate::{Store, StoreError, StoreResult, sql_i64};

pub(crate) const COLUMNS: &str = "seq, at_ms, session_id, actor, tool, target, decision, code, command, reason, duration_ms, prev_hash, hash, legacy_record";

/// The newest record's sequence number and hash (0 and the genesis hash
/// for an empty log).
pub(crate) struct Head {
    pub seq: u64,
    pub hash: String,
}

pub(crate) fn head(conn: &Connection) -> StoreResult<Head> {
    let row: Option<(i64, String)> = conn
        .query_row(
            "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(match row {
        Some((seq, hash)) => Head {
            seq: u64::try_from(seq)
                .map_err(|_| StoreError::Corrupt(format!("audit sequence number {seq}")))?,
            hash,
        },
        None => Head {
            seq: 0,
            hash: GENESIS_HASH.to_string(),
        },
    })
}

/// A row as an entry, or its sequence number and why it cannot be one.
pub(crate) fn read_row(row: &Row<'_>) -> rusqlite::Result<Result<AuditEntry, (u64, String)>> {
    let seq: i64 = row.get(0)?;
    let at_ms: i64 = row.get(1)?;
    let duration_ms: i64 = row.get(10)?;
    let Ok(seq_u) = u64::try_from(seq) else {
        return Ok(Err((0, format!("negative sequence number {seq}"))));
    };
    let Ok(at) = format_at(at_ms) else {
        return Ok(Err((seq_u, format!("time {at_ms} ms is out of range"))));
    };
    let Ok(duration_ms) = u64::try_from(duration_ms) else {
        return Ok(Err((seq_u, format!("negative duration {duration_ms}"))));
    };
    Ok(Ok(AuditEntry {
        seq: seq_u,
        at,
        record: AuditRecord {
            session_id: row.get(2)?,
            actor: row.get(3)?,
            tool: row.get(4)?,
            target: row.get(5)?,
            decision: row.get(6)?,
            code: row.get(7)?,
            command: row.get(8)?,
            reason: row.get(9)?,
            duration_ms,
        },
        prev_hash: row.get(11)?,
        hash: row.get(12)?,
        legacy_record: row.get(13)?,
    }))
}

/// A record inserted but not yet committed, and the anchor to write once it is.
pub(crate) struct Appended {
    pub entry: AuditEntry,
    pub anchor: AuditAnchor,
}

fn refuse(problem: AuditProblem) -> StoreError {
    StoreError::AuditTampered(problem)
}

/// Is the record `anchor` names still in the table, unchanged?
fn check_against(
    tx: &Transaction<'_>,
    source: &AnchorSource,
    anchor: &AuditAnchor,
    head: &Head,
) -> StoreResult<()> {
    if anchor.head_seq == 0 {
        return Ok(());
    }
    if head.seq < anchor.head_seq {
        return Err(refuse(if head.seq == 0 {
            AuditProblem::Emptied {
                anchor: source.clone(),
                records: anchor.records,
                head_seq: anchor.head_seq,
            }
        } else {
            AuditProblem::Truncated {
                anchor: source.clone(),
                last_seq: head.seq,
                head_seq: anchor.head_seq,
            }
        }));
    }
    let hash: Option<String> = tx
        .query_row(
            "SELECT hash FROM audit WHERE seq = ?1",
            params![sql_i64(anchor.head_seq)],
            |r| r.get(0),
        )
        .optional()?;
    if hash.as_deref() != Some(anchor.head_hash.as_str()) {
        return Err(refuse(AuditProblem::Diverged {
            anchor: source.clone(),
            seq: anchor.head_seq,
            expected: anchor.head_hash.clone(),
        }));
    }
    Ok(())
}

/// The anchors to compare a full walk with, in the order they are checked.
fn checks_for(file: AnchorFile, memory: Option<AuditAnchor>) -> Vec<AnchorCheck> {
    let mut checks = Vec::new();
    match file {
        AnchorFile::NotKept => {}
        AnchorFile::Missing { path } => checks.push(AnchorCheck::Missing(AnchorSource::File(path))),
        AnchorFile::Unreadable { path, error } => {
            checks.push(AnchorCheck::Unreadable(AnchorSource::File(path), error));
        }
        AnchorFile::Present { path, anchor } => {
            if let Some(memory) = &memory {
                checks.push(AnchorCheck::NotBehind {
                    file_seq: anchor.head_seq,
                    memory_seq: memory.head_seq,
                });
            }
            checks.push(AnchorCheck::Against(AnchorSource::File(path), anchor));
        }
    }
    if let Some(memory) = memory {
        checks.push(AnchorCheck::Against(AnchorSource::Memory, memory));
    }
    checks
}

impl Store {
    /// Append one record written at `at_ms`. Refused
    /// ([`StoreError::AuditTampered`]) when the table no longer holds the
    /// record the head anchor names.
    pub fn append_audit(&self, record: &AuditRecord, at_ms: u64) -> StoreResult<AuditEntry> {
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let appended = self.append_in(&tx, record, at_ms)?;
        tx.commit()?;
        self.anchor_after_commit(&mut conn, &appended.anchor)?;
        Ok(appended.entry)
    }

    /// Insert a record inside the caller's IMMEDIATE transaction. After the
    /// commit, call [`Store::anchor_after_commit`] with the returned anchor.
    pub(crate) fn append_in(
        &self,
        tx: &Transaction<'_>,
        record: &AuditRecord,
        at_ms: u64,
    ) -> StoreResult<Appended> {
        let at_ms = sql_i64(at_ms);
        let at = format_at(at_ms).map_err(|_| StoreError::BadTime(at_ms))?;
        let head = head(tx)?;
        let base = self.anchor_for_append(tx, &head)?;
        let seq = head.seq + 1;
        let hash = record_hash(&head.hash, seq, &at, record);
        tx.execute(
            &format!("INSERT INTO audit ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, NULL)"),
            params![
                sql_i64(seq),
                at_ms,
                record.session_id,
                record.actor,
                record.tool,
                record.target,
                record.decision,
                record.code,
                record.command,
                record.reason,
                sql_i64(record.duration_ms),
                head.hash,
                hash,
            ],
        )?;
        Ok(Appended {
            anchor: AuditAnchor {
                records: base.records + (seq - base.head_seq),
                head_seq: seq,
                head_hash: hash.clone(),
            },
            entry: AuditEntry {
                seq,
                at,
                record: record.clone(),
                prev_hash: head.hash,
                hash,
                legacy_record: None,
            },
        })
    }

    /// The anchor a new record builds on, after checking that the table
    /// still holds what the file and memory anchors name and that any
    /// records after the file's anchor chain from it.
    fn anchor_for_append(&self, tx: &Transaction<'_>, head: &Head) -> StoreResult<AuditAnchor> {
        let memory = self.anchors.memory()?;
        let (source, base) = match self.anchors.read_file() {
            AnchorFile::NotKept => (
                AnchorSource::Memory,
                memory.clone().unwrap_or_else(AuditAnchor::empty),
            ),
            AnchorFile::Missing { path } if head.seq == 0 => {
                (AnchorSource::File(path), AuditAnchor::empty())
            }
            AnchorFile::Missing { path } => {
                let records: i64 = tx.query_row("SELECT count(*) FROM audit", [], |r| r.get(0))?;
                return Err(refuse(AuditProblem::AnchorMissing {
                    anchor: AnchorSource::File(path),
                    records: u64::try_from(records).unwrap_or(0),
                }));
            }
            AnchorFile::Unreadable { path, error } => {
                return Err(refuse(AuditProblem::AnchorUnreadable {
                    anchor: AnchorSource::File(path),
                    error,
                }));
            }
            AnchorFile::Present { path, anchor } => (AnchorSource::File(path), anchor),
        };
        check_against(tx, &source, &base, head)?;
        if let (AnchorSource::File(_), Some(memory)) = (&source, &memory) {
            if memory.head_seq > base.head_seq {
                return Err(refuse(AuditProblem::AnchorRegressed {
                    file_seq: base.head_seq,
                    memory_seq: memory.head_seq,
                }));
            }
            check_against(tx, &AnchorSource::Memory, memory, head)?;
        }
        // Records a writer committed but did not anchor must chain from the anchor.
        let mut walk = ChainWalk::after(base.head_seq, &base.head_hash, &[]);
        let mut statement = tx.prepare(&format!(
            "SELECT {COLUMNS} FROM audit WHERE seq > ?1 ORDER BY seq"
        ))?;
        let mut rows = statement.query(params![sql_i64(base.head_seq)])?;
        while let Some(row) = rows.next()? {
            match read_row(row)? {
                Ok(entry) => walk.step(&entry),
                Err((seq, error)) => walk.unreadable(seq, error),
            }
            if walk.problem().is_some() {
                break;
            }
        }
        match walk.problem() {
            Some(problem) => Err(refuse(problem.clone())),
            None if walk.last_seq() != head.seq => Err(refuse(AuditProblem::Missing {
                first: walk.last_seq() + 1,
                last: head.seq,
            })),
            None => Ok(base),
        }
    }

    /// After a commit: move the anchor file (and memory) up to `anchor`,
    /// under the write lock so that concurrent writers never move it back.
    pub(crate) fn anchor_after_commit(
        &self,
        conn: &mut Connection,
        anchor: &AuditAnchor,
    ) -> StoreResult<()> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let written = self.anchors.advance_file(anchor);
        tx.rollback()?;
        match written {
            Ok(()) => self.anchors.remember(anchor),
            Err(StoreError::Anchor { path, reason }) => Err(StoreError::Anchor {
                path,
                reason: format!(
                    "record {} was saved but the anchor was not updated: {reason}",
                    anchor.head_seq
                ),
            }),
            Err(other) => Err(other),
        }
    }

    /// Check every record, then the anchors. Records after the anchor that
    /// chain from it (a writer stopped before updating it) are reported as
    /// `anchor_lag` and the anchor is moved up to them.
    pub fn verify_audit(&self) -> StoreResult<AuditVerification> {
        // Anchors first: a record is committed before it is anchored, so
        // the snapshot read next holds every record they name.
        let checks = checks_for(self.anchors.read_file(), self.anchors.memory()?);
        let marks: Vec<u64> = checks
            .iter()
            .filter_map(|check| match check {
                AnchorCheck::Against(_, anchor) => Some(anchor.head_seq),
                _ => None,
            })
            .collect();
        let mut conn = self.conn()?;
        let walk = {
            let tx = conn.transaction()?;
            let mut walk = ChainWalk::from_start(&marks);
            let mut statement = tx.prepare(&format!("SELECT {COLUMNS} FROM audit ORDER BY seq"))?;
            let mut rows = statement.query([])?;
            while let Some(row) = rows.next()? {
                match read_row(row)? {
                    Ok(entry) => walk.step(&entry),
                    Err((seq, error)) => walk.unreadable(seq, error),
                }
            }
            walk
        };
        let report = walk.finish(&checks);
        if report.intact && report.anchor_lag > 0 {
            // Best effort: the report stands either way, and the next
            // verification or append tries again.
            let _ = self.anchor_after_commit(
                &mut conn,
                &AuditAnchor {
                    records: report.records,
                    head_seq: report.head_seq,
                    head_hash: report.head_hash.clone(),
                },
            );
        }
        Ok(report)
    }

    /// Up to `limit` records after `after`, oldest first (`GET /api/audit`).
    pub fn audit_page(&self, after: u64, limit: usize) -> StoreResult<Vec<AuditEntry>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM audit WHERE seq > ?1 ORDER BY seq LIMIT ?2"
        ))?;
        let rows = statement.query_map(
            params![sql_i64(after), i64::try_from(limit).unwrap_or(i64::MAX)],
            read_row,
        )?;
        collect_entries(rows)
    }

    /// The last `n` records, oldest first.
    pub fn audit_tail(&self, n: usize) -> StoreResult<Vec<AuditEntry>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM audit ORDER BY seq DESC LIMIT ?1"
        ))?;
        let rows = statement.query_map(params![i64::try_from(n).unwrap_or(i64::MAX)], read_row)?;
        let mut entries = collect_entries(rows)?;
        entries.reverse();
        Ok(entries)
    }

    /// Accept the log as it is now: anchor it at its newest record, and
    /// audit that (`actor`, `reason`, and the anchor that was replaced).
    /// For a database moved or restored on purpose, after `verify_audit`
    /// explained why it no longer matches. Other processes with the old
    /// anchor in memory keep refusing until restarted.
    pub fn reanchor_audit(
        &self,
        actor: &str,
        reason: &str,
        now_ms: u64,
    ) -> StoreResult<AuditEntry> {
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let head = head(&tx)?;
        let records: i64 = tx.query_row("SELECT count(*) FROM audit", [], |r| r.get(0))?;
        let replaced = match self.anchors.read_file() {
            AnchorFile::NotKept => "a memory-only anchor".to_string(),
            AnchorFile::Missing { .. } => "no anchor file".to_string(),
            AnchorFile::Unreadable { error, .. } => format!("an unreadable anchor file ({error})"),
            AnchorFile::Present { anchor, .. } => format!(
                "an anchor naming {} records up to record {} ({})",
                anchor.records, anchor.head_seq, anchor.head_hash
            ),
        };
        let anchor = AuditAnchor {
            records: u64::try_from(records).unwrap_or(0),
            head_seq: head.seq,
            head_hash: head.hash,
        };
        self.anchors.replace_file(&anchor)?;
        self.anchors.reset_memory(&anchor)?;
        let record = AuditRecord {
            session_id: String::new(),
            actor: actor.to_string(),
            tool: "audit".into(),
            target: None,
            decision: "anchor_reset".into(),
            code: None,
            command: "warden audit reanchor".into(),
            reason: Some(format!("{reason} (replaced {replaced})")),
            duration_ms: 0,
        };
        let appended = self.append_in(&tx, &record, now_ms)?;
        tx.commit()?;
        self.anchor_after_commit(&mut conn, &appended.anchor)?;
        Ok(appended.entry)
    }
}

fn collect_entries(
    rows: impl Iterator<Item = rusqlite::Result<Result<AuditEntry, (u64, String)>>>,
) -> StoreResult<Vec<AuditEntry>> {
    rows.map(|row| {
        row?.map_err(|(seq, error)| StoreError::Corrupt(format!("audit record {seq}: {error}")))
    })
    .collect()
}
