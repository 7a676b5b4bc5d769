//! `warden agent`: the host agent.
#![forbid(unsafe_code)]

pub mod sandbox;
pub mod backoff;
pub mod output_cap;
pub mod policy;
