//! Storage: ZFS, Ceph, LVM, md RAID, disks (SMART, NVMe, partitions), filesystems.

use super::Rule;
#[allow(unused_imports)]
use super::common::*;

pub(crate) const RULES: &[(&str, Rule)] = &[];
