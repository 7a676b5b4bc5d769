//! Programs that write to disks. A write whose arguments name a disk or a
//! partition is catastrophic unless the program is known to use disks
//! without destroying what is on them (mounting, checking, resizing).

use crate::devices::{DeviceKind, arg_device, literal_kind};
use crate::invocation::ArgShape;
use crate::invocation::{Arg, Invocation};
use crate::verdict::{Intent, Reason, Verdict};

/// Programs that take disks as arguments and change them without wiping
/// them (their destructive modes are in [`super::check`]).
const KEEPS_DATA: &[&str] = &[
    "mount",
    "umount",
    "swapon",
    "swapoff",
    "fsck",
    "e2fsck",
    "fsck.ext2",
    "fsck.ext3",
    "fsck.ext4",
    "fsck.xfs",
    "fsck.vfat",
    "fsck.fat",
    "dosfsck",
    "xfs_repair",
    "btrfsck",
    "tune2fs",
    "e2label",
    "xfs_admin",
    "xfs_growfs",
    "resize2fs",
    "growpart",
    "partprobe",
    "partx",
    "kpartx",
    "blockdev",
    "hdparm",
    "sdparm",
    "smartctl",
    "udevadm",
    "eject",
    "losetup",
    "dmsetup",
    "lvchange",
    "vgchange",
    "pvresize",
    "pvmove",
    "lvextend",
    "lvresize",
    "cryptsetup",
    "mdadm",
    "zpool",
    "zfs",
    "nvme",
    "iscsiadm",
    "multipath",
    "chown",
    "chmod",
    "chgrp",
    "ln",
    "ceph-volume",
    "fstrim",
    "btrfs",
    "sg_inq",
    "sg_readcap",
    "blkid",
    "lsblk",
    "file",
];

/// Could `arg` name a device ([`arg_device`] finds none otherwise)?
fn may_name_device(arg: &Arg<'_>) -> bool {
    crate::devices::may_name_device(&arg.text)
        || (arg.shape == ArgShape::Glob && arg.text.contains(['*', '?', '[']))
}

/// Is `path` a disk or partition (literally)?
pub(super) fn is_disk(path: &str) -> bool {
    literal_kind(path) == Some(DeviceKind::Disk)
        || matches!(path.trim_start_matches('/'), p if p.starts_with("dev/mem") || p.starts_with("dev/kmem") || p.starts_with("dev/port"))
}

/// The catastrophic reason when a command that writes (or that Warden does
/// not know) names a disk: `cp img /dev/sda`, `tee /dev/nvme0n1`,
/// `ddrescue /dev/zero /dev/sdb`, `pv x -o /dev/sda`.
pub fn device_write(inv: &Invocation<'_, '_>, verdict: &Verdict, known: bool) -> Option<Reason> {
    let writes = match verdict {
        Verdict::Read | Verdict::Conditional(_) => false,
        // Wrappers' inner commands are checked on their own.
        Verdict::Wrap(_) | Verdict::Guarded(..) => false,
        Verdict::Interactive(iv) => iv.intent == Intent::WriteOrUnknown,
        Verdict::Write(..) | Verdict::Unknown(_) => true,
    };
    // Only an argument that may name a device can be a disk (or the
    // sysrq trigger): most name none.
    if !writes || !inv.args.iter().any(may_name_device) || KEEPS_DATA.contains(&inv.name) {
        return None;
    }
    if let Some(arg) = inv.args.iter().find(|a| {
        a.text.as_bytes().windows(5).any(|w| w == b"sysrq")
            && super::normalize(&a.text) == "/proc/sysrq-trigger"
    }) {
        return Some(
            format!(
                "`{}` writes to `{}`, which can crash the machine",
                inv.name, arg.raw
            )
            .into(),
        );
    }
    // Where the program writes: for copiers the last operand (`cp /dev/sda
    // img` reads the disk), for ddrescue the second, for dd only `of=`
    // (checked in `check`); for anything else every argument.
    let mut operands = inv.args.iter().filter(|a| !a.text.starts_with('-'));
    let targets: &[Arg<'_>] = match inv.name {
        "dd" => &[],
        "cp" | "mv" | "install" | "rsync" | "scp" | "qemu-img" | "ln" => operands
            .next_back()
            .map(std::slice::from_ref)
            .unwrap_or_default(),
        "ddrescue" | "dd_rescue" => operands
            .nth(1)
            .map(std::slice::from_ref)
            .unwrap_or_default(),
        _ => inv.args,
    };
    let (path, _) = targets
        .iter()
        .filter_map(arg_device)
        .find(|(path, kind)| *kind == DeviceKind::Disk || is_disk(path))?;
    let who = if known {
        format!("`{}` writes", inv.name)
    } else {
        format!("`{}` (not a known program) may write", inv.name)
    };
    Some(format!("{who} to `{path}`, destroying what is on it").into())
}
