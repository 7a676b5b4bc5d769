//! Catastrophic commands: wiping filesystems or disks, deleting the root or a
//! system directory, fork bombs, killing every process. The executor refuses
//! these at every control level, approvals or not.

use crate::invocation::{ArgShape, Invocation};
use crate::verdict::Reason;

/// Top-level directories whose loss breaks the machine.
const SYSTEM_DIRS: &[&str] = &[
    "/",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/usr/bin",
    "/usr/lib",
    "/usr/sbin",
    "/usr/local",
    "/var/lib",
    "/etc/pve",
    "/var/lib/vz",
    "/boot/efi",
];

/// Device name prefixes of whole disks and partitions.
const BLOCK_DEVICES: &[&str] = &[
    "/dev/sd",
    "/dev/hd",
    "/dev/vd",
    "/dev/xvd",
    "/dev/nvme",
    "/dev/mmcblk",
    "/dev/md",
    "/dev/dm-",
    "/dev/mapper/",
    "/dev/disk/",
    "/dev/zd",
    "/dev/rbd",
    "/dev/loop",
    "/dev/nbd",
    "/dev/pve/",
    "/dev/mem",
    "/dev/kmem",
    "/dev/port",
];

/// Is `path` the root, a system directory, or everything in one (`/etc/*`)?
fn is_system_path(path: &str) -> bool {
    let mut p = path.trim();
    // Collapse `//`, trailing `/`, `/.` and `/*` to the directory they name.
    let collapsed: String;
    if p.contains("//") {
        let mut s = p.to_string();
        while s.contains("//") {
            s = s.replace("//", "/");
        }
        collapsed = s;
        p = &collapsed;
    }
    loop {
        let trimmed = p
            .strip_suffix("/*")
            .or_else(|| p.strip_suffix("/."))
            .or_else(|| p.strip_suffix("/.*"))
            .or_else(|| {
                if p.len() > 1 {
                    p.strip_suffix('/')
                } else {
                    None
                }
            });
        match trimmed {
            Some(t) => p = if t.is_empty() { "/" } else { t },
            None => break,
        }
    }
    p == "*" || p == "/.." || p == "~" || p == "$HOME" || p == "${HOME}" || SYSTEM_DIRS.contains(&p)
}

/// A variable at the start of a path that may be empty: `"$DIR"/*` is `/*`.
fn may_expand_to_root(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('$') else {
        return false;
    };
    let rest = rest.strip_prefix('{').unwrap_or(rest);
    let name_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let after = rest[name_len..].trim_start_matches('}');
    name_len > 0 && (after == "/" || after == "/*" || after == "/.")
}

fn is_block_device(path: &str) -> bool {
    BLOCK_DEVICES.iter().any(|d| path.starts_with(d))
}

/// A catastrophic output redirect target (`> /dev/sda`, `> /proc/sysrq-trigger`).
pub fn redirect_target(target: &str) -> Option<Reason> {
    if is_block_device(target) {
        return Some(format!("writing to `{target}` destroys the disk").into());
    }
    if target == "/proc/sysrq-trigger" {
        return Some("writing to /proc/sysrq-trigger can crash or reboot the machine".into());
    }
    None
}

/// Is a short or long flag present (in a cluster, or spelled out)?
fn flag(inv: &Invocation<'_, '_>, short: char, long: &str) -> bool {
    inv.has_short(short) || inv.has_long_abbrev(long)
}

/// The catastrophic reason for one simple command, if any.
pub fn check(inv: &Invocation<'_, '_>) -> Option<Reason> {
    let operands = || {
        let mut ended = false;
        inv.args.iter().filter(move |a| {
            if ended {
                return true;
            }
            if a.text == "--" {
                ended = true;
                return false;
            }
            !a.text.starts_with('-')
        })
    };
    match inv.name {
        "rm" => {
            let recursive = flag(inv, 'r', "--recursive") || inv.has_short('R');
            let no_preserve = inv.has_long_abbrev("--no-preserve-root");
            let hit = operands().find(|a| {
                is_system_path(&a.text)
                    || (a.shape == ArgShape::Dynamic && may_expand_to_root(&a.text))
            });
            match hit {
                Some(a)
                    if recursive
                        || no_preserve
                        || a.text.trim_end_matches(['/', '*']).is_empty() =>
                {
                    Some(format!("`rm` of `{}` deletes the system", a.raw).into())
                }
                _ => None,
            }
        }
        "chmod" | "chown" | "chgrp" | "setfacl" => {
            let recursive = flag(inv, 'R', "--recursive");
            let hit = operands()
                .skip(usize::from(inv.name != "setfacl"))
                .find(|a| is_system_path(&a.text));
            match hit {
                Some(a) if recursive => Some(
                    format!("recursive `{}` of `{}` breaks the system", inv.name, a.raw).into(),
                ),
                _ => None,
            }
        }
        "find" => {
            let deletes = inv.has_word(&["-delete"])
                || (inv.has_word(&["-exec", "-execdir"])
                    && inv.has_word(&["rm", "/bin/rm", "shred"]));
            let start = operands().next();
            match start {
                Some(a) if deletes && is_system_path(&a.text) => {
                    Some(format!("`find {} … -delete` deletes the system", a.raw).into())
                }
                _ => None,
            }
        }
        "dd" => inv
            .args
            .iter()
            .find_map(|a| a.text.strip_prefix("of="))
            .filter(|target| is_block_device(target))
            .map(|target| format!("`dd of={target}` overwrites a disk").into()),
        "shred" | "blkdiscard" | "wipefs" | "mkswap" => {
            let wipes = inv.name != "wipefs"
                || flag(inv, 'a', "--all")
                || inv.has_short('o')
                || inv.has_long_abbrev("--offset");
            operands()
                .find(|a| is_block_device(&a.text))
                .filter(|_| wipes)
                .map(|a| format!("`{}` wipes `{}`", inv.name, a.raw).into())
        }
        name if name == "mkfs" || name.starts_with("mkfs.") || name == "mke2fs" => {
            Some(format!("`{name}` formats a filesystem, erasing it").into())
        }
        "sgdisk"
            if flag(inv, 'Z', "--zap-all")
                || inv.has_short('o')
                || inv.has_long_abbrev("--clear") =>
        {
            Some("`sgdisk` destroys the partition table".into())
        }
        "sfdisk" if inv.has_long_abbrev("--delete") => {
            Some("`sfdisk --delete` removes partitions".into())
        }
        "parted" if inv.has_word(&["mklabel", "rm"]) => Some("`parted` destroys partitions".into()),
        "zpool" if matches!(inv.arg(0), Some("destroy" | "labelclear")) => {
            Some(format!("`zpool {}` destroys a pool", inv.arg(0).unwrap_or_default()).into())
        }
        "zfs"
            if inv.arg(0) == Some("destroy")
                && (flag(inv, 'r', "--recursive") || inv.has_short('R'))
                && operands()
                    .nth(1)
                    .is_some_and(|ds| !ds.text.contains('/') && !ds.text.contains('@')) =>
        {
            Some("`zfs destroy -r` of a whole pool".into())
        }
        "cryptsetup" if inv.has_word(&["luksErase", "erase"]) => {
            Some("`cryptsetup erase` destroys every key slot".into())
        }
        "nvme" if matches!(inv.arg(0), Some("format" | "sanitize")) => {
            Some(format!("`nvme {}` erases the drive", inv.arg(0).unwrap_or_default()).into())
        }
        "hdparm"
            if inv.args.iter().any(|a| {
                a.text.starts_with("--security-erase") || a.text == "--trim-sector-ranges"
            }) =>
        {
            Some("`hdparm` erases the drive".into())
        }
        "ceph"
            if inv.has_word(&["--yes-i-really-really-mean-it"])
                && inv.has_word(&["delete", "rm"]) =>
        {
            Some("`ceph … delete --yes-i-really-really-mean-it` destroys a pool".into())
        }
        "kill" if inv.args.iter().any(|a| a.text == "-1") && inv.args.len() >= 2 => {
            Some("`kill … -1` signals every process".into())
        }
        "killall5" => Some("`killall5` kills every process".into()),
        "mv" => operands()
            .find(|a| is_system_path(&a.text) && a.text != "*")
            .map(|a| format!("`mv {}` moves a system directory away", a.raw).into()),
        _ => None,
    }
}

/// `:(){ :|:& };:` and its renamings: a function that pipes itself into
/// itself in the background.
pub fn fork_bomb(text: &str) -> Option<Reason> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut search = compact.as_str();
    while let Some(i) = search.find("(){") {
        let name_start = search[..i]
            .rfind([';', '&', '|', '(', ')', '{', '}'])
            .map_or(0, |p| p + 1);
        let name = &search[name_start..i];
        let name = name.strip_prefix("function").unwrap_or(name);
        if !name.is_empty() {
            let body = &search[i + 3..];
            if body.contains(&format!("{name}|{name}&")) || body.contains(&format!("{name}&{name}"))
            {
                return Some("catastrophic: fork bomb".into());
            }
        }
        search = &search[i + 3..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_paths() {
        for p in [
            "/",
            "//",
            "/*",
            "/.",
            "/etc",
            "/etc/",
            "/etc/*",
            "~",
            "$HOME",
            "/usr//bin/",
        ] {
            assert!(is_system_path(p), "{p}");
        }
        for p in ["/tmp/x", "/etc/nginx", "./build", "/var/log/app"] {
            assert!(!is_system_path(p), "{p}");
        }
        assert!(may_expand_to_root("$DIR/"));
        assert!(may_expand_to_root("${DIR}/*"));
        assert!(!may_expand_to_root("$DIR/build"));
    }

    #[test]
    fn fork_bombs() {
        assert!(fork_bomb(":(){ :|:& };:").is_some());
        assert!(fork_bomb("bomb() { bomb | bomb & }; bomb").is_some());
        assert!(fork_bomb("f() { echo hi; }; f").is_none());
    }
}
