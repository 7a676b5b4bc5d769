//! Volume managers and block layers: LVM, device mapper, LUKS, loop
//! devices, multipath, iSCSI.
use crate::commands::common::{mode_flags, sub_in};
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(super) fn pvscan(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long("--cache") || inv.has_short('a') || inv.has_long("--activate") {
        return Verdict::write(Risk::LowWrite, "updates the LVM cache or activates volumes");
    }
    Verdict::Read
}

pub(super) fn dmsetup(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "ls", "info", "table", "status", "deps", "version", "targets", "help",
        ],
    )
}

pub(super) fn cryptsetup(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "status",
            "luksDump",
            "isLuks",
            "luksUUID",
            "tcryptDump",
            "bitlkDump",
            "--version",
            "--help",
        ],
    )
}

pub(super) fn losetup(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty()
        || inv.args.iter().all(|a| {
            matches!(
                a.as_str(),
                "-l" | "-a" | "--list" | "--all" | "-J" | "--json" | "-n" | "--noheadings"
            ) || a.as_str().starts_with("-O")
                || a.as_str().starts_with("--output")
        })
    {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "attaches or detaches loop devices")
    }
}

pub(super) fn multipath(inv: &Invocation<'_, '_>) -> Verdict {
    mode_flags(
        inv,
        &["-ll", "-l", "-t", "-T"],
        &["-f", "-F", "-r", "-w", "-W", "-a"],
    )
}

pub(super) fn iscsiadm(inv: &Invocation<'_, '_>) -> Verdict {
    let writes = [
        "--login",
        "-l",
        "--logout",
        "-u",
        "--op",
        "-o",
        "--rescan",
        "-R",
        "--logoutall",
        "--loginall",
    ];
    if inv
        .args
        .iter()
        .any(|a| writes.contains(&a.as_str()) || a.as_str().starts_with("--op="))
    {
        return Verdict::write(Risk::MediumWrite, "logs in, out, or changes iSCSI records");
    }
    Verdict::Read
}

/// The LVM reporting commands (`lvs`, `vgs`, `pvs`, `*display`, `*scan`):
/// `--mknodes`, `--cache`, `--activate`/`-a`, `--notifydbus` change state.
pub(super) fn lvm_report(inv: &Invocation<'_, '_>) -> Verdict {
    let changes = inv.args.iter().find(|a| {
        let t = a.as_str();
        t.starts_with("--mknodes")
            || t.starts_with("--cache")
            || t.starts_with("--activate")
            || t.starts_with("--notifydbus")
            || t.starts_with("--refresh")
            || (inv.name.ends_with("scan")
                && (t == "-a" || t.starts_with("-a") && !t.starts_with("--")))
    });
    match changes {
        Some(a) => Verdict::write(
            Risk::LowWrite,
            format!("`{}` changes LVM state", a.as_str()),
        ),
        None if inv.args.iter().any(|a| a.may_be_option()) => {
            Verdict::unknown("an argument could expand into an option")
        }
        None => Verdict::Read,
    }
}

/// `blkid`: `-g` prunes and `-w`/`-c FILE` write its cache (`-c /dev/null`
/// does not).
pub(super) fn blkid(inv: &Invocation<'_, '_>) -> Verdict {
    let mut words = inv.args.iter().map(|a| a.as_str()).peekable();
    while let Some(w) = words.next() {
        match w {
            "-g" | "--garbage-collect" => {
                return Verdict::write(Risk::LowWrite, "`-g` prunes the cache");
            }
            "-w" | "-c" | "--cache-file" if words.peek() != Some(&"/dev/null") => {
                return Verdict::write(Risk::LowWrite, "writes the blkid cache");
            }
            _ if w.starts_with("--cache-file=") && w != "--cache-file=/dev/null" => {
                return Verdict::write(Risk::LowWrite, "writes the blkid cache");
            }
            _ => {}
        }
    }
    Verdict::Read
}
