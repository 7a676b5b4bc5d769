//! Proxmox VE and the other hypervisor tools: guests (`qm`, `pct`), the node
//! and cluster (`pvesh`, `pvesm`, `pvecm`, `ha-manager`, …), Proxmox Backup
//! Server clients, libvirt and plain LXC.

mod backup;
mod cluster;
mod guests;
mod libvirt;

use super::Rule;
use super::common::always_read;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::Verdict;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("qm", guests::qm),
    ("pct", guests::pct),
    ("pvesh", cluster::pvesh),
    ("pvesm", cluster::pvesm),
    ("pvecm", cluster::pvecm),
    ("ha-manager", cluster::ha_manager),
    ("pvenode", cluster::pvenode),
    ("pveum", cluster::pveum),
    ("pveam", cluster::pveam),
    ("pvesubscription", cluster::pvesubscription),
    ("pve-firewall", cluster::pve_firewall),
    ("pveversion", always_read),
    ("pveperf", pveperf),
    ("pvereport", always_read),
    ("proxmox-backup-client", backup::proxmox_backup_client),
    ("proxmox-backup-manager", backup::proxmox_backup_manager),
    ("virsh", libvirt::virsh),
    ("qemu-img", libvirt::qemu_img),
    ("lxc-ls", always_read),
    ("lxc-info", always_read),
];

/// The first positional is one of `read`.
fn subcommand_in(inv: &Invocation<'_, '_>, read: &[&str]) -> Verdict {
    match inv.first_positional(OptSpec::NONE) {
        Some((_, sub)) if read.contains(&sub) => Verdict::Read,
        Some((_, sub)) => {
            Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only"))
        }
        None => Verdict::unknown("no subcommand"),
    }
}

/// `pveperf [PATH]` measures fsyncs by writing a file under PATH.
fn pveperf(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::write(
        crate::verdict::Risk::LowWrite,
        "writes a test file to measure fsync rate",
    )
}
