//! The infrastructure connectors through their public API, as one test
//! binary (built and linked once): local commands, the Docker engine (real
//! and a fake on a Unix socket), this machine's inventory, and Proxmox VE on
//! a real fakepve. A module per former test file. `terminate_all` stops
//! every command of its process, so its test has a binary of its own
//! (`tests/shutdown.rs`). The Docker test image's script stays in
//! `tests/support/`, where the agent's and the CLI's Docker tests find it
//! too.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod support;

mod docker_engine;
mod docker_exec_stop;
mod docker_fake_engine;
mod local_exec;
mod local_inventory;
mod metrics;
mod proxmox;
