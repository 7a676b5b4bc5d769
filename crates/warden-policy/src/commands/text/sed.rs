//! sed: `-i` edits in place; the script is inspected (`w`, `W`, `e` and
//! the `s///w`/`s///e` flags write or run; `r`/`R` read a file, which must
//! not be a device); a script from a file (`-f`) cannot be inspected.

use crate::commands::common::{Globs, walk_checked};
use crate::devices;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const SED: Options = Options {
    short_flags: "nErsuzb",
    short_values: "efl",
    short_optional: "i",
    long_flags: &[
        "--posix",
        "--debug",
        "--sandbox",
        "--follow-symlinks",
        "--null-data",
        "--zero-terminated",
        "--separate",
        "--unbuffered",
        "--regexp-extended",
        "--quiet",
        "--silent",
        "--binary",
        "--help",
        "--version",
    ],
    long_values: &["--expression", "--file", "--line-length"],
    long_optional: &["--in-place"],
    ..Options::GNU
};

pub(super) fn sed(inv: &Invocation<'_, '_>) -> Verdict {
    let mut expressions: Vec<&str> = Vec::new();
    let mut first_operand: Option<&str> = None;
    let verdict = walk_checked(inv, &[&SED], Globs::Refused, |tok| match *tok {
        Tok::Short { flag: 'i', .. }
        | Tok::Long {
            name: "--in-place", ..
        } => Some(Verdict::write(
            Risk::MediumWrite,
            "`-i` edits files in place",
        )),
        Tok::Short { flag: 'f', .. } | Tok::Long { name: "--file", .. } => Some(Verdict::unknown(
            "`-f` reads a script that cannot be inspected",
        )),
        Tok::Short {
            flag: 'e', value, ..
        }
        | Tok::Long {
            name: "--expression",
            value,
            ..
        } => {
            expressions.extend(value);
            None
        }
        Tok::Operand { text, .. } => {
            first_operand = first_operand.or(Some(text));
            None
        }
        _ => None,
    });
    if verdict != Verdict::Read {
        return verdict;
    }
    // The script is the first operand unless `-e` gave it; an operand that
    // is an expansion was refused by the walk.
    if expressions.is_empty() {
        match first_operand {
            Some(script) => expressions.push(script),
            None if inv.has_word(&["--help", "--version"]) => return Verdict::Read,
            None => return Verdict::unknown("no script"),
        }
    }
    for script in expressions {
        if !sed_script_is_read_only(script) {
            return Verdict::unknown("the script may write files or run commands (`w`, `W`, `e`)");
        }
        if let Some(file) = read_file_names(script)
            .find(|f| devices::literal_kind(f).is_some_and(|k| k != devices::DeviceKind::Harmless))
        {
            return Verdict::write(Risk::MediumWrite, format!("`r {file}` opens a device file"));
        }
    }
    Verdict::Read
}

/// The file names of `r`/`R` commands (the rest of their line), found the
/// simple way: any `r` or `R` at the start of a command.
fn read_file_names(script: &str) -> impl Iterator<Item = &str> {
    script
        .split(['\n', ';'])
        .filter_map(|part| {
            let part = part.trim_start_matches(|c: char| c.is_ascii_digit() || " ,$!/".contains(c));
            part.strip_prefix('r').or_else(|| part.strip_prefix('R'))
        })
        .map(str::trim)
        .filter(|f| !f.is_empty())
}

fn sed_script_is_read_only(script: &str) -> bool {
    let b = script.as_bytes();
    let mut i = 0;
    // Skips a delimited part (regex or replacement); returns the index after the delimiter.
    let skip_delimited = |mut i: usize, delim: u8| -> Option<usize> {
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                c if c == delim => return Some(i + 1),
                b'\n' => return None,
                _ => i += 1,
            }
        }
        None
    };
    let to_line_end = |i: usize| {
        b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| i + p)
    };
    while i < b.len() {
        // Separators, blocks, negation and addresses.
        match b[i] {
            b' ' | b'\t' | b'\n' | b';' | b'{' | b'}' | b'!' | b',' | b'$' | b'~' | b'+' => {
                i += 1;
                continue;
            }
            b'0'..=b'9' => {
                i += 1;
                continue;
            }
            b'/' => {
                let Some(next) = skip_delimited(i + 1, b'/') else {
                    return false;
                };
                i = next;
                // Address flags I and M.
                while i < b.len() && matches!(b[i], b'I' | b'M') {
                    i += 1;
                }
                continue;
            }
            b'\\' => {
                let Some(&delim) = b.get(i + 1) else {
                    return false;
                };
                let Some(next) = skip_delimited(i + 2, delim) else {
                    return false;
                };
                i = next;
                continue;
            }
            _ => {}
        }
        let command = b[i];
        i += 1;
        match command {
            b's' => {
                let Some(&delim) = b.get(i) else { return false };
                if delim == b'\\' || delim == b'\n' {
                    return false;
                }
                let Some(after_regex) = skip_delimited(i + 1, delim) else {
                    return false;
                };
                let Some(after_replacement) = skip_delimited(after_regex, delim) else {
                    return false;
                };
                i = after_replacement;
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    if matches!(b[i], b'w' | b'W' | b'e') {
                        return false;
                    }
                    i += 1;
                }
            }
            b'y' => {
                let Some(&delim) = b.get(i) else { return false };
                let Some(a) = skip_delimited(i + 1, delim) else {
                    return false;
                };
                let Some(next) = skip_delimited(a, delim) else {
                    return false;
                };
                i = next;
            }
            // Text, file names to read, comments: the rest of the line.
            b'a' | b'i' | b'c' | b'r' | b'R' | b'#' => i = to_line_end(i),
            // Labels and branches: up to `;` or the end of the line.
            b':' | b'b' | b't' | b'T' => {
                while i < b.len() && !matches!(b[i], b';' | b'\n') {
                    i += 1;
                }
            }
            b'q' | b'Q' | b'l' | b'L' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b' ') {
                    i += 1;
                }
            }
            b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P' | b'x'
            | b'z' | b'F' | b'v' => {}
            _ => return false,
        }
    }
    true
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts() {
        for ok in [
            "1,5p",
            "s/a/b/g",
            "/^#/d",
            "s|x|y|",
            "y/abc/xyz/",
            "$p",
            "s/a\\/w/b/",
        ] {
            assert!(sed_script_is_read_only(ok), "{ok}");
        }
        for bad in [
            "w /tmp/x",
            "s/a/b/w /tmp/x",
            "1w out",
            "e",
            "s/a/b/e",
            "1W x",
        ] {
            assert!(!sed_script_is_read_only(bad), "{bad}");
        }
    }
}
