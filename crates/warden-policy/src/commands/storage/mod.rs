//! Storage: ZFS, Ceph, disks and partitions, volume managers and block
//! layers, filesystems and network shares.

mod ceph;
mod disks;
mod filesystems;
mod volumes;
mod zfs;

use super::Rule;
use super::common::{always_read, high_write};
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::Verdict;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("zpool", zfs::zpool),
    ("zfs", zfs::zfs),
    ("zdb", filesystems::zdb),
    ("arc_summary", always_read),
    ("arcstat", zfs::interval_count),
    ("ceph", ceph::ceph),
    ("rbd", ceph::rbd),
    ("rados", ceph::rados),
    ("smartctl", disks::smartctl),
    ("nvme", disks::nvme),
    ("mdadm", disks::mdadm),
    ("hdparm", disks::hdparm),
    ("fdisk", disks::fdisk),
    ("sfdisk", disks::sfdisk),
    ("parted", disks::parted),
    ("blockdev", disks::blockdev),
    ("blkid", volumes::blkid),
    ("wipefs", high_write),
    ("lvs", volumes::lvm_report),
    ("vgs", volumes::lvm_report),
    ("pvs", volumes::lvm_report),
    ("lvdisplay", volumes::lvm_report),
    ("vgdisplay", volumes::lvm_report),
    ("pvdisplay", volumes::lvm_report),
    ("lvscan", volumes::lvm_report),
    ("vgscan", volumes::lvm_report),
    ("pvscan", volumes::pvscan),
    ("lvremove", high_write),
    ("dmsetup", volumes::dmsetup),
    ("cryptsetup", volumes::cryptsetup),
    ("losetup", volumes::losetup),
    ("multipath", volumes::multipath),
    ("iscsiadm", volumes::iscsiadm),
    ("tune2fs", filesystems::tune2fs),
    ("dumpe2fs", always_read),
    ("xfs_info", always_read),
    ("btrfs", filesystems::btrfs),
    ("exportfs", filesystems::exportfs),
    ("showmount", always_read),
    ("nfsstat", filesystems::nfsstat),
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
