//! The HTTP API of a real server in this process (the testkit's test
//! server), as one test binary: approvals, auth, reads, sessions,
//! shutdown, TLS. A module per former test file. The agent tests have
//! their own binary: `/metrics` is one recorder per process, and these
//! tests read its gauges (no agent connected) while agent tests would set
//! them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod api_approvals;
mod api_auth;
mod api_canary;
mod api_people;
mod api_reads;
mod api_sessions;
mod api_shutdown;
mod api_tls;
