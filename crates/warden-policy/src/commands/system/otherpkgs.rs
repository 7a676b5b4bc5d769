//! Package managers beyond the distribution's own: Alpine `apk`, `snap`,
//! and the language tools `pip` and `npm`. Each reads only with the
//! subcommands and options listed.

use crate::commands::common::{Globs, bad, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

/// The subcommand words of `inv` (operands, in order) after a strict walk
/// with `sets`, or the refusal of the walk.
fn words<'i>(inv: &Invocation<'i, '_>, sets: &[&Options]) -> Result<Vec<&'i str>, Box<Verdict>> {
    let mut words = Vec::new();
    let verdict = walk_checked(inv, sets, Globs::Refused, |tok| {
        if let Tok::Operand { text, .. } = tok {
            words.push(*text);
        }
        None
    });
    match verdict {
        Verdict::Read => Ok(words),
        refused => Err(Box::new(refused)),
    }
}

/// apk's options; not `--root`, `--keys-dir`, `--repositories-file`,
/// `--cache-dir` or `--allow-untrusted`.
const APK: Options = Options {
    short_flags: "hqvaLRdwWPsreuIoO",
    short_values: "X",
    long_flags: &[
        "--help",
        "--quiet",
        "--verbose",
        "--version",
        "--no-cache",
        "--no-network",
        "--installed",
        "--available",
        "--upgradable",
        "--upgradeable",
        "--orphaned",
        "--all",
        "--contents",
        "--depends",
        "--rdepends",
        "--provides",
        "--description",
        "--size",
        "--webpage",
        "--license",
        "--exact",
        "--origin",
        "--system",
        "--backup",
        "--check-permissions",
        "--packages",
        "--recursive",
        "--who-owns",
        "--install-if",
        "--rinstall-if",
        "--replaces",
        "--triggers",
        "--has-origin",
    ],
    long_values: &["--repository", "--arch"],
    ..Options::GNU
};

pub(super) fn apk(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "info", "list", "search", "policy", "stats", "dot", "version", "audit",
    ];
    match words(inv, &[&APK]) {
        Err(refused) => *refused,
        Ok(words) => match words.first() {
            Some(sub) if READS.contains(sub) => Verdict::Read,
            Some(sub) => Verdict::unknown(format!("`apk {sub}` is not known to be read-only")),
            None if inv.has_word(&["--help", "-h", "--version", "-V"]) => Verdict::Read,
            None => Verdict::unknown("no subcommand"),
        },
    }
}

const SNAP: Options = Options {
    short_flags: "h",
    short_values: "n",
    long_flags: &[
        "--help",
        "--all",
        "--verbose",
        "--abs-time",
        "--unicode",
        "--color",
        "--global",
        "--private",
        "--narrow",
        "--disabled",
    ],
    long_values: &["--channel", "--revision", "--interface", "--section"],
    long_optional: &["--unicode", "--color"],
    ..Options::GO
};

/// `snap list|info|find|…` read; `snap logs -f` follows the journal.
pub(super) fn snap(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "list",
        "info",
        "find",
        "version",
        "connections",
        "services",
        "changes",
        "change",
        "tasks",
        "interfaces",
        "warnings",
        "model",
        "known",
        "saved",
        "aliases",
        "help",
        "logs",
    ];
    const LOGS: Options = Options {
        short_flags: "f",
        long_flags: &["--follow"],
        ..Options::GO
    };
    let words = match words(inv, &[&SNAP, &LOGS]) {
        Ok(words) => words,
        Err(refused) => return *refused,
    };
    match words.first() {
        None if inv.args.is_empty() || inv.has_word(&["--help", "-h"]) => Verdict::Read,
        None => Verdict::unknown("no subcommand"),
        Some(&"logs") if inv.has_short('f') || inv.has_long("--follow") => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`snap logs -f` follows the logs until interrupted",
        ),
        Some(sub) if *sub != "logs" && (inv.has_short('f') || inv.has_long("--follow")) => {
            bad("-f")
        }
        Some(sub) if READS.contains(sub) => Verdict::Read,
        Some(sub) => Verdict::unknown(format!("`snap {sub}` is not known to be read-only")),
    }
}

/// pip's general options; not `--log`, `--cache-dir`, `--src`, `--target`
/// nor `--exists-action`.
const PIP: Options = Options {
    short_flags: "hvqVlofe",
    long_flags: &[
        "--help",
        "--verbose",
        "--quiet",
        "--version",
        "--isolated",
        "--no-input",
        "--no-cache-dir",
        "--disable-pip-version-check",
        "--no-color",
        "--require-virtualenv",
        "--outdated",
        "--uptodate",
        "--editable",
        "--local",
        "--user",
        "--pre",
        "--not-required",
        "--exclude-editable",
        "--include-editable",
        "--all",
        "--files",
    ],
    long_values: &[
        "--timeout",
        "--retries",
        "--proxy",
        "--index-url",
        "--extra-index-url",
        "--format",
        "--path",
        "--exclude",
        "--python",
    ],
    ..Options::GNU
};

pub(super) fn pip(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "list", "show", "freeze", "check", "help", "debug", "inspect",
    ];
    match words(inv, &[&PIP]) {
        Err(refused) => *refused,
        Ok(words) => match words.first() {
            Some(sub) if READS.contains(sub) => Verdict::Read,
            Some(sub) => Verdict::unknown(format!("`pip {sub}` is not known to be read-only")),
            None if inv.has_word(&["--version", "-V", "--help", "-h"]) => Verdict::Read,
            None => Verdict::unknown("no subcommand"),
        },
    }
}

/// npm's options that only select what to show; not `--prefix`,
/// `--userconfig`, `--globalconfig`, `--cache` or `--logs-dir`.
const NPM: Options = Options {
    short_flags: "gahvlsq",
    long_flags: &[
        "--production",
        "--link",
        "--unicode",
        "--help",
        "--version",
        "--silent",
        "--quiet",
        "--offline",
        "--prefer-offline",
    ],
    long_values: &[
        "--depth",
        "--registry",
        "--omit",
        "--include",
        "--workspace",
    ],
    long_optional: &[
        "--depth",
        "--json",
        "--all",
        "--long",
        "--parseable",
        "--global",
    ],
    ..Options::GNU
};

pub(super) fn npm(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "ls", "list", "la", "ll", "view", "info", "show", "v", "outdated", "help", "search",
        "root", "prefix", "bin", "explain", "why", "query", "fund",
    ];
    match words(inv, &[&NPM]) {
        Err(refused) => *refused,
        Ok(words) => match words.as_slice() {
            [sub, ..] if READS.contains(sub) => Verdict::Read,
            ["audit"] => Verdict::Read,
            ["config" | "c", "get" | "list" | "ls", ..] => Verdict::Read,
            [sub, ..] => Verdict::unknown(format!("`npm {sub}` is not known to be read-only")),
            [] if inv.has_word(&["--version", "-v", "--help", "-h"]) => Verdict::Read,
            [] => Verdict::unknown("no subcommand"),
        },
    }
}

const FLATPAK: Options = Options {
    short_flags: "hvd",
    long_flags: &[
        "--help",
        "--verbose",
        "--version",
        "--user",
        "--system",
        "--app",
        "--runtime",
        "--all",
        "--show-details",
        "--show-ref",
        "--show-commit",
        "--show-origin",
        "--show-size",
        "--show-metadata",
        "--show-permissions",
        "--show-location",
        "--show-runtime",
        "--show-sdk",
        "--show-extensions",
        "--show-disabled",
    ],
    long_values: &[
        "--columns",
        "--arch",
        "--installation",
        "--since",
        "--until",
    ],
    ..Options::GNU
};

/// `flatpak list|info|remotes|remote-ls|history|search` read.
pub(super) fn flatpak(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "list",
        "info",
        "remotes",
        "remote-ls",
        "remote-info",
        "history",
        "search",
        "ps",
        "documents",
        "permissions",
        "permission-show",
    ];
    match words(inv, &[&FLATPAK]) {
        Err(refused) => *refused,
        Ok(words) => match words.first() {
            Some(sub) if READS.contains(sub) => Verdict::Read,
            Some(sub) => Verdict::unknown(format!("`flatpak {sub}` is not known to be read-only")),
            None if inv.has_word(&["--version", "--help", "-h"]) => Verdict::Read,
            None => Verdict::unknown("no subcommand"),
        },
    }
}
