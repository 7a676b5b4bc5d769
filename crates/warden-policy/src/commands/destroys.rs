//! Writes that destroy data or access and cannot be undone with another
//! command: recursive or mass deletion and permission changes, user and
//! group changes, package removal, firewall flushes, partition, volume,
//! pool and guest destruction. They are `high_write` whatever rule decided
//! they write, so that even at the autonomous level a human approves them
//! (only low and medium writes, restarts and one-file edits, run
//! unattended). One table for every family: a rule that calls such a
//! command "not known to be read-only" still gets its risk from here.

/// How an entry recognises the destructive form of a program.
enum Form {
    /// Every write by the program.
    Any,
    /// The positional words contain one of these sequences (`osd pool delete`).
    Words(&'static [&'static [&'static str]]),
    /// One of these options is given: `-R` in any cluster of short options,
    /// a long option spelled out (or with `=value`).
    Flags(&'static [&'static str]),
    /// Mass use: one of these options (recursion), an operand that expands
    /// (a glob, a variable, a substitution, names fed by `xargs`), or more
    /// than [`MASS_OPERANDS`] operands. Deleting a named file or two is a
    /// medium write, like editing one.
    Mass(&'static [&'static str]),
}

use Form::{Any, Flags, Mass, Words};

/// More operands than this make a deletion a mass deletion.
const MASS_OPERANDS: usize = 3;

/// Programs, their destructive form, and what they destroy.
const TABLE: &[(&[&str], Form, &str)] = &[
    // Recursive or mass deletion and permission changes.
    (
        &["rm", "shred", "srm", "wipe", "unlink"],
        Mass(&["-r", "-R", "--recursive", "-d", "--dir"]),
        "deletes files in bulk or whole trees",
    ),
    (
        &["find"],
        Flags(&["-delete"]),
        "deletes every file it finds",
    ),
    (
        &["find"],
        Words(&[&["-ok", "rm"], &["-okdir", "rm"]]),
        "deletes every file it finds",
    ),
    (
        &["chmod", "chown", "chgrp", "setfacl", "chattr", "chcon"],
        Flags(&["-R", "--recursive"]),
        "changes the ownership or permissions of a whole tree",
    ),
    // Users and groups.
    (
        &[
            "useradd",
            "userdel",
            "usermod",
            "groupadd",
            "groupdel",
            "groupmod",
            "gpasswd",
            "passwd",
            "chpasswd",
            "chgpasswd",
            "chage",
            "adduser",
            "deluser",
            "addgroup",
            "delgroup",
            "newusers",
            "chsh",
            "chfn",
            "vipw",
            "vigr",
            "pwconv",
            "pwunconv",
            "grpconv",
            "grpunconv",
            "smbpasswd",
            "pdbedit",
        ],
        Any,
        "changes users, groups or passwords",
    ),
    // Package removal.
    (
        &["apt", "apt-get", "aptitude"],
        Words(&[&["remove"], &["purge"], &["autoremove"], &["autopurge"]]),
        "removes packages",
    ),
    (
        &["dnf", "yum", "microdnf", "tdnf"],
        Words(&[&["remove"], &["erase"], &["autoremove"]]),
        "removes packages",
    ),
    (
        &["zypper"],
        Words(&[&["remove"], &["rm"]]),
        "removes packages",
    ),
    (&["apk"], Words(&[&["del"]]), "removes packages"),
    (
        &["pip", "pip3", "pipx", "gem", "cargo", "brew", "flatpak"],
        Words(&[&["uninstall"]]),
        "removes packages",
    ),
    (
        &["npm", "pnpm", "yarn"],
        Words(&[&["uninstall"], &["remove"], &["rm"], &["un"], &["r"]]),
        "removes packages",
    ),
    (&["snap"], Words(&[&["remove"]]), "removes packages"),
    (
        &["dpkg"],
        Flags(&["-r", "-P", "--remove", "--purge"]),
        "removes packages",
    ),
    (&["rpm"], Flags(&["-e", "--erase"]), "removes packages"),
    (&["pacman"], Flags(&["-R", "--remove"]), "removes packages"),
    (
        &["helm"],
        Words(&[&["uninstall"], &["delete"], &["del"], &["un"]]),
        "removes a release and its resources",
    ),
    // Firewall flushes.
    (
        &[
            "iptables",
            "ip6tables",
            "iptables-legacy",
            "ip6tables-legacy",
            "iptables-nft",
            "ip6tables-nft",
            "ebtables",
            "arptables",
        ],
        Flags(&["-F", "--flush", "-X", "--delete-chain"]),
        "flushes firewall rules",
    ),
    (
        &["nft"],
        Words(&[&["flush"], &["delete", "table"]]),
        "flushes firewall rules",
    ),
    (
        &["ufw"],
        Words(&[&["reset"], &["disable"]]),
        "resets or disables the firewall",
    ),
    (
        &["ipset"],
        Words(&[&["destroy"], &["flush"], &["x"], &["-X"]]),
        "destroys firewall sets",
    ),
    // Partitions, volumes, pools.
    (
        &["parted"],
        Words(&[&["rm"], &["mklabel"], &["mktable"]]),
        "removes partitions",
    ),
    (
        &["sgdisk"],
        Flags(&[
            "-Z",
            "-z",
            "-d",
            "-o",
            "--zap-all",
            "--zap",
            "--delete",
            "--clear",
        ]),
        "removes partitions",
    ),
    (&["sfdisk"], Flags(&["--delete"]), "removes partitions"),
    (
        &[
            "wipefs",
            "lvremove",
            "vgremove",
            "pvremove",
            "lvreduce",
            "vgreduce",
            "blkdiscard",
        ],
        Any,
        "destroys a volume or its data",
    ),
    (
        &["mdadm"],
        Flags(&[
            "--remove",
            "--fail",
            "--stop",
            "--zero-superblock",
            "-r",
            "-f",
            "-S",
        ]),
        "takes a RAID array or member apart",
    ),
    (
        &["zfs"],
        Words(&[&["destroy"], &["rollback"]]),
        "destroys datasets or snapshots",
    ),
    (
        &["zpool"],
        Words(&[&["destroy"], &["labelclear"], &["detach"], &["remove"]]),
        "destroys a pool or takes a device out of it",
    ),
    (
        &["ceph"],
        Words(&[
            &["osd", "purge"],
            &["osd", "destroy"],
            &["osd", "rm"],
            &["osd", "pool", "delete"],
            &["osd", "pool", "rm"],
            &["fs", "rm"],
            &["fs", "fail"],
            &["auth", "del"],
            &["auth", "rm"],
            &["mon", "remove"],
            &["mon", "rm"],
        ]),
        "destroys Ceph daemons, pools or data",
    ),
    (
        &["rbd"],
        Words(&[
            &["rm"],
            &["remove"],
            &["trash"],
            &["purge"],
            &["snap", "rm"],
        ]),
        "deletes block images or snapshots",
    ),
    (
        &["pveceph"],
        Words(&[&["destroy"], &["purge"]]),
        "destroys Ceph daemons or pools",
    ),
    // Guests.
    (
        &["qm", "pct"],
        Words(&[&["destroy"]]),
        "destroys a guest and its disks",
    ),
    (
        &["qm", "pct"],
        Words(&[&["rollback"], &["delsnapshot"]]),
        "throws away a guest's state since a snapshot, or the snapshot",
    ),
    (
        &["pvesh"],
        Words(&[&["delete"]]),
        "deletes through the Proxmox API",
    ),
    (
        &["pvesm"],
        Words(&[&["free"], &["remove"]]),
        "deletes a volume or a storage",
    ),
    (
        &["virsh"],
        Words(&[
            &["undefine"],
            &["destroy"],
            &["vol-delete"],
            &["vol-wipe"],
            &["pool-delete"],
            &["snapshot-delete"],
        ]),
        "destroys a guest, its storage or its snapshots",
    ),
];

/// Is option `flag` given in `args` (a long option spelled out or
/// abbreviated, as getopt_long takes it, or a short one in any cluster)?
fn has_flag(args: &[crate::invocation::Arg<'_>], flag: &str) -> bool {
    args.iter().any(|a| {
        let text = a.as_str();
        if flag.starts_with("--") {
            return crate::invocation::long_matches_abbrev(text, flag);
        }
        if flag.len() != 2 {
            return text == flag
                || text
                    .strip_prefix(flag)
                    .is_some_and(|rest| rest.starts_with('='));
        }
        let c = flag.as_bytes()[1];
        text.len() > 1
            && text.as_bytes()[0] == b'-'
            && text.as_bytes()[1] != b'-'
            && text[1..].bytes().all(|b| b.is_ascii_alphanumeric())
            && text[1..].bytes().any(|b| b == c)
    })
}

/// Do the positional words contain `sequence`, in order and side by side?
fn has_words(args: &[crate::invocation::Arg<'_>], sequence: &[&str]) -> bool {
    let words: Vec<&str> = args
        .iter()
        .map(|a| a.as_str())
        .filter(|w| !w.starts_with('-') || sequence.contains(w))
        .collect();
    words.windows(sequence.len()).any(|w| w == sequence)
}

/// Operands that expand, or many of them.
fn is_mass(args: &[crate::invocation::Arg<'_>]) -> bool {
    let mut operands = 0;
    let mut after_options = false;
    for arg in args {
        let text = arg.as_str();
        if !after_options && text == "--" {
            after_options = true;
            continue;
        }
        if !after_options && text.starts_with('-') && text.len() > 1 && arg.is_literal() {
            continue;
        }
        if !arg.is_literal() {
            return true;
        }
        operands += 1;
    }
    operands > MASS_OPERANDS
}

/// The rows of [`TABLE`] that name each program, in order.
static ROWS: std::sync::LazyLock<crate::commands::FastMap<Vec<usize>>> =
    std::sync::LazyLock::new(|| {
        let mut rows: crate::commands::FastMap<Vec<usize>> = Default::default();
        for (index, (programs, _, _)) in TABLE.iter().enumerate() {
            for program in *programs {
                rows.entry(program).or_default().push(index);
            }
        }
        rows
    });

/// What `program args…` destroys, when it is one of the high-risk writes.
/// Only asked about commands that already write.
pub(crate) fn destroys(program: &str, args: &[crate::invocation::Arg<'_>]) -> Option<&'static str> {
    // Most writes are by programs the table does not name.
    let rows = ROWS.get(program)?;
    rows.iter().find_map(|&index| {
        let (_, form, reason) = TABLE.get(index)?;
        let hit = match form {
            Any => true,
            Words(sequences) => sequences.iter().any(|s| has_words(args, s)),
            Flags(flags) => flags.iter().any(|f| has_flag(args, f)),
            Mass(flags) => flags.iter().any(|f| has_flag(args, f)) || is_mass(args),
        };
        hit.then_some(*reason)
    })
}

#[cfg(test)]
mod tests {
    use super::destroys;
    use crate::invocation::Arg;

    #[test]
    fn table() {
        // (command, high risk)
        let rows: &[(&str, bool)] = &[
            ("rm -f /tmp/scratch", false),
            ("rm a b c", false),
            ("rm a b c d", true),
            ("rm -r /tmp/x", true),
            ("rm -fR /tmp/x", true),
            ("rm --recursive /tmp/x", true),
            ("unlink /tmp/x", false),
            ("chmod -R 755 /srv", true),
            ("chmod -Rv 755 /srv", true),
            ("chown --recursive a /srv", true),
            ("chmod 644 f", false),
            ("useradd bob", true),
            ("apt-get -y purge nginx", true),
            ("apt-get install nginx", false),
            ("dpkg -P nginx", true),
            ("dpkg -i x.deb", false),
            ("pacman -Rns x", true),
            ("pacman -Syu", false),
            (
                "ceph osd pool delete p p --yes-i-really-really-mean-it",
                true,
            ),
            ("ceph osd pool create p 32", false),
            ("pveceph osd destroy 3", true),
            ("qm destroy 100 --purge", true),
            ("qm stop 100", false),
            ("pvesh delete /nodes/pve/qemu/100", true),
            ("pvesh create /nodes/pve/qemu", false),
            ("zfs destroy tank/x@s", true),
            ("zfs snapshot tank/x@s", false),
            ("iptables -F", true),
            ("iptables -A INPUT -j DROP", false),
            ("systemctl restart nginx", false),
        ];
        for (line, expected) in rows {
            let mut words = line.split_whitespace();
            let program = words.next().unwrap_or_default();
            let args: Vec<Arg<'_>> = words.map(Arg::literal).collect();
            assert_eq!(destroys(program, &args).is_some(), *expected, "{line}");
        }
    }
}
