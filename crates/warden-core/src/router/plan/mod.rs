//! Stage 2, planning: an [`Intent`](crate::router::Intent) and the
//! inventory → a [`Plan`] (which resources, which route), or what to say
//! when a name does not resolve.
//!
//! - `resolved`: [`Plan`], one variant per route, with its targets.
//! - `build`: the plan for each intent ([`plan()`], [`build()`], [`refusal`]).
//! - `resolve`: names → resources or services on a host, and what a host
//!   reported about itself (services, systemd, log files).
//! - `writes`: the plans of changes, and the changes refused outright.
//! - `guests`: Proxmox history series, and a snapshot's name.
//! - `call`: what a route proposes: a [`Call`], a [`Step`], [`args`].

mod build;
mod call;
mod guests;
pub mod resolve;
mod resolved;
mod writes;

pub use build::{build, plan, refusal};
pub use call::{Call, Step, args};
pub use resolved::Plan;
