//! Proxmox Backup Server clients.
use crate::commands::common::object_action_in;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(super) fn proxmox_backup_client(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        ["list" | "status" | "version" | "help", ..]
        | ["snapshot", "list" | "files", ..]
        | ["catalog", "dump", ..] => Verdict::Read,
        _ => Verdict::unknown("not a read-only backup-client command"),
    }
}

pub(super) fn proxmox_backup_manager(inv: &Invocation<'_, '_>) -> Verdict {
    object_action_in(inv, &["list", "show", "status"])
}
