//! Proxmox Backup Server clients.
use super::{PveRead, pve, pve_cli};
use crate::invocation::Invocation;
use crate::verdict::*;

/// Where `proxmox-backup-client` finds the repository and keys.
macro_rules! pbc {
    ([$($word:literal),*]) => {
        pve!([$($word),*], values: ["--repository", "--ns", "--keyfile", "--crypt-mode", "--max-depth"], flags: [])
    };
}

pub(super) fn proxmox_backup_client(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pbc!(["list"]),
        pbc!(["status"]),
        pbc!(["version"]),
        pbc!(["snapshot", "list"]),
        pbc!(["snapshot", "files"]),
        pbc!(["snapshot", "notes", "show"]),
        pbc!(["catalog", "dump"]),
        pbc!(["namespace", "list"]),
        pbc!(["task", "list"]),
        pbc!(["key", "show"]),
    ];
    pve_cli(inv, "proxmox-backup-client", READS)
}

pub(super) fn proxmox_backup_manager(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pve!(["datastore", "list"]),
        pve!(["datastore", "show"]),
        pve!(["task", "list"], values: ["--limit", "--since", "--until", "--typefilter", "--statusfilter"], flags: ["--all", "--running", "--errors"]),
        pve!(["task", "log"]),
        pve!(["user", "list"]),
        pve!(["acl", "list"]),
        pve!(["remote", "list"]),
        pve!(["remote", "show"]),
        pve!(["sync-job", "list"]),
        pve!(["sync-job", "show"]),
        pve!(["verify-job", "list"]),
        pve!(["prune-job", "list"]),
        pve!(["garbage-collection", "status"]),
        pve!(["network", "list"]),
        pve!(["network", "show"]),
        pve!(["dns", "get"]),
        pve!(["disk", "list"]),
        pve!(["subscription", "get"]),
        pve!(["cert", "info"]),
        pve!(["versions"], values: [], flags: ["--verbose"]),
    ];
    pve_cli(inv, "proxmox-backup-manager", READS)
}
