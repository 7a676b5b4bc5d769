//! The `warden` binary as an operator runs it, as one test binary (built
//! and linked once): a module per former test file — the CLI with and
//! without a model (fake model servers for each wire format), approvals,
//! audit, Docker, Proxmox (a real fakepve), replay scenarios, `warden
//! serve` as a process, signals and the watchdog, `warden agent`, and
//! databases from earlier releases. The Docker fleet (`fleet_docker.rs`)
//! keeps its own binary: agents in containers on a private network.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod agent_cli;
mod approvals_cli;
mod audit_cli;
mod cli_docker;
mod cli_docker_router;
mod cli_local;
mod cli_model_failures;
mod cli_providers;
mod cli_router;
mod confinement;
mod one_program;
mod proxmox_cli;
mod scenarios;
mod serve_process;
mod signals;
mod upgrade_cli;
mod watchdog;
