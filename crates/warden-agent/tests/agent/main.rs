//! The agent through its public API, as one test binary (built and linked
//! once): enrollment, the connection to a fake server that speaks the
//! protocol (well-behaved and hostile), commands run and confined, and
//! `docker exec` on the real engine. A module per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod support;

mod connection;
mod docker_exec;
mod enrollment;
mod exec;
mod hostile_server;
mod metrics;
