//! Warden's backends: where inventory comes from and where commands run.
//!
//! - [`runner`]: the one command runner ([`runner::run`]): clean
//!   environment, own process group, head-and-tail output caps, timeout,
//!   cancellation that kills the whole tree (inside containers too), the
//!   registry and watchdog so that no command outlives Warden; used by this
//!   machine and by the agent;
//! - [`confinement`]: Warden's protected paths and processes, how commands
//!   are kept from them here (a mount namespace per command, or the policy
//!   alone) and the policy's refusal of commands that name them;
//! - [`local_exec`]: [`LocalExecutor`] runs one shell command on this machine,
//!   bounded in time and output, in a clean environment, killable as a group;
//!   [`terminate_all`] stops every command still running (shutdown);
//! - [`docker`]: [`DockerClient`], the read-only Docker Engine API client
//!   (bollard, over the engine's unix socket; async);
//! - [`blocking`]: async work (Docker requests, commands) from synchronous
//!   code, sound from any thread;
//! - [`local_inventory`]: [`LocalInventory`] reports this machine (and its
//!   Docker containers) as Warden resources, for Warden itself and for its
//!   agents;
//! - [`metrics`]: this machine's and its containers' metrics
//!   (spec/patrol.md), sampled from `/proc`, `/sys`, control groups and the
//!   engine's statistics, as agents send them;
//! - [`proxmox`]: the Proxmox VE connector (API client, inventory, tasks,
//!   guest control, snapshots, history, storage);
//! - [`private_files`]: files only Warden may read (0600 in a 0700
//!   directory), replaced atomically;
//! - [`tls`]: the client-side TLS shared by every outbound connection
//!   (pinned fingerprints, CA files, why a handshake failed).
#![forbid(unsafe_code)]

pub mod blocking;
pub mod confinement;
pub mod docker;
pub mod local_exec;
pub mod local_inventory;
pub mod metrics;
pub mod private_files;
pub mod proxmox;
pub mod runner;
pub mod tls;
pub mod utf8_edges;

pub use docker::{ContainerSummary, DockerClient, DockerError};
pub use local_exec::{CommandOutput, ExecError, ExecOptions, LocalExecutor, PartialOutput};
pub use local_inventory::{DockerDiscovery, InventoryOptions, LocalInventory};
pub use runner::{start_watchdog, terminate_all};

#[cfg(test)]
mod tests {
    /// The binary shares these between threads (one per request).
    #[test]
    fn backends_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<crate::LocalExecutor>();
        assert_send_sync::<crate::LocalInventory>();
        assert_send_sync::<crate::DockerClient>();
    }
}
