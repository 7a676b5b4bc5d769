//! The model seam. A [`Provider`] turns the conversation into a reply (text,
//! tool calls, or both), streaming text as it arrives. The agentic loop in
//! `warden-core` only ever talks to this trait; the model *proposes* tool
//! calls and never runs anything itself.
//!
//! - [`types`]: messages, tool specs, replies, usage, stream deltas;
//! - [`provider`]: the [`Provider`] trait and [`ProviderError`];
//! - [`scripted`]: a provider that plays a fixed script (replay, tests).
#![forbid(unsafe_code)]

pub mod provider;
pub mod scripted;
pub mod types;

pub use provider::{Provider, ProviderError};
pub use scripted::ScriptedProvider;
pub use types::{
    Delta, Message, ModelReply, ModelRequest, ProposedToolCall, ToolOffer, ToolSpec, Usage,
};
