//! Stage 3, carrying a plan out: one [`Step`](crate::router::Step) at a
//! time, each from the results of the calls the step before proposed.
//!
//! - `steps`: [`next_step`] of a plan, and [`Progress`] through its parts.
//! - `observe`: read routes: metrics, status, services and containers.
//! - `logs`: the system log, a service's journal (or its log files), a
//!   container's log.
//! - `errors`: the errors on a host in a window.
//! - `exit`: why a container or a systemd unit exited.
//! - `facts`: one command per host fact (processes, ports, sessions,
//!   kernel, updates, failed units).
//! - `certificate`: a TLS certificate's expiry, seen from a host.
//! - `guests`: Proxmox reads: a guest's status, inventory lists, history,
//!   snapshots.
//! - `write_route`: the shape of every change: discover, check, write
//!   (with approval), verify, answer from the verification.
//! - `act`: changes to services, containers and notes; plain command runs.
//! - `guest_writes`: changes to Proxmox guests: power, snapshot, rollback.
//! - `systemd`: command parts that ask systemd (is it running, unit names).

mod act;
mod certificate;
mod errors;
mod exit;
mod facts;
mod guest_writes;
mod guests;
mod logs;
mod observe;
mod steps;
mod systemd;
mod write_route;

pub use steps::{Progress, next_step};
