//! The crate's errors.

use std::path::PathBuf;

/// A `[history] retention` table that cannot be used; the message names
/// the offending entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RetentionError {
    #[error("history retention: no tier given")]
    Empty,
    #[error("history retention: at most {max} tiers")]
    TooManyTiers { max: usize },
    #[error(
        "history retention: {text:?} is not a duration (a whole positive number and one of s, m, h, d, w, y: \"10s\", \"24h\", \"2y\")"
    )]
    BadDuration { text: String },
    #[error("history retention: the tier {tier} is given twice")]
    DuplicateTier { tier: String },
    #[error("history retention: tier {tier} must be whole seconds, at least 1s")]
    Resolution { tier: String },
    #[error("history retention: tier {tier} is not a multiple of {finest}, the finest tier")]
    NotMultiple { tier: String, finest: String },
    #[error("history retention: tier {tier} is kept for less than one of its own steps")]
    KeptShorterThanTier { tier: String },
    #[error("history retention: tier {coarser} is kept shorter than {finer}, a finer tier")]
    CoarserKeptShorter { coarser: String, finer: String },
    #[error("history retention: the tiers {tiers:?} do not nest (no common block span)")]
    NoWindow { tiers: Vec<String> },
}

/// What the store can fail with. A corrupt block or journal batch is not
/// an error: it is skipped and counted in [`crate::Health`].
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("history database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("history database {path}: {source}")]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no history kept for {resource} {metric} {instance:?}")]
    UnknownSeries {
        resource: String,
        metric: &'static str,
        instance: String,
    },
    #[error("history query: {0}")]
    BadQuery(String),
    #[error("history: the store's lock was poisoned by a panic")]
    Poisoned,
}
