//! The Proxmox VE connector against a real `fakepve` server on loopback
//! (the testkit's `fixtures::fakepve`), and RRD parsing on recorded response shapes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

mod connect;
mod control;
mod inventory;
mod operations;
mod rrd_recorded;
