//! The model seam lives in `warden-llm`; re-exported here so the loop's
//! callers name one place.

pub use warden_llm::{
    Delta, Message, ModelReply, ModelRequest, ProposedToolCall, Provider, ProviderError,
    ScriptedProvider, ToolOffer, ToolSpec, Usage,
};
