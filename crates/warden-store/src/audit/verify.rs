//! Checking a chain of records, from the database or from an export: every
//! record's hash, its link to the one before, sequence numbers without gaps,
//! then the records the head anchors name. The first problem found is the
//! one reported, with the sequence number where the log stops being
//! trustworthy.

use std::fmt;
use std::path::PathBuf;

use serde::{Serialize, Serializer};

use super::anchor::AuditAnchor;
use super::record::{AuditEntry, EntryFault, GENESIS_HASH};

/// Which head anchor a problem is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnchorSource {
    /// The 0600 file beside the database.
    File(PathBuf),
    /// The copy this process keeps in memory.
    Memory,
    /// The header line of an export.
    Export,
}

impl fmt::Display for AnchorSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnchorSource::File(path) => write!(f, "the head anchor file {}", path.display()),
            AnchorSource::Memory => f.write_str("this process's head anchor"),
            AnchorSource::Export => f.write_str("the export's head anchor"),
        }
    }
}

/// Why the audit log cannot be trusted from some record on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuditProblem {
    #[error("{}", missing_text(*first, *last))]
    Missing { first: u64, last: u64 },
    #[error("record {seq} comes after record {after}: records are out of order")]
    OutOfOrder { seq: u64, after: u64 },
    #[error("record {seq} was altered: its hash does not match its contents")]
    Altered { seq: u64 },
    #[error(
        "record {seq} does not follow record {}: its prev_hash is not that record's hash (a record was changed, inserted or reordered)",
        seq.saturating_sub(1)
    )]
    BrokenLink { seq: u64 },
    #[error("record {seq} claims the pre-version-3 format after newer records: it was rewritten")]
    LegacyAfterCurrent { seq: u64 },
    #[error("record {seq} is unreadable: {error}")]
    Unreadable { seq: u64, error: String },
    #[error(
        "the audit log is empty but {anchor} names {records} records up to record {head_seq}: the log was emptied or the database re-created"
    )]
    Emptied {
        anchor: AnchorSource,
        records: u64,
        head_seq: u64,
    },
    #[error(
        "the audit log ends at record {last_seq} but {anchor} names record {head_seq}: the newest {} records were deleted",
        head_seq - last_seq
    )]
    Truncated {
        anchor: AnchorSource,
        last_seq: u64,
        head_seq: u64,
    },
    #[error(
        "record {seq} is not the record {anchor} names (hash {expected}): the log was rewritten or the database re-created"
    )]
    Diverged {
        anchor: AnchorSource,
        seq: u64,
        expected: String,
    },
    #[error("{anchor} counts {expected} records up to record {seq} but the log has {found}")]
    CountMismatch {
        anchor: AnchorSource,
        seq: u64,
        expected: u64,
        found: u64,
    },
    #[error(
        "{anchor} is missing but the log has {records} records: deleting the newest records or re-creating the database cannot be ruled out (if the database was moved or restored on purpose, run `warden audit reanchor`)"
    )]
    AnchorMissing { anchor: AnchorSource, records: u64 },
    #[error("{anchor} is unreadable: {error}")]
    AnchorUnreadable { anchor: AnchorSource, error: String },
    #[error(
        "the head anchor file names record {file_seq} but this process already anchored record {memory_seq}: the file was replaced with an older one"
    )]
    AnchorRegressed { file_seq: u64, memory_seq: u64 },
    #[error("line {line} of the export: {error}")]
    BadExport { line: usize, error: String },
}

fn missing_text(first: u64, last: u64) -> String {
    if first == last {
        format!("record {first} is missing (a gap in the sequence numbers)")
    } else {
        format!("records {first} to {last} are missing (a gap in the sequence numbers)")
    }
}

impl AuditProblem {
    /// The first record that cannot be trusted, when one can be named.
    pub fn at_seq(&self) -> Option<u64> {
        match self {
            AuditProblem::Missing { first, .. } => Some(*first),
            AuditProblem::OutOfOrder { seq, .. }
            | AuditProblem::Altered { seq }
            | AuditProblem::BrokenLink { seq }
            | AuditProblem::LegacyAfterCurrent { seq }
            | AuditProblem::Unreadable { seq, .. }
            | AuditProblem::Diverged { seq, .. } => Some(*seq),
            AuditProblem::Emptied { .. } => Some(1),
            AuditProblem::Truncated { last_seq, .. } => Some(last_seq + 1),
            AuditProblem::CountMismatch { .. }
            | AuditProblem::AnchorMissing { .. }
            | AuditProblem::AnchorUnreadable { .. }
            | AuditProblem::AnchorRegressed { .. }
            | AuditProblem::BadExport { .. } => None,
        }
    }
}

/// The answer of `warden audit verify` and `GET /api/audit/verify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditVerification {
    pub intact: bool,
    /// Records in the log (or the export).
    pub records: u64,
    /// The hash of the newest record (the genesis hash when empty).
    pub head_hash: String,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "problem_text"
    )]
    pub problem: Option<AuditProblem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_seq: Option<u64>,
    /// The sequence number of the newest record.
    pub head_seq: u64,
    /// Records after the one the anchor names, chaining from it: a writer
    /// stopped between its commit and the anchor update (the anchor was
    /// moved up to them).
    #[serde(skip_serializing_if = "is_zero")]
    pub anchor_lag: u64,
    /// Records written before schema version 3, whose hashes cover neither
    /// their sequence number nor their time.
    #[serde(skip_serializing_if = "is_zero")]
    pub legacy_records: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn problem_text<S: Serializer>(
    problem: &Option<AuditProblem>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match problem {
        Some(problem) => serializer.serialize_str(&problem.to_string()),
        None => serializer.serialize_none(),
    }
}

/// What to compare the walked chain with, in order.
pub(crate) enum AnchorCheck {
    /// The record the anchor names must be there, with its hash and count.
    Against(AnchorSource, AuditAnchor),
    /// No anchor: a problem only when there are records.
    Missing(AnchorSource),
    Unreadable(AnchorSource, String),
    /// The file must not name an older record than memory does.
    NotBehind {
        file_seq: u64,
        memory_seq: u64,
    },
}

/// Walks records in sequence order, keeping the first problem.
pub(crate) struct ChainWalk {
    prev_hash: String,
    last_seq: u64,
    records: u64,
    legacy: u64,
    current_seen: bool,
    problem: Option<AuditProblem>,
    /// Sequence numbers anchors name → the hash there and the records up to it.
    marks: Vec<(u64, Option<(String, u64)>)>,
}

impl ChainWalk {
    /// A walk from the start of the log, remembering the records at `marks`.
    pub(crate) fn from_start(marks: &[u64]) -> ChainWalk {
        ChainWalk::after(0, GENESIS_HASH, marks)
    }

    /// A walk of the records after `seq` (whose hash is `hash`).
    pub(crate) fn after(seq: u64, hash: &str, marks: &[u64]) -> ChainWalk {
        ChainWalk {
            prev_hash: hash.to_string(),
            last_seq: seq,
            records: 0,
            legacy: 0,
            current_seen: false,
            problem: None,
            marks: marks.iter().map(|&m| (m, None)).collect(),
        }
    }

    pub(crate) fn problem(&self) -> Option<&AuditProblem> {
        self.problem.as_ref()
    }

    pub(crate) fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Stop checking: something outside the records themselves is wrong.
    pub(crate) fn fail(&mut self, problem: AuditProblem) {
        self.problem.get_or_insert(problem);
    }

    /// A record that could not even be read.
    pub(crate) fn unreadable(&mut self, seq: u64, error: String) {
        self.records += 1;
        self.fail(AuditProblem::Unreadable { seq, error });
        self.last_seq = self.last_seq.max(seq);
    }

    pub(crate) fn step(&mut self, entry: &AuditEntry) {
        self.records += 1;
        if self.problem.is_none() {
            self.problem = self.check(entry);
        }
        if entry.legacy_record.is_some() {
            self.legacy += 1;
        } else {
            self.current_seen = true;
        }
        for (seq, mark) in &mut self.marks {
            if *seq == entry.seq {
                *mark = Some((entry.hash.clone(), self.records));
            }
        }
        self.last_seq = self.last_seq.max(entry.seq);
        self.prev_hash = entry.hash.clone();
    }

    fn check(&self, entry: &AuditEntry) -> Option<AuditProblem> {
        let expected_seq = self.last_seq + 1;
        if entry.seq < expected_seq {
            return Some(AuditProblem::OutOfOrder {
                seq: entry.seq,
                after: self.last_seq,
            });
        }
        if entry.seq > expected_seq {
            return Some(AuditProblem::Missing {
                first: expected_seq,
                last: entry.seq - 1,
            });
        }
        if entry.legacy_record.is_some() && self.current_seen {
            return Some(AuditProblem::LegacyAfterCurrent { seq: entry.seq });
        }
        match entry.check() {
            Ok(()) => {}
            Err(EntryFault::HashMismatch | EntryFault::LegacyFieldsDiffer) => {
                return Some(AuditProblem::Altered { seq: entry.seq });
            }
            Err(EntryFault::LegacyUnreadable(error)) => {
                return Some(AuditProblem::Unreadable {
                    seq: entry.seq,
                    error,
                });
            }
        }
        if entry.prev_hash != self.prev_hash {
            return Some(AuditProblem::BrokenLink { seq: entry.seq });
        }
        None
    }

    fn check_anchor(&self, check: &AnchorCheck) -> Option<AuditProblem> {
        match check {
            AnchorCheck::Against(source, anchor) => self.compare(source, anchor),
            AnchorCheck::Missing(source) => {
                (self.records > 0).then(|| AuditProblem::AnchorMissing {
                    anchor: source.clone(),
                    records: self.records,
                })
            }
            AnchorCheck::Unreadable(source, error) => Some(AuditProblem::AnchorUnreadable {
                anchor: source.clone(),
                error: error.clone(),
            }),
            AnchorCheck::NotBehind {
                file_seq,
                memory_seq,
            } => (file_seq < memory_seq).then_some(AuditProblem::AnchorRegressed {
                file_seq: *file_seq,
                memory_seq: *memory_seq,
            }),
        }
    }

    fn compare(&self, source: &AnchorSource, anchor: &AuditAnchor) -> Option<AuditProblem> {
        let count_mismatch = |found: u64| AuditProblem::CountMismatch {
            anchor: source.clone(),
            seq: anchor.head_seq,
            expected: anchor.records,
            found,
        };
        if anchor.head_seq == 0 {
            return (anchor.records != 0).then(|| count_mismatch(0));
        }
        if self.last_seq < anchor.head_seq {
            return Some(if self.records == 0 {
                AuditProblem::Emptied {
                    anchor: source.clone(),
                    records: anchor.records,
                    head_seq: anchor.head_seq,
                }
            } else {
                AuditProblem::Truncated {
                    anchor: source.clone(),
                    last_seq: self.last_seq,
                    head_seq: anchor.head_seq,
                }
            });
        }
        let found = self
            .marks
            .iter()
            .find(|(seq, _)| *seq == anchor.head_seq)
            .and_then(|(_, mark)| mark.clone());
        match found {
            Some((hash, _)) if hash != anchor.head_hash => Some(AuditProblem::Diverged {
                anchor: source.clone(),
                seq: anchor.head_seq,
                expected: anchor.head_hash.clone(),
            }),
            Some((_, records)) if records != anchor.records => Some(count_mismatch(records)),
            Some(_) => None,
            None => Some(AuditProblem::Diverged {
                anchor: source.clone(),
                seq: anchor.head_seq,
                expected: anchor.head_hash.clone(),
            }),
        }
    }

    /// The report: the first problem in the records, else the first anchor
    /// check that fails.
    pub(crate) fn finish(self, checks: &[AnchorCheck]) -> AuditVerification {
        let problem = self
            .problem
            .clone()
            .or_else(|| checks.iter().find_map(|check| self.check_anchor(check)));
        let anchored_seq = checks.iter().find_map(|check| match check {
            AnchorCheck::Against(_, anchor) => Some(anchor.head_seq),
            _ => None,
        });
        let anchor_lag = match (&problem, anchored_seq) {
            (None, Some(seq)) => self.last_seq.saturating_sub(seq),
            _ => 0,
        };
        let head_hash = if self.records == 0 {
            GENESIS_HASH.to_string()
        } else {
            self.prev_hash.clone()
        };
        AuditVerification {
            intact: problem.is_none(),
            records: self.records,
            head_hash,
            at_seq: problem.as_ref().and_then(AuditProblem::at_seq),
            problem,
            head_seq: self.last_seq,
            anchor_lag,
            legacy_records: self.legacy,
        }
    }
}
