//! Proxmox VE and the other hypervisor tools: guests (`qm`, `pct`), the node
//! and cluster (`pvesh`, `pvesm`, `pvecm`, `ha-manager`, …), Proxmox Backup
//! Server clients, libvirt and plain LXC.

mod backup;
mod cluster;
mod guests;
mod libvirt;

use super::Rule;
use super::common::{Globs, walk_checked};
use crate::invocation::Invocation;
use crate::options::Options;
use crate::verdict::Verdict;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("qm", guests::qm),
    ("pct", guests::pct),
    ("pvesh", cluster::pvesh),
    ("pvesm", cluster::pvesm),
    ("pvecm", cluster::pvecm),
    ("pveceph", cluster::pveceph),
    ("ha-manager", cluster::ha_manager),
    ("pvenode", cluster::pvenode),
    ("pveum", cluster::pveum),
    ("pveam", cluster::pveam),
    ("pvesubscription", cluster::pvesubscription),
    ("pve-firewall", cluster::pve_firewall),
    ("pveversion", cluster::pveversion),
    ("pveperf", pveperf),
    ("pvereport", cluster::pvereport),
    ("proxmox-backup-client", backup::proxmox_backup_client),
    ("proxmox-backup-manager", backup::proxmox_backup_manager),
    ("virsh", libvirt::virsh),
    ("qemu-img", libvirt::qemu_img),
    ("lxc-ls", libvirt::lxc_ls),
    ("lxc-info", libvirt::lxc_info),
];

/// A read-only command of a Proxmox CLI tool: its words (`["config"]`,
/// `["task", "list"]`) and the parameters its API handler takes. The
/// handlers behind these words only read, but a parameter not listed is
/// refused all the same.
pub(super) struct PveRead {
    pub(super) words: &'static [&'static str],
    pub(super) params: Options,
}

/// Options of every formatting Proxmox command. Parameters are given as
/// `--name value`, `--name=value`; a boolean's value is optional.
const PVE_FORMAT: Options = Options {
    long_flags: &["--noborder", "--noheader", "--human-readable", "--quiet"],
    long_values: &["--output-format"],
    ..Options::GNU
};

/// `TOOL WORDS… [OPERANDS] [--param value]…` for one of `reads`; `help`
/// always reads.
fn pve_cli(inv: &Invocation<'_, '_>, tool: &str, reads: &[PveRead]) -> Verdict {
    const HELP: PveRead = PveRead {
        words: &["help"],
        params: Options {
            long_optional: &["--verbose"],
            ..Options::GNU
        },
    };
    let words: Vec<&str> = inv.args.iter().map(|a| a.as_str()).collect();
    let Some(read) = reads.iter().chain([&HELP]).find(|r| {
        words.starts_with(r.words) && inv.args[..r.words.len()].iter().all(|a| a.is_literal())
    }) else {
        let shown: Vec<&str> = words.iter().take(2).copied().collect();
        return Verdict::unknown(format!(
            "`{tool} {}` is not known to be read-only",
            shown.join(" ")
        ));
    };
    let rest = inv.from(read.words.len());
    walk_checked(&rest, &[&read.params, &PVE_FORMAT], Globs::Refused, |_| {
        None
    })
}

/// A [`PveRead`] entry: `pve!(["config"], values: [...], flags: [...])`.
macro_rules! pve {
    ([$($word:literal),*]) => {
        $crate::commands::proxmox::PveRead { words: &[$($word),*], params: $crate::options::Options::GNU }
    };
    ([$($word:literal),*], values: [$($value:literal),*], flags: [$($flag:literal),*]) => {
        $crate::commands::proxmox::PveRead {
            words: &[$($word),*],
            params: $crate::options::Options {
                long_values: &[$($value),*],
                long_optional: &[$($flag),*],
                ..$crate::options::Options::GNU
            },
        }
    };
}
pub(super) use pve;

/// `pveperf [PATH]` measures fsyncs by writing a file under PATH.
fn pveperf(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::write(
        crate::verdict::Risk::LowWrite,
        "writes a test file to measure fsync rate",
    )
}
