//! RPM-based package managers (`rpm`, `yum`, `dnf`, `zypper`), restart
//! checkers, alternatives, and the boot and system updaters.

use crate::commands::common::{bad, help_only, variable_guard};
use crate::invocation::Invocation;
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;
const H: Risk = Risk::HighWrite;
const L: Risk = Risk::LowWrite;

/// rpm long options that change packages, or run code of the caller's
/// choosing (macros expand `%(…)` shell commands; `--pipe` runs a program).
const RPM_WRITES: &[(&str, Risk)] = &[
    ("--install", M),
    ("--upgrade", M),
    ("--freshen", M),
    ("--reinstall", M),
    ("--erase", H),
    ("--import", M),
    ("--rebuilddb", M),
    ("--initdb", M),
    ("--setperms", M),
    ("--setugids", M),
    ("--setcaps", M),
    ("--restore", M),
    ("--addsign", M),
    ("--resign", M),
    ("--delsign", M),
];
const RPM_UNSAFE: &[&str] = &[
    "--eval",
    "--define",
    "--predefine",
    "--pipe",
    "--rcfile",
    "--macros",
    "--load",
];

/// `rpm -q…`, `-V…`, `-K` read; `-i`, `-U`, `-F`, `-e` change packages.
pub(super) fn rpm(inv: &Invocation<'_, '_>) -> Verdict {
    let mut reads = false;
    for arg in inv.option_args() {
        let text = arg.as_str();
        if let Some(long) = text.strip_prefix("--") {
            let head = text.split_once('=').map_or(text, |(h, _)| h);
            if let Some((_, risk)) = RPM_WRITES.iter().find(|(w, _)| *w == head) {
                return Verdict::write(*risk, format!("`{head}` changes packages"));
            }
            if RPM_UNSAFE.contains(&head) {
                return Verdict::unknown(format!("`{head}` can run commands"));
            }
            let _ = long;
            if matches!(
                head,
                "--query"
                    | "--verify"
                    | "--checksig"
                    | "--querytags"
                    | "--showrc"
                    | "--version"
                    | "--help"
                    | "--usage"
            ) {
                reads = true;
            }
            continue;
        }
        let Some(letters) = text.strip_prefix('-').filter(|l| !l.is_empty()) else {
            continue;
        };
        if letters.contains(['E', 'D']) {
            return Verdict::unknown("`-E`/`-D` expand macros that can run commands");
        }
        if letters.contains(['q', 'V', 'K']) {
            reads = true;
        } else if letters.contains(['i', 'U', 'F']) {
            return Verdict::write(M, "installs or upgrades packages");
        } else if letters.contains('e') {
            return Verdict::write(H, "`-e` erases packages");
        }
    }
    if !reads {
        return Verdict::unknown("no query or verify mode");
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

const YUM_VALUES: &[&str] = &[
    "-c",
    "-d",
    "-e",
    "-x",
    "-R",
    "--config",
    "--debuglevel",
    "--errorlevel",
    "--exclude",
    "--enablerepo",
    "--disablerepo",
    "--repo",
    "--repoid",
    "--releasever",
    "--installroot",
    "--setopt",
    "--disableplugin",
    "--enableplugin",
    "--downloaddir",
    "--destdir",
    "--color",
    "--forcearch",
    "--advisory",
    "--cve",
    "--bz",
    "--sec-severity",
    "--comment",
    "--rpmverbosity",
    "--disableexcludes",
    "--qf",
    "--queryformat",
    "--arch",
    "--latest-limit",
    "--whatprovides",
    "--whatrequires",
    "--repofrompath",
];
const YUM_READS: &[&str] = &[
    "list",
    "info",
    "search",
    "se",
    "provides",
    "whatprovides",
    "wp",
    "repolist",
    "repoinfo",
    "deplist",
    "repoquery",
    "rq",
    "check-update",
    "check-upgrade",
    "updateinfo",
    "list-updateinfo",
    "help",
    "version",
    "changelog",
    "needs-restarting",
    "grouplist",
    "groupinfo",
    "list-sec",
    "list-security",
    "info-sec",
    "resolvedep",
];
const YUM_WRITES: &[(&str, Risk)] = &[
    ("install", M),
    ("in", M),
    ("reinstall", M),
    ("localinstall", M),
    ("upgrade", M),
    ("update", M),
    ("up", M),
    ("upgrade-minimal", M),
    ("update-minimal", M),
    ("downgrade", M),
    ("distro-sync", H),
    ("distribution-synchronization", H),
    ("dsync", H),
    ("remove", H),
    ("rm", H),
    ("erase", H),
    ("autoremove", H),
    ("swap", M),
    ("groupinstall", M),
    ("groupremove", H),
    ("groupupdate", M),
    ("groupupgrade", M),
    ("mark", L),
    ("makecache", L),
    ("clean", L),
    ("config-manager", M),
    ("builddep", M),
    ("download", L),
    ("replace", M),
    ("localupdate", M),
    ("fs", M),
];
/// `OBJECT ACTION` subcommands whose listing actions read.
const YUM_GROUPS: &[&str] = &[
    "history",
    "module",
    "group",
    "groups",
    "advisory",
    "environment",
    "versionlock",
    "alias",
    "repo",
];

/// `yum`, `dnf`: listings and queries read; the rest change packages.
pub(super) fn yum(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    let mut words = Vec::new();
    let mut args = inv.args.iter();
    while let Some(arg) = args.next() {
        let t = arg.as_str();
        let head = t.split_once('=').map_or(t, |(h, _)| h);
        if matches!(
            head,
            "--setopt" | "-c" | "--config" | "--pluginpath" | "--pluginconfpath"
        ) || t.starts_with("-c")
        {
            return Verdict::unknown("configuration options can load plugins");
        }
        if matches!(head, "--installroot" | "--downloaddir" | "--destdir") {
            return Verdict::unknown(format!("`{head}` creates files under another root"));
        }
        if YUM_VALUES.contains(&t) {
            args.next();
            continue;
        }
        if !t.starts_with('-') && words.len() < 2 {
            words.push(t);
        }
    }
    let verdict = match words.as_slice() {
        [] if inv.has_word(&["--version", "-v", "-h"]) => Verdict::Read,
        [] => Verdict::unknown("no subcommand"),
        [sub, ..] if YUM_READS.contains(sub) => Verdict::Read,
        [group] if YUM_GROUPS.contains(group) => Verdict::Read,
        [group, action, ..] if YUM_GROUPS.contains(group) => {
            if matches!(
                *action,
                "list"
                    | "info"
                    | "summary"
                    | "provides"
                    | "package-list"
                    | "userinstalled"
                    | "stats"
            ) || *group == "history" && action.parse::<u64>().is_ok()
            {
                Verdict::Read
            } else {
                Verdict::write(
                    M,
                    format!("`{group} {action}` changes packages or settings"),
                )
            }
        }
        ["shell", ..] => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens the package shell",
        ),
        [sub, ..] => match YUM_WRITES.iter().find(|(w, _)| w == sub) {
            Some((_, risk)) => {
                Verdict::write(*risk, format!("subcommand `{sub}` changes packages"))
            }
            None => Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only")),
        },
    };
    if matches!(verdict, Verdict::Read) && inv.has_word(&["--downloadonly"]) {
        return Verdict::write(L, "`--downloadonly` downloads packages");
    }
    if matches!(verdict, Verdict::Read) {
        return variable_guard(inv).unwrap_or(verdict);
    }
    verdict
}

const ZYPPER_VALUES: &[&str] = &[
    "-R",
    "--root",
    "-D",
    "--reposd-dir",
    "-C",
    "--cache-dir",
    "--raw-cache-dir",
    "--solv-cache-dir",
    "--pkg-cache-dir",
    "-p",
    "--plus-repo",
    "-s",
    "--table-style",
    "--userdata",
    "--plus-content",
    "--installroot",
];
const ZYPPER_READS: &[&str] = &[
    "search",
    "se",
    "info",
    "if",
    "list-updates",
    "lu",
    "list-patches",
    "lp",
    "patches",
    "pch",
    "packages",
    "pa",
    "patterns",
    "pt",
    "products",
    "pd",
    "repos",
    "lr",
    "services",
    "ls",
    "locks",
    "ll",
    "what-provides",
    "wp",
    "patch-check",
    "pchk",
    "versioncmp",
    "vcmp",
    "targetos",
    "tos",
    "licenses",
    "ps",
    "needs-rebooting",
    "help",
    "search-packages",
    "patch-info",
    "pattern-info",
    "product-info",
    "system-architecture",
];

pub(super) fn zypper(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    let mut args = inv.args.iter();
    while let Some(arg) = args.next() {
        let t = arg.as_str();
        let head = t.split_once('=').map_or(t, |(h, _)| h);
        if matches!(head, "-c" | "--config" | "--gpg-auto-import-keys") {
            return Verdict::unknown(format!("`{head}` can change trust or configuration"));
        }
        if matches!(
            head,
            "-R" | "--root"
                | "--installroot"
                | "-C"
                | "--cache-dir"
                | "--raw-cache-dir"
                | "--solv-cache-dir"
                | "--pkg-cache-dir"
                | "-D"
                | "--reposd-dir"
        ) {
            return Verdict::unknown(format!("`{head}` creates files under another root"));
        }
        if ZYPPER_VALUES.contains(&t) {
            args.next();
            continue;
        }
        if t.starts_with('-') {
            continue;
        }
        if t == "shell" || t == "sh" {
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "opens the zypper shell",
            );
        }
        if ZYPPER_READS.contains(&t) {
            return variable_guard(inv).unwrap_or(Verdict::Read);
        }
        let risk = if matches!(t, "remove" | "rm" | "dist-upgrade" | "dup") {
            H
        } else {
            M
        };
        return Verdict::write(
            risk,
            format!("subcommand `{t}` changes packages or repositories"),
        );
    }
    if inv.has_word(&["-V", "--version"]) {
        return Verdict::Read;
    }
    Verdict::unknown("no subcommand")
}

/// `needrestart -b`/`-p`/`-o` or `-r l` only list what needs a restart.
pub(super) fn needrestart(inv: &Invocation<'_, '_>) -> Verdict {
    let mut lists = false;
    let mut args = inv.args.iter();
    while let Some(arg) = args.next() {
        let t = arg.as_str();
        match t {
            "-r" => match args.next().map(|a| a.as_str()) {
                Some("l") => lists = true,
                _ => return Verdict::write(M, "`-r` may restart services"),
            },
            "-b" | "-p" | "-o" => lists = true,
            "-v" | "-q" | "-n" | "-k" | "-l" | "-w" | "--help" | "--version" => {}
            "-c" | "-f" | "-u" | "-t" | "-m" => {
                args.next();
            }
            _ if t.starts_with("-r") => {
                if t != "-rl" {
                    return Verdict::write(M, "`-r` may restart services");
                }
                lists = true;
            }
            _ => return bad(t),
        }
    }
    if lists || help_only(inv) {
        Verdict::Read
    } else {
        Verdict::unknown("may restart services interactively")
    }
}

/// `debsums` checks; `-g` generates missing checksum files.
pub(super) fn debsums(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('g') || inv.has_long_abbrev("--generate") {
        return Verdict::write(L, "`-g` writes checksum files");
    }
    Verdict::Read
}

pub(super) fn unattended_upgrade(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-h") {
        return Verdict::Read;
    }
    Verdict::write(M, "installs upgrades")
}

/// `update-alternatives --display|--query|--list|--get-selections` read.
pub(super) fn update_alternatives(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &["--display", "--query", "--list", "--get-selections"];
    const NEUTRAL: &[&str] = &[
        "--altdir",
        "--admindir",
        "--instdir",
        "--root",
        "--quiet",
        "--verbose",
        "--debug",
        "--help",
        "--version",
    ];
    let mut reads = help_only(inv);
    let mut args = inv.option_args();
    while let Some(arg) = args.next() {
        let t = arg.as_str();
        if !t.starts_with("--") {
            continue;
        }
        let head = t.split_once('=').map_or(t, |(h, _)| h);
        if READS.contains(&head) {
            reads = true;
        } else if matches!(head, "--altdir" | "--admindir" | "--instdir" | "--root") {
            if !t.contains('=') {
                args.next();
            }
        } else if !NEUTRAL.contains(&head) {
            return Verdict::write(M, format!("`{head}` changes the alternatives"));
        }
    }
    if reads {
        variable_guard(inv).unwrap_or(Verdict::Read)
    } else {
        Verdict::unknown("no read-only action")
    }
}

/// Boot loader and initramfs updaters.
pub(super) fn boot_update(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(H, "rewrites the boot loader or initramfs")
}

/// `grub-mkconfig` without `-o` prints, but runs every `/etc/grub.d` script
/// and os-prober (which mounts partitions).
pub(super) fn grub_mkconfig(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    if inv.has_short('o') || inv.has_long_abbrev("--output") {
        return Verdict::write(H, "`-o` writes the boot configuration");
    }
    Verdict::unknown("runs the configuration generators")
}

pub(super) fn grub_editenv(inv: &Invocation<'_, '_>) -> Verdict {
    match inv
        .args
        .iter()
        .map(|a| a.as_str())
        .find(|t| !t.starts_with('-'))
    {
        Some(file) if inv.args.iter().any(|a| a.as_str() == "list") && file != "set" => {
            variable_guard(inv).unwrap_or(Verdict::Read)
        }
        _ if help_only(inv) => Verdict::Read,
        _ => Verdict::write(M, "changes the GRUB environment block"),
    }
}

/// System configuration updaters (`update-rc.d`, `update-ca-certificates`,
/// `locale-gen`, `grub-reboot`, …).
pub(super) fn config_update(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(M, "regenerates or changes system configuration")
}

/// Index rebuilders (`updatedb`, `update-pciids`, `mandb`, …).
pub(super) fn index_update(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(L, "rebuilds an index or database")
}
