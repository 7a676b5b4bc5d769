//! Archives and compressed files: listing, testing and printing to
//! standard output read; extracting, creating and compressing in place
//! write. Options that run programs (`--use-compress-program`,
//! `--rsh-command`, `--to-command`, `--checkpoint-action`, `--info-script`)
//! or write side files (`--index-file`, `--listed-incremental`) are unknown.

use std::borrow::Cow;

use crate::commands::common::{Globs, bad, walk_checked};
use crate::invocation::{Arg, ArgShape, Invocation};
use crate::options::{Options, Tok};
use crate::verdict::*;

const TAR: Options = Options {
    short_flags: "AcdrtuxBGhiJjkKlmMnoOpPRsSUvwWzZa",
    short_values: "bCfFgHIKLNTVX",
    long_flags: &[
        "--list",
        "--extract",
        "--get",
        "--create",
        "--append",
        "--update",
        "--catenate",
        "--concatenate",
        "--diff",
        "--compare",
        "--delete",
        "--test-label",
        "--verbose",
        "--gzip",
        "--gunzip",
        "--ungzip",
        "--bzip2",
        "--xz",
        "--lzma",
        "--lzip",
        "--lzop",
        "--zstd",
        "--compress",
        "--uncompress",
        "--auto-compress",
        "--to-stdout",
        "--wildcards",
        "--no-wildcards",
        "--anchored",
        "--no-anchored",
        "--ignore-case",
        "--no-ignore-case",
        "--exclude-vcs",
        "--exclude-caches",
        "--no-recursion",
        "--recursion",
        "--numeric-owner",
        "--full-time",
        "--utc",
        "--show-transformed-names",
        "--block-number",
        "--totals",
        "--ignore-zeros",
        "--force-local",
        "--absolute-names",
        "--null",
        "--no-null",
        "--verbatim-files-from",
        "--posix",
        "--old-archive",
        "--portability",
        "--show-defaults",
        "--help",
        "--usage",
        "--version",
        "--one-file-system",
        "--dereference",
        "--hard-dereference",
        "--keep-old-files",
        "--skip-old-files",
        "--overwrite",
        "--same-owner",
        "--no-same-owner",
        "--preserve-permissions",
        "--same-permissions",
        "--touch",
        "--sparse",
        "--interactive",
        "--confirmation",
        "--multi-volume",
        "--remove-files",
        "--acls",
        "--xattrs",
        "--selinux",
        "--no-acls",
        "--no-xattrs",
        "--no-selinux",
        "--seek",
        "--no-seek",
        "--unlink-first",
        "--recursive-unlink",
    ],
    long_values: &[
        "--file",
        "--directory",
        "--exclude",
        "--exclude-from",
        "--quoting-style",
        "--transform",
        "--xform",
        "--strip-components",
        "--occurrence",
        "--files-from",
        "--blocking-factor",
        "--record-size",
        "--format",
        "--warning",
        "--label",
        "--use-compress-program",
        "--rsh-command",
        "--rmt-command",
        "--to-command",
        "--index-file",
        "--info-script",
        "--new-volume-script",
        "--volno-file",
        "--listed-incremental",
        "--owner",
        "--group",
        "--mode",
        "--mtime",
        "--sort",
        "--suffix",
        "--newer",
        "--after-date",
        "--newer-mtime",
        "--tape-length",
    ],
    long_optional: &["--checkpoint", "--checkpoint-action", "--backup"],
    ..Options::GNU
};

/// Letters that take a value in tar's old `tar tvf FILE` spelling.
const OLD_STYLE_VALUES: &str = "bCfFgHIKLNTVX";

/// `tar tvf x.tar` is `tar -t -v -f x.tar`: options bundled in the first
/// word without a dash take their values from the next words, in order.
fn old_style<'a>(args: &[Arg<'a>]) -> Option<Vec<Arg<'a>>> {
    let first = args.first()?;
    let text = first.as_str();
    if !first.is_literal()
        || text.starts_with('-')
        || !text.bytes().all(|b| b.is_ascii_alphabetic())
    {
        return None;
    }
    let mut out = Vec::with_capacity(args.len() + text.len());
    let mut rest = args[1..].iter();
    for c in text.chars() {
        out.push(Arg {
            text: Cow::Owned(format!("-{c}")),
            raw: first.raw,
            shape: ArgShape::Literal,
        });
        if OLD_STYLE_VALUES.contains(c) {
            out.push(rest.next()?.clone());
        }
    }
    out.extend(rest.cloned());
    Some(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TarMode {
    None,
    Lists,
    Extracts,
    /// `-c`: creates an archive (of files it only reads).
    Creates,
    Writes,
}

pub(super) fn tar(inv: &Invocation<'_, '_>) -> Verdict {
    let converted = old_style(inv.args);
    let args: &[Arg<'_>] = converted.as_deref().unwrap_or(inv.args);
    let inv = Invocation::new(inv.name, args);
    let mut mode = TarMode::None;
    let mut to_stdout = false;
    let mut force_local = false;
    let mut remote = false;
    // `-f -` for every archive named: a created archive goes to stdout.
    let mut files_to_stdout = None;
    let verdict = walk_checked(&inv, &[&TAR], Globs::Refused, |tok| {
        let (short, long) = match *tok {
            Tok::Short { flag, .. } => (Some(flag), ""),
            Tok::Long { name, .. } => (None, name),
            _ => return None,
        };
        let value = match *tok {
            Tok::Short { value, .. } | Tok::Long { value, .. } => value,
            _ => None,
        };
        match (short, long) {
            (Some('t'), _) | (_, "--list") | (Some('d'), _) | (_, "--diff" | "--compare") => {
                mode = mode.max_with(TarMode::Lists);
            }
            (Some('x'), _) | (_, "--extract" | "--get") => mode = mode.max_with(TarMode::Extracts),
            (Some('c'), _) | (_, "--create") => mode = mode.max_with(TarMode::Creates),
            (Some('r' | 'u' | 'A'), _)
            | (
                _,
                "--append" | "--update" | "--catenate" | "--concatenate" | "--delete"
                | "--test-label",
            ) => {
                mode = TarMode::Writes;
            }
            (Some('O'), _) | (_, "--to-stdout") => to_stdout = true,
            (_, "--force-local") => force_local = true,
            (Some('f'), _) | (_, "--file") => {
                remote |=
                    value.is_some_and(|v| v.split('/').next().is_some_and(|h| h.contains(':')));
                let stdout = value.is_some_and(|v| matches!(v, "-" | "/dev/stdout" | "/dev/fd/1"));
                files_to_stdout = Some(files_to_stdout.unwrap_or(true) && stdout);
            }
            (Some('I' | 'F' | 'M' | 'g' | 'w'), _)
            | (
                _,
                "--use-compress-program"
                | "--rsh-command"
                | "--rmt-command"
                | "--to-command"
                | "--index-file"
                | "--info-script"
                | "--new-volume-script"
                | "--volno-file"
                | "--listed-incremental"
                | "--checkpoint-action"
                | "--multi-volume"
                | "--interactive"
                | "--confirmation"
                | "--backup"
                | "--remove-files",
            ) => {
                let name = short.map_or(long.to_string(), |c| format!("-{c}"));
                return Some(Verdict::unknown(format!(
                    "`{name}` runs a program, prompts or writes a side file"
                )));
            }
            _ => {}
        }
        None
    });
    if verdict != Verdict::Read {
        return verdict;
    }
    if remote && !force_local {
        return Verdict::unknown(
            "an archive named `host:file` is reached by running a remote shell",
        );
    }
    match mode {
        TarMode::Lists => Verdict::Read,
        TarMode::Extracts if to_stdout => Verdict::Read,
        // The archive of what it reads, written to standard output.
        TarMode::Creates if files_to_stdout == Some(true) => Verdict::Read,
        TarMode::None if inv.has_word(&["--help", "--version", "--usage", "--show-defaults"]) => {
            Verdict::Read
        }
        TarMode::Extracts => Verdict::write(Risk::MediumWrite, "extracts files"),
        TarMode::Creates | TarMode::Writes | TarMode::None => {
            Verdict::write(Risk::MediumWrite, "creates or changes an archive")
        }
    }
}

impl TarMode {
    fn max_with(self, other: TarMode) -> TarMode {
        let rank = |m: TarMode| match m {
            TarMode::None => 0,
            TarMode::Lists => 1,
            TarMode::Extracts => 2,
            TarMode::Creates => 3,
            TarMode::Writes => 4,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

const UNZIP: Options = Options {
    short_flags: "lvtzpcZqCMojnfuabLXKDVsUOaT",
    short_values: "dPxI",
    long_flags: &["--help", "--version"],
    ..Options::POSIX
};

/// `unzip -l|-v|-t|-z|-p|-c|-Z` lists, tests or prints; otherwise it extracts.
pub(super) fn unzip(inv: &Invocation<'_, '_>) -> Verdict {
    let mut reads = false;
    let verdict = walk_checked(inv, &[&UNZIP], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'M', .. } => Some(Verdict::interactive(
            InteractiveCategory::Pager,
            "`-M` pages the output through `more`",
        )),
        Tok::Short {
            flag: 'l' | 'v' | 't' | 'z' | 'p' | 'c' | 'Z',
            ..
        } => {
            reads = true;
            None
        }
        _ => None,
    });
    match verdict {
        Verdict::Read if reads || inv.has_word(&["--help", "--version"]) => Verdict::Read,
        Verdict::Read => Verdict::write(Risk::MediumWrite, "extracts files"),
        other => other,
    }
}

const ZIPINFO: Options = Options {
    short_flags: "12smlvhMtTz",
    short_values: "x",
    ..Options::POSIX
};

/// `zipinfo` lists (`-M` pages).
pub(super) fn zipinfo(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&ZIPINFO], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'M', .. } => Some(Verdict::interactive(
            InteractiveCategory::Pager,
            "`-M` pages the output",
        )),
        _ => None,
    })
}

const COMPRESSOR: Options = Options {
    short_flags: "cdfhklLnNqrtvVzeaPjJ0123456789",
    short_values: "SToMFCD",
    long_flags: &[
        "--stdout",
        "--to-stdout",
        "--decompress",
        "--uncompress",
        "--force",
        "--help",
        "--keep",
        "--list",
        "--license",
        "--no-name",
        "--name",
        "--quiet",
        "--recursive",
        "--test",
        "--verbose",
        "--version",
        "--fast",
        "--best",
        "--rsyncable",
        "--synchronous",
        "--extreme",
        "--no-progress",
        "--progress",
    ],
    long_values: &[
        "--suffix",
        "--threads",
        "--memlimit",
        "--format",
        "--check",
        "--output",
    ],
    ..Options::GNU
};

/// gzip, bzip2, xz, zstd, lz4: `-l`, `-t` and `-c` (to standard output)
/// read; anything else compresses or decompresses files in place.
pub(super) fn compressor(inv: &Invocation<'_, '_>) -> Verdict {
    let mut reads = false;
    let mut operands = 0;
    let verdict = walk_checked(inv, &[&COMPRESSOR], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'o', .. }
        | Tok::Long {
            name: "--output", ..
        } => Some(Verdict::write(Risk::LowWrite, "`-o` writes a file")),
        Tok::Short {
            flag: 'c' | 'l' | 't' | 'h' | 'V',
            ..
        }
        | Tok::Long {
            name:
                "--stdout" | "--to-stdout" | "--list" | "--test" | "--help" | "--version" | "--license",
            ..
        } => {
            reads = true;
            None
        }
        Tok::Operand { .. } => {
            operands += 1;
            None
        }
        _ => None,
    });
    match verdict {
        // `lz4 IN OUT` writes OUT.
        Verdict::Read if reads && !(inv.name.starts_with("lz4") && operands > 1) => Verdict::Read,
        Verdict::Read => Verdict::write(
            Risk::MediumWrite,
            "compresses or decompresses files in place",
        ),
        other => other,
    }
}

/// 7-Zip: `l` lists, `t` tests, `h` hashes, `i` and `b` report.
pub(super) fn seven_zip(inv: &Invocation<'_, '_>) -> Verdict {
    const SWITCHES: &[&str] = &[
        "-p",
        "-r",
        "-slt",
        "-ba",
        "-bb",
        "-bs",
        "-bd",
        "-bt",
        "-t",
        "-x",
        "-i",
        "-y",
        "-scs",
        "-scc",
        "-so",
        "-sns",
        "-sccUTF-8",
    ];
    let Some(command) = inv.args.first() else {
        return Verdict::Read;
    };
    if !command.is_literal() {
        return bad(command.raw);
    }
    if !matches!(command.as_str(), "l" | "t" | "h" | "i" | "b") {
        return Verdict::write(
            Risk::MediumWrite,
            format!("`{}` extracts or changes archives", command.as_str()),
        );
    }
    for arg in &inv.args[1..] {
        if arg.may_be_option() {
            return bad(arg.raw);
        }
        let text = arg.as_str();
        if text.starts_with('-') && !SWITCHES.iter().any(|s| text.starts_with(s)) {
            return bad(text);
        }
    }
    Verdict::Read
}

const CPIO: Options = Options {
    short_flags: "itvnmudbBcfrsSLV0",
    short_values: "FIEHMRCD",
    long_flags: &[
        "--extract",
        "--list",
        "--verbose",
        "--numeric-uid-gid",
        "--quiet",
        "--only-verify-crc",
        "--no-absolute-filenames",
        "--to-stdout",
        "--null",
        "--help",
        "--version",
    ],
    long_values: &[
        "--file",
        "--pattern-file",
        "--format",
        "--rsh-command",
        "--directory",
    ],
    ..Options::GNU
};

/// `cpio -t` lists (`-i --to-stdout` prints); other modes extract or create.
pub(super) fn cpio(inv: &Invocation<'_, '_>) -> Verdict {
    let mut lists = false;
    let verdict = walk_checked(inv, &[&CPIO], Globs::Refused, |tok| match tok {
        Tok::Long {
            name: "--rsh-command",
            ..
        }
        | Tok::Short {
            flag: 'M' | 'R', ..
        } => Some(Verdict::unknown(
            "runs a remote shell, prompts or changes owners",
        )),
        // `-F host:file` (and `-I`, `-O`) reach the archive through rsh.
        Tok::Short {
            flag: 'F' | 'I' | 'O',
            value: Some(file),
            ..
        }
        | Tok::Long {
            name: "--file",
            value: Some(file),
            ..
        } if !inv.has_long("--force-local")
            && file.split('/').next().is_some_and(|h| h.contains(':')) =>
        {
            Some(Verdict::unknown(
                "an archive named `host:file` is reached by running a remote shell",
            ))
        }
        Tok::Short { flag: 't', .. }
        | Tok::Long {
            name: "--list" | "--to-stdout",
            ..
        } => {
            lists = true;
            None
        }
        _ => None,
    });
    match verdict {
        Verdict::Read if lists => Verdict::Read,
        Verdict::Read => Verdict::write(Risk::MediumWrite, "extracts or creates an archive"),
        other => other,
    }
}

/// `lsinitramfs`/`lsinitrd` list an initramfs (`--unpack` extracts).
pub(super) fn lsinitramfs(inv: &Invocation<'_, '_>) -> Verdict {
    const OPTIONS: Options = Options {
        short_flags: "lhsm",
        short_values: "fk",
        long_flags: &["--long", "--help", "--size", "--mod"],
        long_values: &["--file", "--kver"],
        ..Options::GNU
    };
    walk_checked(inv, &[&OPTIONS], Globs::Refused, |_| None)
}

/// `unsquashfs -l|-ll|-s|-stat` list; otherwise it extracts.
pub(super) fn unsquashfs(inv: &Invocation<'_, '_>) -> Verdict {
    const LISTS: &[&str] = &[
        "-l", "-ll", "-lln", "-lls", "-lc", "-llc", "-s", "-stat", "-ls", "-lls", "-info", "-help",
        "-version",
    ];
    const HARMLESS: &[&str] = &[
        "-n",
        "-no-progress",
        "-q",
        "-quiet",
        "-d",
        "-dest",
        "-o",
        "-offset",
        "-p",
        "-processors",
    ];
    let mut lists = false;
    for arg in inv.args {
        let text = arg.as_str();
        if arg.may_be_option() {
            return bad(arg.raw);
        }
        if LISTS.contains(&text) {
            lists = true;
        } else if text.starts_with('-') && !HARMLESS.contains(&text) {
            return bad(text);
        }
    }
    if lists {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "extracts the filesystem")
    }
}
