//! Programs that read the files they name and print: cat, head, tail, od,
//! checksums, diff, … (GNU coreutils spellings, with the BSD and busybox
//! letters they share). Device files among the names are refused by the
//! engine (`devices.rs`).

use crate::commands::common::{
    Globs, filter_rule, read_rule, reads_unless_second_operand, walk_checked,
};
use crate::commands::follow::rewrite_args;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const CAT: Options = Options {
    short_flags: "AbeEnstTuvl",
    long_flags: &[
        "--show-all",
        "--number-nonblank",
        "--show-ends",
        "--number",
        "--squeeze-blank",
        "--show-tabs",
        "--show-nonprinting",
        "--help",
        "--version",
    ],
    ..Options::GNU
};
filter_rule!(cat, CAT, Globs::Harmless, 0);

const TAC: Options = Options {
    short_flags: "br",
    short_values: "s",
    long_flags: &["--before", "--regex", "--help", "--version"],
    long_values: &["--separator"],
    ..Options::GNU
};
filter_rule!(tac, TAC, Globs::Harmless, 0);

const NL: Options = Options {
    short_flags: "p",
    short_values: "bdfhilnsvw",
    long_flags: &["--no-renumber", "--help", "--version"],
    long_values: &[
        "--body-numbering",
        "--section-delimiter",
        "--footer-numbering",
        "--header-numbering",
        "--line-increment",
        "--join-blank-lines",
        "--number-format",
        "--number-separator",
        "--starting-line-number",
        "--number-width",
    ],
    ..Options::GNU
};
filter_rule!(nl, NL, Globs::Harmless, 0);

const HEAD: Options = Options {
    short_flags: "qvz",
    short_values: "cn",
    long_flags: &[
        "--quiet",
        "--silent",
        "--verbose",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    long_values: &["--bytes", "--lines"],
    ..Options::GNU
};
filter_rule!(head, HEAD, Globs::Harmless, 0);

const TAIL: Options = Options {
    short_flags: "fFqvz",
    short_values: "cns",
    long_flags: &[
        "--retry",
        "--quiet",
        "--silent",
        "--verbose",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    long_values: &[
        "--bytes",
        "--lines",
        "--sleep-interval",
        "--pid",
        "--max-unchanged-stats",
    ],
    long_optional: &["--follow"],
    ..Options::GNU
};

fn is_follow(tok: &Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::Short {
            flag: 'f' | 'F',
            ..
        } | Tok::Long {
            name: "--follow",
            ..
        }
    )
}

/// The obsolete `-5f`/`+10f` spelling: a count and a follow in one word.
fn obsolete_follow(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(['-', '+'])?;
    let without_f = rest.strip_suffix(['f', 'F']).filter(|w| !w.is_empty())?;
    let digits = without_f.trim_end_matches(['b', 'c', 'l']);
    (digits.bytes().all(|b| b.is_ascii_digit()) && without_f.len() <= digits.len() + 1)
        .then(|| &text[..text.len() - 1])
}

/// `tail`: `-f`/`-F`/`--follow` (in any spelling) follow forever; the
/// rewrite drops the follow and keeps a count.
pub(super) fn tail(inv: &Invocation<'_, '_>) -> Verdict {
    let reason = "`-f` follows the file forever";
    if let Some(arg) = inv
        .args
        .iter()
        .find(|a| a.is_literal() && obsolete_follow(a.as_str()).is_some())
    {
        let count = obsolete_follow(arg.as_str()).unwrap_or_default();
        let mut words: Vec<String> = Vec::with_capacity(inv.args.len() + 2);
        if count.len() <= 1 {
            words.extend(["-n".to_string(), "200".to_string()]);
        }
        for a in inv.args {
            match obsolete_follow(a.as_str()) {
                Some(c) if c.len() > 1 => words.push(c.to_string()),
                Some(_) => {}
                None => words.push(a.raw.to_string()),
            }
        }
        return Verdict::unbounded_with_rewrite(words.join(" "), reason);
    }
    let mut follows = false;
    let mut counted = false;
    let verdict = walk_checked(inv, &[&TAIL], Globs::Refused, |tok| {
        follows |= is_follow(tok);
        counted |= matches!(
            tok,
            Tok::Short {
                flag: 'n' | 'c',
                ..
            } | Tok::Long {
                name: "--lines" | "--bytes",
                ..
            }
        ) || matches!(tok, Tok::Operand { text, .. } if is_count(text));
        None
    });
    if verdict != Verdict::Read || !follows {
        return verdict;
    }
    let added: &[&str] = if counted { &[] } else { &["-n", "200"] };
    match rewrite_args(inv, &[&TAIL], is_follow, added, None) {
        Some(rewrite) => Verdict::unbounded_with_rewrite(rewrite, reason),
        None => Verdict::interactive(InteractiveCategory::UnboundedStream, reason),
    }
}

/// The obsolete `-20` / `+5` count.
fn is_count(text: &str) -> bool {
    text.len() > 1 && text.starts_with(['-', '+']) && text[1..].bytes().all(|b| b.is_ascii_digit())
}

const STRINGS: Options = Options {
    short_flags: "adfowsU",
    short_values: "nteTs",
    long_flags: &[
        "--all",
        "--data",
        "--print-file-name",
        "--include-all-whitespace",
        "--help",
        "--version",
    ],
    long_values: &[
        "--bytes",
        "--radix",
        "--encoding",
        "--target",
        "--output-separator",
        "--unicode",
    ],
    ..Options::GNU
};
filter_rule!(strings, STRINGS, Globs::Harmless, 0);

const OD: Options = Options {
    short_flags: "abcdfilosxvBDFHILOSX",
    short_values: "AjNt",
    short_optional: "w",
    long_flags: &[
        "--output-duplicates",
        "--traditional",
        "--help",
        "--version",
    ],
    long_values: &[
        "--address-radix",
        "--skip-bytes",
        "--read-bytes",
        "--format",
        "--endian",
    ],
    long_optional: &["--width", "--strings"],
    ..Options::GNU
};
filter_rule!(od, OD, Globs::Harmless, 0);

const HEXDUMP: Options = Options {
    short_flags: "bcCdoxvL",
    short_values: "efns",
    long_flags: &[
        "--one-byte-octal",
        "--one-byte-char",
        "--canonical",
        "--two-bytes-decimal",
        "--two-bytes-octal",
        "--two-bytes-hex",
        "--no-squeezing",
        "--help",
        "--version",
    ],
    long_values: &["--format", "--format-file", "--length", "--skip", "--color"],
    ..Options::GNU
};
filter_rule!(hexdump, HEXDUMP, Globs::Harmless, 0);

const XXD: Options = Options {
    short_flags: "abCeEhipruvd",
    short_values: "cglnosR",
    long_flags: &["--help", "--version"],
    ..Options::POSIX
};

/// `xxd IN OUT` writes OUT.
pub(super) fn xxd(inv: &Invocation<'_, '_>) -> Verdict {
    reads_unless_second_operand(inv, &XXD)
}

const BASE64: Options = Options {
    short_flags: "di",
    short_values: "w",
    long_flags: &[
        "--decode",
        "--ignore-garbage",
        "--base64",
        "--base64url",
        "--base32",
        "--base32hex",
        "--base16",
        "--base2msbf",
        "--base2lsbf",
        "--z85",
        "--help",
        "--version",
    ],
    long_values: &["--wrap"],
    ..Options::GNU
};
filter_rule!(base64, BASE64, Globs::Harmless, 0);

const FILE: Options = Options {
    short_flags: "bcdEhiIklLNnprsSvzZ0",
    short_values: "efFmP",
    long_flags: &[
        "--brief",
        "--checking-printout",
        "--debug",
        "--keep-going",
        "--list",
        "--dereference",
        "--no-dereference",
        "--no-buffer",
        "--no-pad",
        "--preserve-date",
        "--raw",
        "--special-files",
        "--no-sandbox",
        "--uncompress",
        "--uncompress-noreport",
        "--mime",
        "--mime-type",
        "--mime-encoding",
        "--apple",
        "--extension",
        "--print0",
        "--help",
        "--version",
    ],
    long_values: &[
        "--exclude",
        "--exclude-quiet",
        "--files-from",
        "--separator",
        "--magic-file",
        "--parameter",
    ],
    ..Options::GNU
};
read_rule!(file, FILE, Globs::Harmless);

const CHECKSUM: Options = Options {
    short_flags: "bctwzr",
    short_values: "laN",
    long_flags: &[
        "--binary",
        "--check",
        "--tag",
        "--text",
        "--zero",
        "--ignore-missing",
        "--quiet",
        "--status",
        "--strict",
        "--warn",
        "--base64",
        "--raw",
        "--untagged",
        "--debug",
        "--sysv",
        "--help",
        "--version",
    ],
    long_values: &["--length", "--algorithm"],
    ..Options::GNU
};
filter_rule!(checksum, CHECKSUM, Globs::Harmless, 0);

const CMP: Options = Options {
    short_flags: "blsz",
    short_values: "in",
    long_flags: &[
        "--print-bytes",
        "--verbose",
        "--quiet",
        "--silent",
        "--help",
        "--version",
    ],
    long_values: &["--ignore-initial", "--bytes"],
    ..Options::GNU
};
read_rule!(cmp, CMP, Globs::Harmless);

const DIFF: Options = Options {
    short_flags: "abBcdeEfHilnNpPqrstTuvwyZ",
    short_values: "CDFIxXSUW",
    long_flags: &[
        "--brief",
        "--report-identical-files",
        "--normal",
        "--ed",
        "--rcs",
        "--side-by-side",
        "--left-column",
        "--suppress-common-lines",
        "--show-c-function",
        "--expand-tabs",
        "--initial-tab",
        "--suppress-blank-empty",
        "--recursive",
        "--no-dereference",
        "--new-file",
        "--unidirectional-new-file",
        "--ignore-file-name-case",
        "--no-ignore-file-name-case",
        "--ignore-case",
        "--ignore-tab-expansion",
        "--ignore-trailing-space",
        "--ignore-space-change",
        "--ignore-all-space",
        "--ignore-blank-lines",
        "--text",
        "--strip-trailing-cr",
        "--minimal",
        "--speed-large-files",
        "--help",
        "--version",
    ],
    long_values: &[
        "--show-function-line",
        "--label",
        "--width",
        "--tabsize",
        "--exclude",
        "--exclude-from",
        "--starting-file",
        "--from-file",
        "--to-file",
        "--ignore-matching-lines",
        "--horizon-lines",
        "--line-format",
        "--old-line-format",
        "--new-line-format",
        "--unchanged-line-format",
        "--old-group-format",
        "--new-group-format",
        "--changed-group-format",
        "--unchanged-group-format",
        "--palette",
        "--ifdef",
    ],
    long_optional: &["--context", "--unified", "--color"],
    ..Options::GNU
};
read_rule!(diff, DIFF, Globs::Harmless);

const ZCAT: Options = Options {
    short_flags: "fhLlqrtVvcdk",
    short_values: "ST",
    long_flags: &[
        "--force",
        "--help",
        "--license",
        "--list",
        "--quiet",
        "--recursive",
        "--test",
        "--verbose",
        "--version",
        "--stdout",
        "--to-stdout",
        "--decompress",
        "--keep",
    ],
    long_values: &["--suffix", "--threads"],
    ..Options::GNU
};

filter_rule!(zcat, ZCAT, Globs::Harmless, 0);
