//! Table tests for the system rules, one file per rule module.

mod kernel;
mod procs;
mod sdtools;
mod systemd;
mod users;
