//! Answers from tool results, in plain words.

pub mod explain;
pub(super) mod metrics;
mod result;
pub(super) mod snapshot_list;
pub(super) mod updates;

pub use result::{Res, block, bytes, clip_lines, failure, named, not_done, utc_parts, utc_time};
