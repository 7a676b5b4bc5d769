//! `warden agent`: the host agent (DESIGN "Agents", `spec/agent.md`).
//!
//! An agent enrolls once with a one-time token ([`enroll`]), then keeps an
//! outbound WebSocket to the server ([`agent::run`]): it reports what it
//! reaches ([`inventory`]) and runs the commands the server sends, but
//! decides for itself ([`policy`]): reads only when its own `warden-policy`
//! says read-only, under a Landlock sandbox ([`sandbox`]); writes only with
//! a server-signed grant bound to this agent, the request, the exact
//! command, the target and a deadline, single-use ([`nonces`]), and never
//! above its `--max-level`. Every refusal is logged ([`event_log`]).
//!
//! Module map:
//! - connection life: [`agent`] (reconnect loop), [`connection`] (TLS,
//!   upgrade, challenge), [`session`] (one connection), [`backoff`],
//!   [`shutdown`];
//! - commands: [`dispatch`] (admit or refuse, track), [`routing`] (target →
//!   command line, decided by `warden_protocol::routing`), [`exec`] (run
//!   through `warden_infra::runner`, stream, cancel), [`sandbox`];
//! - identity and trust: [`identity`], [`enroll`], [`server_url`], [`tls`],
//!   [`names`], [`private_files`];
//! - discovery: [`inventory`], [`proxmox`];
//! - measurement: [`metrics`] (`metrics` frames every interval).
#![forbid(unsafe_code)]

pub mod agent;
pub mod backoff;
pub mod connection;
pub mod dispatch;
pub mod enroll;
pub mod event_log;
pub mod exec;
pub mod identity;
pub mod inventory;
pub mod metrics;
pub mod names;
pub mod nonces;
pub mod policy;
/// Files only the agent may read (0600 in a 0700 directory, replaced atomically).
pub use warden_infra::private_files;
pub mod proxmox;
pub mod routing;
pub mod sandbox;
pub mod server_url;
pub mod session;
pub mod shutdown;
pub mod tls;

pub use agent::{AGENT_VERSION, AgentConfig, AgentError, DEFAULT_METRICS_INTERVAL, run};
pub use enroll::{EnrollError, EnrollOptions, enroll};
pub use exec::Launcher;
pub use shutdown::{ShutdownSignal, ShutdownTrigger, shutdown_channel};
pub use tls::ServerTrust;
