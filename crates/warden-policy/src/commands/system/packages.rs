//! Debian packages: `apt`, `apt-get`, `aptitude`, `apt-cache`, `apt-mark`,
//! `apt-key`, `dpkg` and friends.

use crate::commands::common::{bad, first_pos, help_only, variable_guard};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;
const H: Risk = Risk::HighWrite;
const L: Risk = Risk::LowWrite;

const APT_LONG_FLAGS: &[&str] = &[
    "--download-only",
    "--fix-broken",
    "--ignore-missing",
    "--fix-missing",
    "--no-download",
    "--quiet",
    "--simulate",
    "--just-print",
    "--dry-run",
    "--recon",
    "--no-act",
    "--assume-yes",
    "--yes",
    "--assume-no",
    "--show-upgraded",
    "--verbose-versions",
    "--compile",
    "--build",
    "--ignore-hold",
    "--with-new-pkgs",
    "--no-upgrade",
    "--only-upgrade",
    "--allow-downgrades",
    "--allow-remove-essential",
    "--allow-change-held-packages",
    "--force-yes",
    "--print-uris",
    "--purge",
    "--reinstall",
    "--list-cleanup",
    "--trivial-only",
    "--no-remove",
    "--auto-remove",
    "--autoremove",
    "--only-source",
    "--diff-only",
    "--dsc-only",
    "--tar-only",
    "--arch-only",
    "--indep-only",
    "--allow-unauthenticated",
    "--allow-insecure-repositories",
    "--allow-releaseinfo-change",
    "--show-progress",
    "--install-recommends",
    "--no-install-recommends",
    "--install-suggests",
    "--no-install-suggests",
    "--fix-policy",
    "--help",
    "--version",
    "--installed",
    "--upgradable",
    "--upgradeable",
    "--all-versions",
    "--manual-installed",
    "--full",
    "--names-only",
    "--no-all-versions",
    "--recurse",
    "--no-pre-depends",
    "--no-depends",
    "--no-recommends",
    "--no-suggests",
    "--no-conflicts",
    "--no-breaks",
    "--no-replaces",
    "--no-enhances",
    "--important",
    "--implicit",
    "--no-generate",
    "--all-names",
];

const APT_LONG_VALUES: &[&str] = &[
    "--host-architecture",
    "--build-profiles",
    "--default-release",
    "--target-release",
    "--with-source",
    "--config-file",
    "--option",
    "--pkg-cache",
    "--src-cache",
    "--color",
];

const APT: Options = Options {
    short_flags: "qysdfmuvVhbaniDKRg",
    short_values: "cotp",
    short_optional: "",
    long_flags: APT_LONG_FLAGS,
    long_values: APT_LONG_VALUES,
    long_optional: &[],
    style: Style::Gnu,
};

/// `apt-get -a ARCH` takes a value where `apt show -a` is a flag.
const APT_GET: Options = Options {
    short_flags: "qysdfmuvVhbniDKR",
    short_values: "cotpa",
    short_optional: "",
    long_flags: APT_LONG_FLAGS,
    long_values: APT_LONG_VALUES,
    long_optional: &[],
    style: Style::Gnu,
};

const APT_READS: &[&str] = &[
    "list",
    "search",
    "show",
    "showsrc",
    "policy",
    "depends",
    "rdepends",
    "help",
    "indextargets",
    "moo",
];

/// Subcommands that `-s` / `--simulate` turns into a dry run.
const APT_SIMULATED: &[&str] = &[
    "install",
    "remove",
    "purge",
    "upgrade",
    "dist-upgrade",
    "full-upgrade",
    "autoremove",
    "autopurge",
    "reinstall",
    "build-dep",
    "satisfy",
    "markauto",
    "unmarkauto",
];

const APT_WRITES: &[(&str, Risk)] = &[
    ("install", M),
    ("reinstall", M),
    ("upgrade", M),
    ("satisfy", M),
    ("build-dep", M),
    ("markauto", L),
    ("unmarkauto", L),
    ("remove", H),
    ("purge", H),
    ("autoremove", H),
    ("autopurge", H),
    ("dist-upgrade", H),
    ("full-upgrade", H),
    ("update", L),
    ("clean", L),
    ("autoclean", L),
    ("source", L),
    ("download", L),
    ("check", L),
    ("changelog", L),
];

/// `apt`/`apt-get`: listings read; `-s` simulates the package changes.
pub(super) fn apt(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = if inv.name == "apt" { &APT } else { &APT_GET };
    if help_only(inv) {
        return Verdict::Read;
    }
    let (mut simulate, mut config) = (false, false);
    for tok in spec.walk(inv.args) {
        match tok {
            Tok::Short { flag: 's', .. }
            | Tok::Long {
                name:
                    "--simulate" | "--just-print" | "--dry-run" | "--recon" | "--no-act"
                    | "--print-uris",
                ..
            } => simulate = true,
            Tok::Short {
                flag: 'o' | 'c', ..
            }
            | Tok::Long {
                name: "--option" | "--config-file",
                ..
            } => config = true,
            _ => {}
        }
    }
    let verdict = match first_pos(spec, inv.args) {
        Some((_, sub)) if APT_READS.contains(&sub) => Verdict::Read,
        Some((_, sub)) if simulate && APT_SIMULATED.contains(&sub) => Verdict::Read,
        Some((_, "edit-sources")) => {
            return Verdict::interactive_writer(
                InteractiveCategory::Pager,
                "`edit-sources` opens an editor",
            );
        }
        Some((_, sub)) => match APT_WRITES.iter().find(|(w, _)| *w == sub) {
            Some((_, risk)) => {
                return Verdict::write(*risk, format!("subcommand `{sub}` changes packages"));
            }
            None => Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only")),
        },
        None if inv.has_short('v') || inv.has_short('h') => Verdict::Read,
        None => Verdict::unknown("no subcommand"),
    };
    if let Some(word) = spec.walk(inv.args).find_map(|t| match t {
        Tok::Unknown { text: w, .. } => Some(w),
        _ => None,
    }) {
        return bad(word);
    }
    if config && matches!(verdict, Verdict::Read) {
        return Verdict::unknown("`-o`/`-c` configuration can add hooks");
    }
    if matches!(verdict, Verdict::Read) {
        return variable_guard(inv).unwrap_or(verdict);
    }
    verdict
}

/// `aptitude` without a command is a full-screen package manager.
pub(super) fn aptitude(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &["search", "show", "versions", "why", "why-not", "help"];
    let sub = inv
        .args
        .iter()
        .map(|a| a.as_str())
        .find(|t| !t.starts_with('-'));
    match sub {
        None if help_only(inv) => Verdict::Read,
        None => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens the full-screen package manager",
        ),
        Some(sub) if READS.contains(&sub) => {
            if inv.option_args().any(|a| a.as_str().starts_with("-o")) {
                return Verdict::unknown("`-o` configuration can add hooks");
            }
            variable_guard(inv).unwrap_or(Verdict::Read)
        }
        Some(sub) => Verdict::write(M, format!("subcommand `{sub}` changes packages")),
    }
}

const APT_CACHE: Options = Options {
    short_flags: "qifagnhv",
    short_values: "psco",
    short_optional: "",
    long_flags: APT_LONG_FLAGS,
    long_values: APT_LONG_VALUES,
    long_optional: &[],
    style: Style::Gnu,
};

/// Everything but `gencaches` only reads the package cache.
pub(super) fn apt_cache(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "show",
        "showpkg",
        "showsrc",
        "search",
        "policy",
        "depends",
        "rdepends",
        "pkgnames",
        "dotty",
        "xvcg",
        "stats",
        "dump",
        "dumpavail",
        "unmet",
        "madison",
        "help",
    ];
    // `-o`/`-c` can point the cache files anywhere; apt-cache rewrites them.
    let configures = APT_CACHE.walk(inv.args).any(|t| {
        matches!(
            t,
            Tok::Short {
                flag: 'o' | 'c' | 'p' | 's',
                ..
            } | Tok::Long {
                name: "--option" | "--config-file" | "--pkg-cache" | "--src-cache",
                ..
            }
        )
    });
    if let Some(word) = crate::commands::common::first_bad(&APT_CACHE, inv.args) {
        return bad(word);
    }
    match first_pos(&APT_CACHE, inv.args) {
        Some((_, "gencaches")) => Verdict::write(L, "`gencaches` rebuilds the package cache"),
        Some(_) if configures => Verdict::unknown("`-o`/`-c` can point the caches anywhere"),
        Some((_, sub)) if READS.contains(&sub) => Verdict::Read,
        Some((_, sub)) => {
            Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only"))
        }
        None if help_only(inv) || inv.has_short('v') || inv.has_short('h') => Verdict::Read,
        None => Verdict::unknown("no subcommand"),
    }
}

/// Simple `PROGRAM [options] SUBCOMMAND` package tools: options are
/// skipped (`values` take one), the subcommand decides.
fn by_subcommand(
    inv: &Invocation<'_, '_>,
    values: &[&str],
    reads: &[&str],
    what: &str,
    risk: Risk,
) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    let mut args = inv.args.iter();
    while let Some(arg) = args.next() {
        let t = arg.as_str();
        if values.contains(&t) {
            args.next();
            continue;
        }
        if t.starts_with('-') {
            continue;
        }
        if reads.contains(&t) {
            return variable_guard(inv).unwrap_or(Verdict::Read);
        }
        return Verdict::write(risk, format!("subcommand `{t}` {what}"));
    }
    Verdict::unknown("no subcommand")
}

pub(super) fn apt_mark(inv: &Invocation<'_, '_>) -> Verdict {
    by_subcommand(
        inv,
        &["-f", "--file", "-o", "-c", "--option", "--config-file"],
        &[
            "showhold",
            "showheld",
            "showmanual",
            "showauto",
            "showinstall",
            "showremove",
            "showpurge",
            "help",
        ],
        "changes package marks",
        L,
    )
}

pub(super) fn apt_key(inv: &Invocation<'_, '_>) -> Verdict {
    by_subcommand(
        inv,
        &["--keyring"],
        &[
            "list",
            "finger",
            "fingerprint",
            "export",
            "exportall",
            "help",
        ],
        "changes trusted keys",
        M,
    )
}

pub(super) fn apt_file(inv: &Invocation<'_, '_>) -> Verdict {
    by_subcommand(
        inv,
        &[
            "-a",
            "--architecture",
            "-c",
            "--cache",
            "-D",
            "-I",
            "--index-names",
            "-o",
            "--option",
        ],
        &["search", "find", "list", "show", "help"],
        "changes the file index",
        L,
    )
}

pub(super) fn apt_config(inv: &Invocation<'_, '_>) -> Verdict {
    by_subcommand(inv, &["-c", "-o"], &["dump", "shell"], "is not known", M)
}

pub(super) fn add_apt_repository(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-L" || a.as_str() == "--list") {
        return Verdict::Read;
    }
    Verdict::write(M, "changes package sources")
}

/// dpkg's read-only actions.
const DPKG_READS: &[&str] = &[
    "-l",
    "--list",
    "-L",
    "--listfiles",
    "-s",
    "--status",
    "-S",
    "--search",
    "-p",
    "--print-avail",
    "-c",
    "--contents",
    "-I",
    "--info",
    "-f",
    "--field",
    "--get-selections",
    "--print-architecture",
    "--print-foreign-architectures",
    "-C",
    "--audit",
    "-V",
    "--verify",
    "--compare-versions",
    "--yet-to-unpack",
    "--predep-package",
    "--help",
    "--force-help",
    "--version",
    "-W",
    "--show",
    "--fsys-tarfile",
    "--ctrl-tarfile",
];

/// dpkg's actions that change the system (and dpkg-deb's that write files).
const DPKG_WRITES: &[(&str, Risk)] = &[
    ("-i", M),
    ("--install", M),
    ("--unpack", M),
    ("--configure", M),
    ("--triggers-only", M),
    ("-r", H),
    ("--remove", H),
    ("-P", H),
    ("--purge", H),
    ("--update-avail", L),
    ("--merge-avail", L),
    ("-A", L),
    ("--record-avail", L),
    ("--forget-old-unavail", L),
    ("--clear-avail", L),
    ("--set-selections", M),
    ("--clear-selections", M),
    ("--add-architecture", M),
    ("--remove-architecture", M),
    ("-x", L),
    ("--extract", L),
    ("-X", L),
    ("--vextract", L),
    ("-R", L),
    ("--raw-extract", L),
    ("-e", L),
    ("--control", L),
    ("-b", L),
    ("--build", L),
    ("--pre-invoke", M),
    ("--post-invoke", M),
    ("--log", L),
];

/// Options that change neither what dpkg does nor whether it writes.
const DPKG_NEUTRAL: &[&str] = &[
    "--admindir",
    "--root",
    "--instdir",
    "--no-pager",
    "--debug",
    "-D",
    "--verify-format",
    "--showformat",
    "--no-act",
    "--dry-run",
    "--simulate",
    "--status-fd",
    "--abort-after",
];

/// `dpkg`, `dpkg-deb`: read when only read-only actions are given.
pub(super) fn dpkg(inv: &Invocation<'_, '_>) -> Verdict {
    let mut reads = false;
    for arg in inv.option_args() {
        let text = arg.as_str();
        if !text.starts_with('-') || text == "-" {
            continue;
        }
        let head = text.split_once('=').map_or(text, |(h, _)| h);
        // `-Dh`, `-l` + glued pattern are not used; match the option word.
        let short = if head.starts_with("--") {
            head
        } else {
            head.get(..2).unwrap_or(head)
        };
        if let Some((_, risk)) = DPKG_WRITES.iter().find(|(w, _)| *w == short) {
            return Verdict::write(*risk, format!("`{short}` changes packages or writes files"));
        }
        if DPKG_READS.contains(&short)
            || short.starts_with("--assert-")
            || short.starts_with("--validate-")
        {
            reads = true;
        } else if !DPKG_NEUTRAL.contains(&short)
            && !short.starts_with("--force-")
            && !short.starts_with("--no-force-")
            && !short.starts_with("--refuse-")
        {
            return bad(text);
        }
    }
    if !reads {
        return Verdict::unknown("no read-only action");
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

/// `dpkg-divert --list`, `dpkg-statoverride --list` read.
pub(super) fn dpkg_list_only(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv)
        || inv
            .args
            .iter()
            .any(|a| matches!(a.as_str(), "--list" | "--listpackage" | "--truename"))
            && !inv
                .args
                .iter()
                .any(|a| matches!(a.as_str(), "--add" | "--remove" | "--rename" | "--update"))
    {
        return variable_guard(inv).unwrap_or(Verdict::Read);
    }
    Verdict::write(M, "changes diversions or overrides")
}
