//! File writes: creating, copying, moving, deleting, changing owners and
//! modes. `tee` without files and `dd` into nothing only read.

use crate::commands::common::{Globs, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

/// Creates something easily undone (a file, a directory).
pub(super) fn touch(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(Risk::LowWrite, "creates files or directories")
}

/// Changes files that matter; recoverable.
pub(super) fn medium(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "changes files")
}

/// Deletes the files it names: a medium write, raised to high for
/// recursion, globs and long lists by `commands::destroys`.
pub(super) fn delete(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "deletes files")
}

const MKTEMP: Options = Options {
    short_flags: "duqt",
    short_values: "p",
    long_flags: &["--directory", "--dry-run", "--quiet", "--help", "--version"],
    long_values: &["--suffix"],
    long_optional: &["--tmpdir"],
    ..Options::GNU
};

/// `mktemp -u` (`--dry-run`) only prints a name; otherwise it creates the
/// file or directory.
pub(super) fn mktemp(inv: &Invocation<'_, '_>) -> Verdict {
    let mut dry_run = false;
    let verdict = walk_checked(inv, &[&MKTEMP], Globs::Refused, |tok| {
        if matches!(
            tok,
            Tok::Short { flag: 'u', .. }
                | Tok::Long {
                    name: "--dry-run",
                    ..
                }
        ) {
            dry_run = true;
        }
        None
    });
    match verdict {
        Verdict::Read if dry_run || help_only(inv) => Verdict::Read,
        Verdict::Read => Verdict::write(Risk::LowWrite, "creates a file or directory"),
        other => other,
    }
}

fn help_only(inv: &Invocation<'_, '_>) -> bool {
    inv.args.len() == 1
        && inv
            .args
            .iter()
            .all(|a| matches!(a.as_str(), "--help" | "--version"))
}

const TEE: Options = Options {
    short_flags: "aip",
    long_flags: &["--append", "--ignore-interrupts", "--help", "--version"],
    long_optional: &["--output-error"],
    ..Options::GNU
};

/// `tee FILE…` writes its input to the files; with none it only copies
/// standard input to standard output.
pub(super) fn tee(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&TEE], Globs::Refused, |tok| match tok {
        Tok::Operand { text, .. } if !is_sink(text) => Some(Verdict::write(
            Risk::MediumWrite,
            "writes its input to files",
        )),
        _ => None,
    })
}

fn is_sink(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/fd/1" | "/dev/fd/2"
    )
}

/// The operands dd knows (`KEY=VALUE`).
const DD_KEYS: &[&str] = &[
    "if", "of", "bs", "ibs", "obs", "cbs", "count", "skip", "seek", "conv", "iflag", "oflag",
    "status", "iseek", "oseek",
];

/// `dd if=FILE [bs= count= skip= status=]` with no `of=` (or `of=/dev/null`)
/// reads; anything it writes into is a write.
pub(super) fn dd(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    let mut input = false;
    for arg in inv.args {
        if !arg.is_literal() {
            return Verdict::unknown(format!("`{}` comes from an expansion", arg.raw));
        }
        let Some((key, value)) = arg.as_str().split_once('=') else {
            return Verdict::unknown(format!("unknown operand `{}`", arg.raw));
        };
        if !DD_KEYS.contains(&key) {
            return Verdict::unknown(format!("unknown operand `{key}=`"));
        }
        match key {
            "of" if !is_sink(value) => {
                return Verdict::write(Risk::HighWrite, format!("`of={value}` writes a file"));
            }
            "if" => input = true,
            _ => {}
        }
    }
    if input {
        Verdict::Read
    } else {
        Verdict::interactive(InteractiveCategory::InteractiveRepl, "reads standard input")
    }
}
