//! Carrying a plan out, step by step.

pub(super) mod act;
pub(super) mod certificate;
pub(super) mod errors;
mod exit;
pub(super) mod facts;
mod guest_writes;
mod guests;
pub(super) mod logs;
mod observe;
mod steps;
mod write_route;

pub use steps::{Progress, next_step};
