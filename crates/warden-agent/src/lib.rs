//! `warden agent`: the host agent.
#![forbid(unsafe_code)]

pub mod backoff;
pub mod container_kill;
pub mod environment;
pub mod exec;
pub mod identity;
pub mod inventory;
pub mod nonces;
pub mod output_cap;
pub mod policy;
pub mod private_files;
pub mod proxmox;
pub mod routing;
pub mod sandbox;
pub mod server_url;
pub mod tls;
