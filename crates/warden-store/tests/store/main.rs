//! The store through its public API, as one test binary (built and linked
//! once): the audit chain and its export, opening files, several processes
//! on one database, and upgrades from earlier releases' databases. A
//! module per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod audit_export;
mod audit_tamper;
mod open_files;
mod processes;
mod upgrade;
