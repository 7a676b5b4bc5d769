//! JSONL export and its offline check. The first line is a header naming
//! the head anchor the log had when exported:
//!
//! `{"format":"warden-audit-export","version":1,"anchor":{"records":N,"head_seq":S,"head_hash":H}}`
//!
//! (`"anchor": null` when the database had no readable anchor). Every other
//! line is one record as `GET /api/audit` serves it, plus `prev_hash` (and
//! `legacy_record` for pre-version-3 records), oldest first. The header
//! comes first so that a cut-off export is caught like a truncated table:
//! the anchor names a record the file no longer has.

use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

use super::anchor::{AnchorFile, AuditAnchor};
use super::log::{COLUMNS, read_row};
use super::record::AuditEntry;
use super::verify::{AnchorCheck, AnchorSource, AuditProblem, AuditVerification, ChainWalk};
use crate::{Store, StoreError, StoreResult};

const FORMAT: &str = "warden-audit-export";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportHeader {
    format: String,
    version: u32,
    anchor: Option<AuditAnchor>,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSummary {
    pub records: u64,
    pub anchor: Option<AuditAnchor>,
}

impl Store {
    /// Write the whole log as JSONL (header, then one record per line).
    pub fn export_audit(&self, out: &mut dyn Write) -> StoreResult<ExportSummary> {
        // Read before the snapshot, as verification does: every record the
        // anchor names is then in it.
        let anchor = match self.anchors.read_file() {
            AnchorFile::Present { anchor, .. } => Some(anchor),
            AnchorFile::NotKept => self.anchors.memory()?,
            AnchorFile::Missing { .. } | AnchorFile::Unreadable { .. } => None,
        };
        let header = ExportHeader {
            format: FORMAT.into(),
            version: 1,
            anchor: anchor.clone(),
        };
        write_line(out, &header)?;
        let mut conn = self.conn()?;
        let tx = conn.transaction()?;
        let mut statement = tx.prepare(&format!("SELECT {COLUMNS} FROM audit ORDER BY seq"))?;
        let mut rows = statement.query([])?;
        let mut records = 0;
        while let Some(row) = rows.next()? {
            let entry = read_row(row)?.map_err(|(seq, error)| {
                StoreError::Corrupt(format!("audit record {seq}: {error}"))
            })?;
            write_line(out, &entry)?;
            records += 1;
        }
        out.flush().map_err(StoreError::Export)?;
        Ok(ExportSummary { records, anchor })
    }
}

fn write_line(out: &mut dyn Write, value: &impl Serialize) -> StoreResult<()> {
    let text = serde_json::to_string(value).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    writeln!(out, "{text}").map_err(StoreError::Export)
}

/// Check an export offline, as `verify_audit` checks the database: every
/// record, then the header's anchor.
pub fn verify_audit_export(input: impl BufRead) -> AuditVerification {
    let mut lines = input.lines().enumerate();
    let header = match lines.next() {
        None => Err((1, "the export is empty: no header line".to_string())),
        Some((_, Err(error))) => Err((1, error.to_string())),
        Some((_, Ok(text))) => match serde_json::from_str::<ExportHeader>(&text) {
            Ok(header) if header.format == FORMAT && header.version == 1 => Ok(header),
            Ok(header) => Err((
                1,
                format!(
                    "unknown export format `{}` version {}",
                    header.format, header.version
                ),
            )),
            Err(error) => Err((1, format!("not an audit export header: {error}"))),
        },
    };
    let header = match header {
        Ok(header) => header,
        Err((line, error)) => {
            let mut walk = ChainWalk::from_start(&[]);
            walk.fail(AuditProblem::BadExport { line, error });
            return walk.finish(&[]);
        }
    };
    let checks = match header.anchor {
        Some(anchor) => vec![AnchorCheck::Against(AnchorSource::Export, anchor)],
        None => vec![AnchorCheck::Missing(AnchorSource::Export)],
    };
    let marks: Vec<u64> = checks
        .iter()
        .filter_map(|check| match check {
            AnchorCheck::Against(_, anchor) => Some(anchor.head_seq),
            _ => None,
        })
        .collect();
    let mut walk = ChainWalk::from_start(&marks);
    for (index, line) in lines {
        let parsed = line.map_err(|e| e.to_string()).and_then(|text| {
            if text.trim().is_empty() {
                return Ok(None);
            }
            let value: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let entry: AuditEntry =
                serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
            Ok(Some((entry, value)))
        });
        match parsed {
            Ok(Some((entry, value))) => {
                walk.step(&entry);
                // Fields the hash does not cover (added, or written other
                // than Warden writes them) are an edit too.
                if serde_json::to_value(&entry).ok().as_ref() != Some(&value) {
                    walk.fail(AuditProblem::Altered { seq: entry.seq });
                }
            }
            Ok(None) => {}
            Err(error) => walk.fail(AuditProblem::BadExport {
                line: index + 1,
                error,
            }),
        }
    }
    walk.finish(&checks)
}
