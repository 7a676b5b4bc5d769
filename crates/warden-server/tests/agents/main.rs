//! Agents against a real server in this process (the testkit's test
//! server), as one test binary: the protocol with the scripted agent,
//! commands through it, and the real agent library end to end. A module
//! per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod agents_aimed;
mod agents_e2e;
mod agents_exec;
mod agents_protocol;
mod agents_squat;
mod installation_events;
