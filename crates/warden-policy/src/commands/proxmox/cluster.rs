//! The Proxmox node and cluster: `pvesh`, `pvesm`, `pvecm`, `ha-manager`,
//! `pvenode`, `pveum`, `pveam`, `pvesubscription`, `pve-firewall`.
use crate::commands::common::sub_in;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

use super::subcommand_in;

pub(super) fn pvesm(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(
        inv,
        &["status", "list", "path", "scan", "extractconfig", "help"],
    )
}

pub(super) fn pvesh(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(inv, &["get", "ls", "usage", "help"])
}

pub(super) fn pvecm(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(inv, &["status", "nodes", "help"])
}

pub(super) fn ha_manager(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(inv, &["status", "config", "groupconfig", "help"])
}

pub(super) fn pvenode(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        ["config", "get", ..]
        | ["cert", "info", ..]
        | ["task", "list" | "log" | "status", ..]
        | ["help", ..] => Verdict::Read,
        _ => Verdict::unknown("not a read-only pvenode command"),
    }
}

pub(super) fn pveum(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        [_, "list", ..]
        | ["user", "permissions", ..]
        | ["user", "token", "list", ..]
        | ["help", ..] => Verdict::Read,
        ["acl" | "user" | "group" | "role" | "pool" | "realm", ..] => {
            Verdict::write(Risk::MediumWrite, "changes users, groups or permissions")
        }
        _ => Verdict::unknown("not a read-only pveum command"),
    }
}

pub(super) fn pveam(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(inv, OptSpec::NONE, &["available", "list", "help"])
}

pub(super) fn pvesubscription(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(inv, OptSpec::NONE, &["get", "help"])
}

pub(super) fn pve_firewall(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &["status", "compile", "localnet", "help"],
    )
}
