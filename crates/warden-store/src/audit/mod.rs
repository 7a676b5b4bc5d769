//! The tamper-evident audit log: hash-chained records ([`record`]), a head
//! anchor outside the table ([`anchor`]), verification ([`verify`]), the
//! store's appends and reads ([`log`]) and JSONL export ([`export`]).
//!
//! What happens when the table and the anchor disagree:
//! - records after the anchored one that chain from it: a writer died
//!   between its commit and the anchor update; verification reports the lag
//!   and moves the anchor up, appends carry on;
//! - anything else (the anchored record gone or different, the anchor file
//!   missing while the table has records, the file older than this
//!   process's memory): verification reports it and appends are refused
//!   (`StoreError::AuditTampered`) until an operator runs
//!   `warden audit reanchor`, which is itself audited. A missing anchor is
//!   never silently re-created, except for a database with no records and
//!   once when a pre-version-3 database is upgraded.

mod anchor;
mod export;
mod log;
mod record;
mod verify;

use rusqlite::Transaction;

pub(crate) use anchor::Anchors;
pub use anchor::{AnchorFile, AuditAnchor, anchor_path};
pub use export::{ExportSummary, verify_audit_export};
pub use record::{AuditEntry, GENESIS_HASH, format_at};
pub use verify::{AnchorSource, AuditProblem, AuditVerification};

use crate::StoreResult;

/// At open, inside the migration's write transaction: give a database with
/// no anchor file one when nothing can have been lost yet (no records), or
/// when it is being upgraded from before anchors existed (`found_version`
/// below 3). Otherwise a missing anchor stays missing, and reported.
pub(crate) fn adopt_anchor(
    tx: &Transaction<'_>,
    anchors: &Anchors,
    found_version: u32,
) -> StoreResult<()> {
    if !matches!(anchors.read_file(), AnchorFile::Missing { .. }) {
        return Ok(());
    }
    let records: i64 = tx.query_row("SELECT count(*) FROM audit", [], |r| r.get(0))?;
    if records > 0 && found_version >= 3 {
        return Ok(());
    }
    let head = log::head(tx)?;
    anchors.replace_file(&AuditAnchor {
        records: u64::try_from(records).unwrap_or(0),
        head_seq: head.seq,
        head_hash: head.hash,
    })
}

impl Anchors {
    /// Start the memory copy from the file.
    pub(crate) fn load_memory(&self) -> StoreResult<()> {
        if let AnchorFile::Present { anchor, .. } = self.read_file() {
            self.remember(&anchor)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod legacy_tests;
