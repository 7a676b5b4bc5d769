//! Filters that read files or standard input and print (GNU coreutils
//! spellings): only `sort -o`, `uniq IN OUT`, `shuf -o` and `iconv -o`
//! write, and `sort --compress-program` runs a program.

use crate::commands::common::{
    Globs, filter_rule, read_rule, reads_unless_second_operand, stdin_reader, walk_checked,
};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const WC: Options = Options {
    short_flags: "cmlLw",
    long_flags: &[
        "--bytes",
        "--chars",
        "--lines",
        "--max-line-length",
        "--words",
        "--help",
        "--version",
    ],
    long_values: &["--files0-from", "--total"],
    ..Options::GNU
};
filter_rule!(wc, WC, Globs::Harmless, 0);

const CUT: Options = Options {
    short_flags: "nsz",
    short_values: "bcdf",
    long_flags: &[
        "--complement",
        "--only-delimited",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    long_values: &[
        "--bytes",
        "--characters",
        "--delimiter",
        "--fields",
        "--output-delimiter",
    ],
    ..Options::GNU
};
filter_rule!(cut, CUT, Globs::Harmless, 0);

const TR: Options = Options {
    short_flags: "cCdst",
    long_flags: &[
        "--complement",
        "--delete",
        "--squeeze-repeats",
        "--truncate-set1",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
filter_rule!(tr, TR, Globs::Harmless, 2);

const PASTE: Options = Options {
    short_flags: "sz",
    short_values: "d",
    long_flags: &["--serial", "--zero-terminated", "--help", "--version"],
    long_values: &["--delimiters"],
    ..Options::GNU
};
filter_rule!(paste, PASTE, Globs::Harmless, 0);

const COLUMN: Options = Options {
    short_flags: "tnxeJLRHOErKdiS",
    short_values: "socNlTWphCd",
    long_flags: &[
        "--table",
        "--fillrows",
        "--json",
        "--keep-empty-lines",
        "--table-noheadings",
        "--table-header-as-columns",
        "--table-noextreme",
        "--table-right-all",
        "--help",
        "--version",
    ],
    long_values: &[
        "--separator",
        "--output-separator",
        "--output-width",
        "--table-columns",
        "--table-columns-limit",
        "--table-name",
        "--table-order",
        "--table-right",
        "--table-truncate",
        "--table-wrap",
        "--table-hide",
        "--tree",
        "--tree-id",
        "--tree-parent",
    ],
    ..Options::GNU
};
filter_rule!(column, COLUMN, Globs::Harmless, 0);

const REV: Options = Options {
    short_flags: "0",
    long_flags: &["--zero", "--help", "--version"],
    ..Options::GNU
};
filter_rule!(rev, REV, Globs::Harmless, 0);

const FOLD: Options = Options {
    short_flags: "bs",
    short_values: "w",
    long_flags: &["--bytes", "--spaces", "--help", "--version"],
    long_values: &["--width"],
    ..Options::GNU
};
filter_rule!(fold, FOLD, Globs::Harmless, 0);

const FMT: Options = Options {
    short_flags: "cstu",
    short_values: "pgw",
    long_flags: &[
        "--crown-margin",
        "--split-only",
        "--tagged-paragraph",
        "--uniform-spacing",
        "--help",
        "--version",
    ],
    long_values: &["--prefix", "--goal", "--width"],
    ..Options::GNU
};
filter_rule!(fmt, FMT, Globs::Harmless, 0);

const EXPAND: Options = Options {
    short_flags: "ai",
    short_values: "t",
    long_flags: &["--initial", "--all", "--first-only", "--help", "--version"],
    long_values: &["--tabs"],
    ..Options::GNU
};
filter_rule!(expand, EXPAND, Globs::Harmless, 0);

const COMM: Options = Options {
    short_flags: "123z",
    long_flags: &[
        "--check-order",
        "--nocheck-order",
        "--total",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    long_values: &["--output-delimiter"],
    ..Options::GNU
};
read_rule!(comm, COMM, Globs::Harmless);

const JOIN: Options = Options {
    short_flags: "iz",
    short_values: "aejot12v",
    long_flags: &[
        "--ignore-case",
        "--check-order",
        "--nocheck-order",
        "--header",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
read_rule!(join, JOIN, Globs::Harmless);

const NUMFMT: Options = Options {
    short_flags: "z",
    short_values: "d",
    long_flags: &[
        "--grouping",
        "--zero-terminated",
        "--debug",
        "--help",
        "--version",
    ],
    long_values: &[
        "--delimiter",
        "--field",
        "--format",
        "--from",
        "--from-unit",
        "--invalid",
        "--padding",
        "--round",
        "--suffix",
        "--to",
        "--to-unit",
    ],
    long_optional: &["--header"],
    ..Options::GNU
};
filter_rule!(numfmt, NUMFMT, Globs::Harmless, 0);

const PR: Options = Options {
    short_flags: "acdfFmrtTJ",
    short_values: "DhlNoSwW",
    short_optional: "eiHns",
    long_flags: &[
        "--across",
        "--show-control-chars",
        "--double-space",
        "--form-feed",
        "--merge",
        "--no-file-warnings",
        "--omit-header",
        "--omit-pagination",
        "--show-nonprinting",
        "--join-lines",
        "--help",
        "--version",
    ],
    long_values: &[
        "--columns",
        "--date-format",
        "--header",
        "--length",
        "--first-line-number",
        "--indent",
        "--separator",
        "--sep-string",
        "--width",
        "--page-width",
        "--pages",
    ],
    long_optional: &["--expand-tabs", "--output-tabs", "--number-lines"],
    ..Options::GNU
};
filter_rule!(pr, PR, Globs::Harmless, 0);

const TSORT: Options = Options {
    long_flags: &["--help", "--version"],
    ..Options::GNU
};
filter_rule!(tsort, TSORT, Globs::Harmless, 0);

const LOOK: Options = Options {
    short_flags: "bdf",
    short_values: "t",
    long_flags: &[
        "--binary",
        "--alphanum",
        "--ignore-case",
        "--help",
        "--version",
    ],
    long_values: &["--terminate"],
    ..Options::GNU
};
read_rule!(look, LOOK, Globs::Harmless);

/// `expr` computes and prints; its operands are data, not options.
pub(super) fn expr(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::Read
}

/// `factor N…`; without numbers it reads them from standard input.
pub(super) fn factor(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::interactive(
            InteractiveCategory::InteractiveRepl,
            "reads numbers from standard input",
        );
    }
    Verdict::Read
}

const SORT: Options = Options {
    short_flags: "bdfgiMhnRrVcCmsuz",
    short_values: "ktoSTy",
    long_flags: &[
        "--ignore-leading-blanks",
        "--dictionary-order",
        "--ignore-case",
        "--general-numeric-sort",
        "--ignore-nonprinting",
        "--month-sort",
        "--human-numeric-sort",
        "--numeric-sort",
        "--random-sort",
        "--reverse",
        "--version-sort",
        "--merge",
        "--stable",
        "--unique",
        "--zero-terminated",
        "--debug",
        "--help",
        "--version",
    ],
    long_values: &[
        "--key",
        "--field-separator",
        "--output",
        "--buffer-size",
        "--temporary-directory",
        "--parallel",
        "--batch-size",
        "--compress-program",
        "--files0-from",
        "--random-source",
        "--sort",
    ],
    long_optional: &["--check"],
    ..Options::GNU
};

/// `sort`: `-o` writes a file; `-T` writes temporary files elsewhere;
/// `--compress-program` runs a program.
pub(super) fn sort(inv: &Invocation<'_, '_>) -> Verdict {
    let mut operands = 0;
    let verdict = walk_checked(inv, &[&SORT], Globs::Refused, |tok| match tok {
        Tok::Operand { .. }
        | Tok::Long {
            name: "--files0-from",
            ..
        } => {
            operands += 1;
            None
        }
        Tok::Short { flag: 'o', .. }
        | Tok::Long {
            name: "--output", ..
        } => Some(Verdict::write(
            Risk::MediumWrite,
            "`-o` writes the output to a file",
        )),
        Tok::Short { flag: 'T', .. }
        | Tok::Long {
            name: "--temporary-directory",
            ..
        } => Some(Verdict::unknown(
            "`-T` writes temporary files into a directory",
        )),
        Tok::Long {
            name: "--compress-program",
            ..
        } => Some(Verdict::unknown("`--compress-program` runs a program")),
        _ => None,
    });
    if verdict == Verdict::Read && operands == 0 && !inv.has_word(&["--help", "--version"]) {
        return stdin_reader();
    }
    verdict
}

const UNIQ: Options = Options {
    short_flags: "cdDiuz",
    short_values: "fsw",
    long_flags: &[
        "--count",
        "--repeated",
        "--ignore-case",
        "--unique",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    long_values: &["--skip-fields", "--skip-chars", "--check-chars"],
    long_optional: &["--all-repeated", "--group"],
    ..Options::GNU
};

/// `uniq [IN [OUT]]`: a second operand is an output file.
pub(super) fn uniq(inv: &Invocation<'_, '_>) -> Verdict {
    reads_unless_second_operand(inv, &UNIQ)
}

const SHUF: Options = Options {
    short_flags: "erz",
    short_values: "inoZ",
    long_flags: &[
        "--echo",
        "--repeat",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    long_values: &[
        "--input-range",
        "--head-count",
        "--output",
        "--random-source",
    ],
    ..Options::GNU
};

/// `shuf -o` writes; `shuf -r` repeats forever unless `-n` bounds it.
pub(super) fn shuf(inv: &Invocation<'_, '_>) -> Verdict {
    let mut repeat = false;
    let mut count = false;
    let verdict = walk_checked(inv, &[&SHUF], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'o', .. }
        | Tok::Long {
            name: "--output", ..
        } => Some(Verdict::write(
            Risk::MediumWrite,
            "`-o` writes the output to a file",
        )),
        Tok::Short { flag: 'r', .. }
        | Tok::Long {
            name: "--repeat", ..
        } => {
            repeat = true;
            None
        }
        Tok::Short { flag: 'n', .. }
        | Tok::Long {
            name: "--head-count",
            ..
        } => {
            count = true;
            None
        }
        _ => None,
    });
    if verdict == Verdict::Read && repeat && !count {
        return Verdict::generator("`-r` repeats forever without `-n`");
    }
    verdict
}

/// More numbers than this and `seq` is treated as endless.
const SEQ_LIMIT: f64 = 10_000_000.0;

/// `seq [FIRST [INCREMENT]] LAST`: bounded when LAST is a finite number not
/// too far away; `seq inf` prints forever.
pub(super) fn seq(inv: &Invocation<'_, '_>) -> Verdict {
    const SEQ: Options = Options {
        short_flags: "w",
        short_values: "fs",
        long_flags: &["--equal-width", "--help", "--version"],
        long_values: &["--format", "--separator"],
        ..Options::GNU
    };
    let mut numbers = Vec::with_capacity(3);
    let verdict = walk_checked(inv, &[&SEQ], Globs::Refused, |tok| {
        if let Tok::Operand { text, .. } = tok {
            numbers.push(text.parse::<f64>().ok());
        }
        None
    });
    if verdict != Verdict::Read || inv.has_word(&["--help", "--version"]) {
        return verdict;
    }
    let values: Option<Vec<f64>> = numbers.into_iter().collect();
    let count = match values.as_deref() {
        Some([last]) => Some(*last),
        Some([first, last]) => Some(last - first + 1.0),
        Some([first, step, last]) if *step != 0.0 => Some((last - first) / step + 1.0),
        _ => None,
    };
    match count {
        Some(n) if n.is_finite() && n <= SEQ_LIMIT => Verdict::Read,
        Some(_) => Verdict::generator("prints without an end in sight"),
        None => Verdict::unknown("the bounds are not numbers"),
    }
}

const ICONV: Options = Options {
    short_flags: "cls",
    short_values: "fto",
    long_flags: &["--list", "--silent", "--help", "--version"],
    long_values: &["--from-code", "--to-code", "--output"],
    ..Options::GNU
};

/// `iconv -o FILE` writes.
pub(super) fn iconv(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&ICONV], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'o', .. }
        | Tok::Long {
            name: "--output", ..
        } => Some(Verdict::write(
            Risk::MediumWrite,
            "`-o` writes the output to a file",
        )),
        _ => None,
    })
}
