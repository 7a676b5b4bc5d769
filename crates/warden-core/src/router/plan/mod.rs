//! Planning: an intent and the inventory → a [`Plan`] of tool calls.

mod build;
mod guests;
pub mod resolve;

pub use build::{Call, Plan, Step, args, build, plan, refusal};
