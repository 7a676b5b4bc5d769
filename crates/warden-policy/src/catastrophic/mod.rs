//! Catastrophic commands: wiping filesystems or disks, deleting the root or a
//! system directory, fork bombs, killing every process. The executor refuses
//! these at every control level, approvals or not.
//!
//! [`check`] looks at one simple command; the engine calls it for every
//! command it walks, the inner commands of wrappers included. [`device_write`]
//! knows which programs write to disks. [`scan_unparsed`] looks for the same
//! in text the parser refused.

mod code;
mod disks;
mod scan;

pub use disks::device_write;
pub use scan::{fork_bomb, scan_unparsed};

use std::borrow::Cow;

use crate::devices::glob_matches;
use crate::invocation::{Arg, ArgShape, Invocation};
use crate::verdict::Reason;

/// Directories whose loss breaks the machine.
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

/// `path` with `//`, `.` and `..` resolved, `/*` and trailing `/` removed:
/// the directory whose contents it names.
fn normalize(path: &str) -> Cow<'_, str> {
    let path = path.trim();
    // Most paths are already normal: `/` and names that are none of the
    // components removed below.
    let normal = path == "/"
        || (path.len() > 1
            && path.starts_with('/')
            && path[1..]
                .split('/')
                .all(|c| !matches!(c, "" | "." | ".." | "*" | ".*")));
    if normal {
        return Cow::Borrowed(path);
    }
    let mut comps: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." | "*" | ".*" => {}
            ".." => {
                comps.pop();
            }
            _ => comps.push(comp),
        }
    }
    Cow::Owned(format!("/{}", comps.join("/")))
}

/// Is `arg` the root, a system directory, or everything in one (`/etc/*`)?
/// A glob counts when it can match one (`/e*`, `/[u]sr`).
fn is_system_path(arg: &Arg<'_>) -> bool {
    let text: &str = &arg.text;
    let trimmed = text.trim();
    if matches!(
        trimmed,
        "*" | ".*" | "./*" | "../*" | "../" | ".." | "~" | "~/" | "~/*" | "$HOME" | "${HOME}"
    ) {
        return true;
    }
    if trimmed.starts_with("~root") || trimmed == "/.." {
        return true;
    }
    if !trimmed.starts_with('/') {
        return false;
    }
    let normalized = normalize(trimmed);
    if arg.shape == ArgShape::Glob {
        return SYSTEM_DIRS.iter().any(|dir| glob_names(&normalized, dir));
    }
    SYSTEM_DIRS.contains(&&*normalized)
}

/// Could the normalized glob `pattern` name `dir` (component by component)?
fn glob_names(pattern: &str, dir: &str) -> bool {
    let mut p = pattern.split('/').filter(|c| !c.is_empty());
    let mut d = dir.split('/').filter(|c| !c.is_empty());
    loop {
        match (p.next(), d.next()) {
            (None, None) => return true,
            (Some(p), Some(d)) if glob_matches(p, d) => {}
            _ => return false,
        }
    }
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

/// A catastrophic output redirect target (`> /dev/sda`, `> /proc/sysrq-trigger`).
pub fn redirect_target(target: &str) -> Option<Reason> {
    if disks::is_disk(target) {
        return Some(format!("writing to `{target}` destroys the disk").into());
    }
    if normalize(target) == "/proc/sysrq-trigger" {
        return Some("writing to /proc/sysrq-trigger can crash or reboot the machine".into());
    }
    None
}

/// Is a short or long flag present (in a cluster, or spelled out)?
fn flag(inv: &Invocation<'_, '_>, short: char, long: &str) -> bool {
    inv.has_short(short) || inv.has_long_abbrev(long)
}

/// The operands: arguments not starting with `-`, and everything after `--`.
fn operands<'i, 'a>(inv: &Invocation<'i, 'a>) -> impl Iterator<Item = &'i Arg<'a>> {
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
}

/// Trees that hold a machine's guests or data: VM and container disks,
/// cluster state, databases, storage pools. Deleting one is as bad as
/// deleting the system (`rm -rf /var/lib/docker`, `find /var/lib/vz -delete`).
const GUEST_ROOTS: &[&str] = &[
    "/var/lib/docker",
    "/var/lib/containers",
    "/var/lib/containerd",
    "/var/lib/libvirt",
    "/var/lib/libvirt/images",
    "/var/lib/lxc",
    "/var/lib/lxd",
    "/var/lib/incus",
    "/var/lib/machines",
    "/var/lib/ceph",
    "/var/lib/pve-cluster",
    "/var/lib/pve-manager",
    "/var/lib/vz/images",
    "/var/lib/vz/dump",
    "/var/lib/vz/template",
    "/var/lib/mysql",
    "/var/lib/postgresql",
    "/var/lib/pgsql",
    "/var/lib/etcd",
    "/var/lib/kubelet",
    "/var/lib/rancher",
    "/var/lib/longhorn",
    "/etc/kubernetes",
    "/mnt/pve",
    "/rpool/data",
    "/dev/pve",
];

/// Top-level directories that are scratch space, not a tree that holds
/// the system or its data (every other one, `/rpool`, `/tank`, `/data`,
/// `/backup`, is where pools and disks are mounted).
const SCRATCH_TOP: &[&str] = &["/tmp", "/var/tmp", "/lost+found"];

/// Is `arg` the system, a system directory, or the guests' or data's
/// storage?
fn is_system_or_guests(arg: &Arg<'_>) -> bool {
    if is_system_path(arg) {
        return true;
    }
    let text = arg.text.trim();
    if !text.starts_with('/') || arg.shape == ArgShape::Dynamic {
        return false;
    }
    let normalized = normalize(text);
    if arg.shape == ArgShape::Glob {
        return GUEST_ROOTS.iter().any(|dir| glob_names(&normalized, dir));
    }
    GUEST_ROOTS.contains(&&*normalized)
}

/// Is `arg` a tree whose removal as a whole is catastrophic: the system,
/// its guests' storage, or a top-level directory (where pools and disks
/// are mounted)?
fn is_deletion_root(arg: &Arg<'_>) -> bool {
    if is_system_or_guests(arg) {
        return true;
    }
    if arg.shape != ArgShape::Literal || !arg.text.trim().starts_with('/') {
        return false;
    }
    let normalized = normalize(&arg.text);
    normalized.len() > 1 && !normalized[1..].contains('/') && !SCRATCH_TOP.contains(&&*normalized)
}

/// find tests that narrow a walk to files named on the command line; a
/// size, age, owner or type test selects files of every kind (VM disks,
/// databases) and narrows nothing.
const FIND_NAMES: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-samefile",
    "-inum",
    "-empty",
];

/// Does a name test (not negated, not one of several alternatives, with a
/// pattern that names something) narrow the walk?
fn find_narrows(args: &[Arg<'_>]) -> bool {
    // With alternatives, every one needs a name test of its own.
    let alternatives = args
        .iter()
        .filter(|a| matches!(&*a.text, "-o" | "-or" | ","))
        .count();
    let names = args.iter().enumerate().filter(|&(i, a)| {
        if !FIND_NAMES.contains(&&*a.text) {
            return false;
        }
        let negated = i
            .checked_sub(1)
            .and_then(|p| args.get(p))
            .is_some_and(|p| matches!(&*p.text, "!" | "-not"));
        let names = a.text == "-empty"
            || args.get(i + 1).is_some_and(|v| {
                v.shape != ArgShape::Dynamic
                    && v.text.bytes().any(|b| !b"*?.[]^$\\+".contains(&b))
                    && !names_guest_data(&v.text)
            });
        names && !negated
    });
    names.count() > alternatives
}

/// Patterns that select every disk image or database file (`*.qcow2`,
/// `vm-*`): on a hypervisor, the guests themselves.
fn names_guest_data(pattern: &str) -> bool {
    const DATA: &[&str] = &[
        ".qcow2", ".raw", ".img", ".vmdk", ".vdi", ".vhd", ".vhdx", ".db", ".sqlite", ".sqlite3",
        ".ibd", ".tar.zst", ".vma", ".vma.zst", ".vma.gz", ".vma.lzo",
    ];
    let lower = pattern.to_ascii_lowercase();
    let lower = lower.trim_end_matches(['*', '$']);
    DATA.iter().any(|ext| lower.ends_with(ext))
        || lower.starts_with("vm-")
        || lower.starts_with("*vm-")
        || lower.starts_with("base-")
        || lower.contains("disk")
}

/// The start directory of a `find` that walks a whole tree holding the
/// system or its guests, with no test narrowing it to named files
/// (`find / -size +100M`): whatever it deletes, it deletes from there.
pub(crate) fn find_whole_tree<'i, 'a>(args: &'i [Arg<'a>]) -> Option<&'i Arg<'a>> {
    let start = args
        .iter()
        .skip_while(|a| matches!(&*a.text, "-H" | "-L" | "-P"))
        .take_while(|a| !a.text.starts_with('-') && !matches!(&*a.text, "(" | "!"))
        .find(|a| is_system_or_guests(a))?;
    (!find_narrows(args)).then_some(start)
}

/// Programs that delete the files they are given.
const DELETERS: &[&str] = &["rm", "unlink", "shred", "truncate", "wipe", "srm"];

/// Does `name` (a path or a base name) delete its operands?
pub(crate) fn is_deleter(name: &str) -> bool {
    DELETERS.contains(&name.rsplit('/').next().unwrap_or_default())
}

/// The catastrophic reason for one simple command, if any.
pub fn check(inv: &Invocation<'_, '_>) -> Option<Reason> {
    match inv.name {
        "rm" => {
            let recursive = flag(inv, 'r', "--recursive") || inv.has_short('R');
            let no_preserve = inv.has_long_abbrev("--no-preserve-root");
            let hit = operands(inv).find(|a| {
                is_deletion_root(a) || (a.shape == ArgShape::Dynamic && may_expand_to_root(&a.text))
            });
            match hit {
                Some(a) if recursive || no_preserve || normalize(&a.text) == "/" => {
                    Some(format!("`rm` of `{}` deletes the system", a.raw).into())
                }
                _ => None,
            }
        }
        "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" | "chcon" => {
            let recursive = flag(inv, 'R', "--recursive");
            let hit = operands(inv)
                .skip(usize::from(!matches!(inv.name, "setfacl" | "chattr")))
                .find(|a| is_system_path(a));
            match hit {
                Some(a) if recursive => Some(
                    format!("recursive `{}` of `{}` breaks the system", inv.name, a.raw).into(),
                ),
                _ => None,
            }
        }
        "find" => find(inv),
        "rsync" => {
            let deletes = inv
                .args
                .iter()
                .any(|a| a.text.starts_with("--del") || a.text == "--remove-source-files");
            let target = operands(inv).last();
            match target {
                Some(t) if deletes && is_system_path(t) => {
                    Some(format!("`rsync --delete` into `{}` wipes it", t.raw).into())
                }
                _ => None,
            }
        }
        "dd" => inv
            .args
            .iter()
            .find_map(|a| a.text.strip_prefix("of="))
            .filter(|target| disks::is_disk(target))
            .map(|target| format!("`dd of={target}` overwrites a disk").into()),
        "shred" | "blkdiscard" | "wipefs" | "mkswap" | "wipe" | "nwipe" | "scrub" => {
            let wipes = inv.name != "wipefs"
                || flag(inv, 'a', "--all")
                || inv.has_short('o')
                || inv.has_long_abbrev("--offset");
            operands(inv)
                .find(|a| disks::is_disk(&a.text) || a.shape == ArgShape::Dynamic)
                .filter(|_| wipes)
                .map(|a| format!("`{}` wipes `{}`", inv.name, a.raw).into())
        }
        name if name == "mkfs" || name.starts_with("mkfs.") || name.starts_with("mke2fs") => {
            let target = operands(inv).last();
            match target {
                Some(t) if t.shape == ArgShape::Literal && !t.text.starts_with("/dev/") => None,
                _ => Some(format!("`{name}` formats a filesystem, erasing it").into()),
            }
        }
        "sgdisk"
            if flag(inv, 'Z', "--zap-all")
                || flag(inv, 'z', "--zap")
                || inv.has_short('o')
                || inv.has_long_abbrev("--clear") =>
        {
            Some("`sgdisk` destroys the partition table".into())
        }
        "sfdisk" if inv.has_long_abbrev("--delete") => {
            Some("`sfdisk --delete` removes partitions".into())
        }
        "parted" if inv.has_word(&["mklabel", "mktable", "rm"]) => {
            Some("`parted` destroys partitions".into())
        }
        "zpool"
            if matches!(
                inv.arg(0),
                Some("destroy" | "labelclear" | "create" | "initialize")
            ) =>
        {
            Some(format!("`zpool {}` destroys data", inv.arg(0).unwrap_or_default()).into())
        }
        "zfs"
            if inv.arg(0) == Some("destroy")
                && (flag(inv, 'r', "--recursive") || inv.has_short('R'))
                && operands(inv)
                    .nth(1)
                    .is_some_and(|ds| !ds.text.contains('/') && !ds.text.contains('@')) =>
        {
            Some("`zfs destroy -r` of a whole pool".into())
        }
        "cryptsetup" if inv.has_word(&["luksErase", "erase", "luksFormat", "reencrypt"]) => {
            Some("`cryptsetup` destroys the volume's keys or data".into())
        }
        "mdadm"
            if inv.has_long_abbrev("--zero-superblock")
                || inv.has_long_abbrev("--create")
                || inv.has_short('C') =>
        {
            Some("`mdadm` overwrites RAID members".into())
        }
        "nvme"
            if matches!(
                inv.arg(0),
                Some("format" | "sanitize" | "write-zeroes" | "write" | "ns-delete" | "delete-ns")
            ) =>
        {
            Some(format!("`nvme {}` erases the drive", inv.arg(0).unwrap_or_default()).into())
        }
        "hdparm"
            if inv.args.iter().any(|a| {
                a.text.starts_with("--security-erase")
                    || a.text.starts_with("--trim-sector-ranges")
                    || a.text == "--write-sector"
                    || a.text == "--make-bad-sector"
                    || a.text == "--dco-restore"
            }) =>
        {
            Some("`hdparm` erases the drive".into())
        }
        "ceph-volume" if inv.has_word(&["zap"]) => Some("`ceph-volume zap` wipes a disk".into()),
        "ceph"
            if inv.has_word(&["--yes-i-really-really-mean-it"])
                && inv.has_word(&["delete", "rm"]) =>
        {
            Some("`ceph … delete --yes-i-really-really-mean-it` destroys a pool".into())
        }
        "coreutils" => {
            let prog = inv.arg(0)?.strip_prefix("--coreutils-prog=")?;
            check(&Invocation::new(prog, &inv.args[1..]))
        }
        "flashrom"
            if inv.args.iter().any(|a| {
                matches!(&*a.text, "--write" | "--erase")
                    || (a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains(['w', 'E']))
            }) =>
        {
            Some("`flashrom` rewrites the firmware".into())
        }
        "sh" | "bash" | "dash" | "ash" | "zsh" | "ksh" | "mksh" | "source" | "." => {
            code::substituted_script(inv)
        }
        name if code::is_interpreter(name) => code::interpreter(inv),
        "kill" => kill_all(inv),
        "pkill" | "killall" => match_everything(inv),
        "killall5" => Some("`killall5` kills every process".into()),
        "mv" => operands(inv)
            .find(|a| is_system_path(a) && a.text != "*")
            .map(|a| format!("`mv {}` moves a system directory away", a.raw).into()),
        _ => None,
    }
}

/// `find` deleting, or running `rm`, on a whole tree that holds the system
/// or its guests.
fn find(inv: &Invocation<'_, '_>) -> Option<Reason> {
    let is_exec = |a: &Arg<'_>| matches!(&*a.text, "-exec" | "-execdir" | "-ok" | "-okdir");
    // Only a find that deletes or runs something can be catastrophic.
    let deletes = inv.has_word(&["-delete"]);
    if !deletes && !inv.args.iter().any(is_exec) {
        return None;
    }
    let start = find_whole_tree(inv.args)?;
    if deletes {
        return Some(format!("`find {} -delete` deletes the system", start.raw).into());
    }
    // `-exec rm {} ;` deletes every file, `-r` or not.
    let deletes_each = inv
        .args
        .windows(2)
        .any(|pair| is_exec(&pair[0]) && is_deleter(&pair[1].text));
    if deletes_each {
        return Some(format!("`find {} -exec rm` deletes the system", start.raw).into());
    }
    // `-exec CMD {} ;`: the command runs on the start directory too.
    let exec = inv.args.iter().position(is_exec)?;
    let inner: Vec<Arg<'_>> = inv.args[exec + 1..]
        .iter()
        .take_while(|a| !matches!(&*a.text, ";" | "+"))
        .map(|a| {
            if a.text.contains("{}") {
                Arg {
                    text: std::borrow::Cow::Owned(a.text.replace("{}", &start.text)),
                    raw: a.raw,
                    shape: start.shape,
                }
            } else {
                a.clone()
            }
        })
        .collect();
    let (name, args) = inner.split_first()?;
    let name = name.text.rsplit('/').next().unwrap_or_default();
    check(&Invocation::new(name, args)).map(|r| format!("`find {} -exec`: {r}", start.raw).into())
}

/// `kill -9 -1`, `kill -- -1`, `kill -s KILL -1`: every process.
fn kill_all(inv: &Invocation<'_, '_>) -> Option<Reason> {
    // `kill -1 PID` sends signal 1: `-1` is the target only after the first
    // word (a signal or `--`).
    inv.args
        .iter()
        .skip(1)
        .any(|a| a.text == "-1")
        .then(|| "`kill … -1` signals every process".into())
}

/// `pkill .`, `killall -r .`: a pattern that matches every process.
fn match_everything(inv: &Invocation<'_, '_>) -> Option<Reason> {
    let all = operands(inv).any(|a| {
        a.is_literal()
            && matches!(
                &*a.text,
                "." | ".*" | "^" | "$" | "" | ".+" | "^.*$" | "[a-z]*"
            )
    });
    all.then(|| format!("`{}` with a pattern that matches every process", inv.name).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(p: &str) -> bool {
        is_system_path(&Arg::literal(p))
    }

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
            "/etc/..",
            "/var/lib/..",
            "/./",
            "/..",
            "~root",
        ] {
            assert!(system(p), "{p}");
        }
        for p in ["/tmp/x", "/etc/nginx", "./build", "/var/log/app"] {
            assert!(!system(p), "{p}");
        }
        let glob = Arg {
            text: "/e*".into(),
            raw: "/e*",
            shape: ArgShape::Glob,
        };
        assert!(is_system_path(&glob));
        let glob = Arg {
            text: "/tmp/*".into(),
            raw: "/tmp/*",
            shape: ArgShape::Glob,
        };
        assert!(!is_system_path(&glob));
        assert!(may_expand_to_root("$DIR/"));
        assert!(may_expand_to_root("${DIR}/*"));
        assert!(!may_expand_to_root("$DIR/build"));
    }
}
