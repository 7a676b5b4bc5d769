//! grep and its spellings, and ripgrep. grep never writes or runs
//! anything; ripgrep runs programs with `--pre` and `-z`.

use crate::commands::common::{Globs, stdin_reader, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const GREP: Options = Options {
    short_flags: "EFGPiywxcLlqsbHhnTZzaIrRuUVv0123456789o",
    short_values: "efmABCdDX",
    long_flags: &[
        "--extended-regexp",
        "--fixed-strings",
        "--basic-regexp",
        "--perl-regexp",
        "--ignore-case",
        "--no-ignore-case",
        "--word-regexp",
        "--line-regexp",
        "--null-data",
        "--no-messages",
        "--invert-match",
        "--version",
        "--help",
        "--byte-offset",
        "--line-number",
        "--no-line-number",
        "--line-buffered",
        "--with-filename",
        "--no-filename",
        "--only-matching",
        "--quiet",
        "--silent",
        "--text",
        "--recursive",
        "--dereference-recursive",
        "--files-without-match",
        "--files-with-matches",
        "--count",
        "--initial-tab",
        "--null",
        "--no-group-separator",
        "--binary",
        "--unix-byte-offsets",
    ],
    long_values: &[
        "--regexp",
        "--file",
        "--max-count",
        "--label",
        "--binary-files",
        "--directories",
        "--devices",
        "--include",
        "--exclude",
        "--exclude-from",
        "--exclude-dir",
        "--before-context",
        "--after-context",
        "--context",
        "--group-separator",
    ],
    long_optional: &["--color", "--colour"],
    ..Options::GNU
};
/// grep: the first operand is the pattern unless `-e`/`-f` give it; with
/// no file (and no `-r`) it reads standard input.
pub(super) fn grep(inv: &Invocation<'_, '_>) -> Verdict {
    let mut operands: usize = 0;
    let mut pattern_given = false;
    let mut recursive = false;
    let verdict = walk_checked(inv, &[&GREP], Globs::Harmless, |tok| {
        match tok {
            Tok::Operand { .. } => operands += 1,
            Tok::Short {
                flag: 'e' | 'f', ..
            }
            | Tok::Long {
                name: "--regexp" | "--file",
                ..
            } => {
                pattern_given = true;
            }
            Tok::Short {
                flag: 'r' | 'R', ..
            }
            | Tok::Long {
                name: "--recursive" | "--dereference-recursive",
                ..
            } => {
                recursive = true;
            }
            Tok::Short { flag: 'V', .. }
            | Tok::Long {
                name: "--help" | "--version",
                ..
            } => {
                return Some(Verdict::Read);
            }
            _ => {}
        }
        None
    });
    let files = operands.saturating_sub(usize::from(!pattern_given));
    if verdict == Verdict::Read && files == 0 && !recursive {
        return stdin_reader();
    }
    verdict
}

const RIPGREP: Options = Options {
    short_flags: "iswxvclLnNHIopuUFPaqzS0bhV",
    short_values: "ABCefgjmMrtTE",
    long_flags: &[
        "--hidden",
        "--no-hidden",
        "--no-ignore",
        "--no-ignore-vcs",
        "--no-ignore-parent",
        "--no-ignore-dot",
        "--no-ignore-global",
        "--no-ignore-exclude",
        "--no-ignore-files",
        "--follow",
        "--no-follow",
        "--files",
        "--files-with-matches",
        "--files-without-match",
        "--count",
        "--count-matches",
        "--json",
        "--vimgrep",
        "--no-heading",
        "--heading",
        "--with-filename",
        "--no-filename",
        "--line-number",
        "--no-line-number",
        "--column",
        "--no-column",
        "--byte-offset",
        "--trim",
        "--ignore-case",
        "--smart-case",
        "--case-sensitive",
        "--word-regexp",
        "--line-regexp",
        "--invert-match",
        "--fixed-strings",
        "--pcre2",
        "--multiline",
        "--multiline-dotall",
        "--text",
        "--stats",
        "--passthru",
        "--only-matching",
        "--null",
        "--null-data",
        "--quiet",
        "--no-messages",
        "--unrestricted",
        "--type-list",
        "--debug",
        "--trace",
        "--help",
        "--version",
        "--one-file-system",
        "--no-config",
        "--crlf",
        "--binary",
        "--no-binary",
        "--line-buffered",
        "--block-buffered",
        "--sort-files",
        "--invert-match",
        "--include-zero",
        "--pretty",
    ],
    long_values: &[
        "--after-context",
        "--before-context",
        "--context",
        "--regexp",
        "--file",
        "--glob",
        "--iglob",
        "--threads",
        "--max-count",
        "--max-columns",
        "--max-depth",
        "--max-filesize",
        "--replace",
        "--type",
        "--type-not",
        "--type-add",
        "--sort",
        "--sortr",
        "--color",
        "--colors",
        "--context-separator",
        "--field-match-separator",
        "--field-context-separator",
        "--encoding",
        "--engine",
        "--path-separator",
        "--ignore-file",
        "--dfa-size-limit",
        "--regex-size-limit",
    ],
    ..Options::GNU
};

/// ripgrep: `--pre` and `--search-zip` (`-z`) run programs on the files,
/// `--hostname-bin` runs one.
pub(super) fn ripgrep(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&RIPGREP], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'z', .. } => Some(Verdict::unknown(
            "`-z` runs decompression programs on the files",
        )),
        _ => None,
    })
}
