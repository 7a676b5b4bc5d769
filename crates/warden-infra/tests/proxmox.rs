//! The Proxmox VE connector against a real `fakepve` server on loopback
//! (see `fakepve/mod.rs`), and RRD parsing on recorded response shapes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

mod fakepve;

#[path = "proxmox/connect.rs"]
mod connect;
#[path = "proxmox/control.rs"]
mod control;
#[path = "proxmox/inventory.rs"]
mod inventory;
#[path = "proxmox/operations.rs"]
mod operations;
#[path = "proxmox/rrd_recorded.rs"]
mod rrd_recorded;
