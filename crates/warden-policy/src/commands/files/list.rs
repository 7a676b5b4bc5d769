//! Programs that list or name files without reading them: ls, stat, du, df,
//! tree, realpath, which, …

use crate::commands::common::{Globs, read_rule, walk_checked};
use crate::options::{Options, Tok};
use crate::verdict::*;

const LS: Options = Options {
    short_flags: "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    short_values: "ITw",
    long_flags: &[
        "--all",
        "--almost-all",
        "--author",
        "--escape",
        "--ignore-backups",
        "--directory",
        "--dired",
        "--file-type",
        "--full-time",
        "--group-directories-first",
        "--no-group",
        "--human-readable",
        "--si",
        "--dereference-command-line",
        "--dereference-command-line-symlink-to-dir",
        "--inode",
        "--kibibytes",
        "--dereference",
        "--literal",
        "--numeric-uid-gid",
        "--hide-control-chars",
        "--show-control-chars",
        "--quote-name",
        "--reverse",
        "--recursive",
        "--size",
        "--context",
        "--zero",
        "--help",
        "--version",
    ],
    long_values: &[
        "--block-size",
        "--format",
        "--hide",
        "--indicator-style",
        "--ignore",
        "--quoting-style",
        "--sort",
        "--time",
        "--time-style",
        "--tabsize",
        "--width",
    ],
    long_optional: &["--color", "--colour", "--classify", "--hyperlink"],
    ..Options::GNU
};
read_rule!(ls, LS, Globs::Harmless);

const TREE: Options = Options {
    short_flags: "adlfxRqNQpugshDFvtcUrACSnXJiV",
    short_values: "LPIoHT",
    long_flags: &[
        "--gitignore",
        "--ignore-case",
        "--matchdirs",
        "--metafirst",
        "--prune",
        "--info",
        "--noreport",
        "--si",
        "--du",
        "--inodes",
        "--device",
        "--dirsfirst",
        "--filesfirst",
        "--nolinks",
        "--fromfile",
        "--fromtabfile",
        "--fflinks",
        "--help",
        "--version",
    ],
    long_values: &[
        "--infofile",
        "--charset",
        "--filelimit",
        "--timefmt",
        "--sort",
        "--hintro",
        "--houtro",
    ],
    ..Options::GNU
};

/// `tree -o FILE` writes its listing to FILE.
pub(super) fn tree(inv: &crate::invocation::Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&TREE], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'o', .. } => Some(Verdict::write(
            Risk::LowWrite,
            "`-o` writes the listing to a file",
        )),
        _ => None,
    })
}

const STAT: Options = Options {
    short_flags: "Lft",
    short_values: "c",
    long_flags: &[
        "--dereference",
        "--file-system",
        "--terse",
        "--help",
        "--version",
    ],
    long_values: &["--format", "--printf", "--cached"],
    ..Options::GNU
};
read_rule!(stat, STAT, Globs::Harmless);

const DU: Options = Options {
    short_flags: "0abcDhHklLmPsSx",
    short_values: "BdtX",
    long_flags: &[
        "--null",
        "--all",
        "--apparent-size",
        "--bytes",
        "--total",
        "--dereference-args",
        "--human-readable",
        "--inodes",
        "--dereference",
        "--count-links",
        "--no-dereference",
        "--separate-dirs",
        "--si",
        "--summarize",
        "--one-file-system",
        "--help",
        "--version",
    ],
    long_values: &[
        "--block-size",
        "--max-depth",
        "--threshold",
        "--time-style",
        "--exclude-from",
        "--exclude",
        "--files0-from",
    ],
    long_optional: &["--time"],
    ..Options::GNU
};
read_rule!(du, DU, Globs::Harmless);

const DF: Options = Options {
    short_flags: "ahHiklPTv",
    short_values: "Btx",
    long_flags: &[
        "--all",
        "--human-readable",
        "--si",
        "--inodes",
        "--local",
        "--no-sync",
        "--sync",
        "--portability",
        "--print-type",
        "--total",
        "--help",
        "--version",
    ],
    long_values: &["--block-size", "--type", "--exclude-type"],
    long_optional: &["--output"],
    ..Options::GNU
};
read_rule!(df, DF, Globs::Harmless);

const REALPATH: Options = Options {
    short_flags: "emLPqsz",
    long_flags: &[
        "--canonicalize-existing",
        "--canonicalize-missing",
        "--logical",
        "--physical",
        "--quiet",
        "--strip",
        "--no-symlinks",
        "--zero",
        "--help",
        "--version",
    ],
    long_values: &["--relative-to", "--relative-base"],
    ..Options::GNU
};
read_rule!(realpath, REALPATH, Globs::Harmless);

const READLINK: Options = Options {
    short_flags: "femnqsvz",
    long_flags: &[
        "--canonicalize",
        "--canonicalize-existing",
        "--canonicalize-missing",
        "--no-newline",
        "--quiet",
        "--silent",
        "--verbose",
        "--zero",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
read_rule!(readlink, READLINK, Globs::Harmless);

const BASENAME: Options = Options {
    short_flags: "az",
    short_values: "s",
    long_flags: &["--multiple", "--zero", "--help", "--version"],
    long_values: &["--suffix"],
    ..Options::GNU
};
read_rule!(basename, BASENAME, Globs::Harmless);

const DIRNAME: Options = Options {
    short_flags: "z",
    long_flags: &["--zero", "--help", "--version"],
    ..Options::GNU
};
read_rule!(dirname, DIRNAME, Globs::Harmless);

const WHICH: Options = Options {
    short_flags: "asi",
    long_flags: &[
        "--all",
        "--skip-alias",
        "--skip-dot",
        "--skip-tilde",
        "--show-dot",
        "--show-tilde",
        "--skip-functions",
        "--tty-only",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
read_rule!(which, WHICH, Globs::Harmless);

const WHEREIS: Options = Options {
    short_flags: "bmsulgf",
    short_values: "BMS",
    ..Options::GNU
};
read_rule!(whereis, WHEREIS, Globs::Harmless);

const NAMEI: Options = Options {
    short_flags: "lmnovxZ",
    long_flags: &[
        "--long",
        "--modes",
        "--nosymlinks",
        "--owners",
        "--vertical",
        "--mountpoints",
        "--context",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
read_rule!(namei, NAMEI, Globs::Harmless);

const LSATTR: Options = Options {
    short_flags: "RVadlpv",
    ..Options::GNU
};
read_rule!(lsattr, LSATTR, Globs::Harmless);

const GETFACL: Options = Options {
    short_flags: "adceEsRLPtnp",
    long_flags: &[
        "--access",
        "--default",
        "--omit-header",
        "--all-effective",
        "--no-effective",
        "--skip-base",
        "--recursive",
        "--logical",
        "--physical",
        "--tabular",
        "--numeric",
        "--one-file-system",
        "--absolute-names",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
read_rule!(getfacl, GETFACL, Globs::Harmless);

const MOUNTPOINT: Options = Options {
    short_flags: "qdx",
    long_flags: &[
        "--quiet",
        "--fs-devno",
        "--devno",
        "--nofollow",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
read_rule!(mountpoint, MOUNTPOINT, Globs::Harmless);

const SYNC: Options = Options {
    short_flags: "df",
    long_flags: &["--data", "--file-system", "--help", "--version"],
    ..Options::GNU
};
read_rule!(sync, SYNC, Globs::Harmless);
