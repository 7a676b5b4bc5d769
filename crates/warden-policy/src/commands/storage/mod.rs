//! Storage: ZFS, Ceph, disks and partitions, volume managers and block
//! layers, filesystems and network shares.

mod ceph;
mod disks;
mod filesystems;
mod volumes;
mod zfs;

use super::Rule;
use super::common::high_write;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("zpool", zfs::zpool),
    ("zfs", zfs::zfs),
    ("zdb", filesystems::zdb),
    ("arc_summary", zfs::arc_summary),
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
    ("pvscan", volumes::lvm_report),
    ("lvremove", high_write),
    ("dmsetup", volumes::dmsetup),
    ("cryptsetup", volumes::cryptsetup),
    ("losetup", volumes::losetup),
    ("multipath", volumes::multipath),
    ("iscsiadm", volumes::iscsiadm),
    ("tune2fs", filesystems::tune2fs),
    ("dumpe2fs", filesystems::dumpe2fs),
    ("xfs_info", filesystems::xfs_info),
    ("btrfs", filesystems::btrfs),
    ("exportfs", filesystems::exportfs),
    ("showmount", filesystems::showmount),
    ("nfsstat", filesystems::nfsstat),
];
