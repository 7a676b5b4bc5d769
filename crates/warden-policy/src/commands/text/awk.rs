//! awk (gawk, mawk, busybox): the program text is inspected. It may not
//! run commands (`system()`, pipes), write files (`print > file`), read
//! files or network specials by name (`getline < file`), or load code
//! (`@load`, `@include`, `-l`, `-i`, `-f`); the options that write dumps or
//! profiles are writes.

use crate::commands::common::{Globs, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const AWK: Options = Options {
    short_flags: "bcCghLMNnOPrsStVyZ",
    short_values: "FvfeEilW",
    short_optional: "dDop",
    long_flags: &[
        "--characters-as-bytes",
        "--traditional",
        "--copyright",
        "--gen-pot",
        "--help",
        "--bignum",
        "--use-lc-numeric",
        "--non-decimal-data",
        "--optimize",
        "--no-optimize",
        "--posix",
        "--re-interval",
        "--no-optimize",
        "--sandbox",
        "--lint-old",
        "--version",
        "--csv",
    ],
    long_values: &[
        "--field-separator",
        "--assign",
        "--file",
        "--source",
        "--exec",
        "--include",
        "--load",
    ],
    long_optional: &[
        "--dump-variables",
        "--debug",
        "--pretty-print",
        "--profile",
        "--lint",
    ],
    ..Options::POSIX
};

pub(super) fn awk(inv: &Invocation<'_, '_>) -> Verdict {
    let mut sources: Vec<&str> = Vec::new();
    let mut program: Option<(usize, &str)> = None;
    let verdict = walk_checked(inv, &[&AWK], Globs::Refused, |tok| match *tok {
        Tok::Short {
            flag: 'f' | 'E' | 'i' | 'l',
            ..
        }
        | Tok::Long {
            name: "--file" | "--exec" | "--include" | "--load",
            ..
        } => Some(Verdict::unknown(
            "loads a program or extension that cannot be inspected",
        )),
        Tok::Short {
            flag: 'W', value, ..
        } if value != Some("version") => Some(Verdict::unknown("`-W` options can load programs")),
        Tok::Short {
            flag: 'd' | 'o' | 'p',
            ..
        }
        | Tok::Long {
            name: "--dump-variables" | "--pretty-print" | "--profile",
            ..
        } => Some(Verdict::write(
            Risk::LowWrite,
            "writes a dump or profile file",
        )),
        Tok::Short { flag: 'D', .. }
        | Tok::Long {
            name: "--debug", ..
        } => Some(Verdict::interactive(
            InteractiveCategory::InteractiveRepl,
            "`--debug` starts a debugger",
        )),
        Tok::Short {
            flag: 'e', value, ..
        }
        | Tok::Long {
            name: "--source",
            value,
            ..
        } => {
            sources.extend(value);
            None
        }
        Tok::Operand { index, text } if sources.is_empty() && program.is_none() => {
            program = Some((index, text));
            None
        }
        _ => None,
    });
    if verdict != Verdict::Read {
        return verdict;
    }
    if let Some((index, text)) = program {
        if inv.args.get(index).is_some_and(|a| !a.is_literal()) {
            return Verdict::unknown("the program comes from an expansion");
        }
        sources.push(text);
    }
    if sources.is_empty() {
        return if inv.has_word(&["--help", "--version", "-V"]) {
            Verdict::Read
        } else {
            Verdict::unknown("no program")
        };
    }
    match sources.iter().find_map(|s| program_refusal(s)) {
        Some(reason) => Verdict::unknown(reason),
        None => Verdict::Read,
    }
}

/// Why an awk program is not read-only, if it is not.
fn program_refusal(program: &str) -> Option<&'static str> {
    let code = code_only(program)?;
    let bytes = code.as_bytes();
    let mut in_print = false;
    let mut in_getline = false;
    let mut depth = 0i32;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'@' => return Some("`@load`/`@include` load code"),
            b'|' if bytes.get(i + 1) == Some(&b'|') => i += 1,
            b'|' => return Some("a pipe runs a command"),
            b'(' => depth += 1,
            b')' => depth -= 1,
            b';' | b'{' | b'}' | b'\n' => {
                in_print = false;
                in_getline = false;
            }
            b'>' if in_print && depth <= 0 => {
                let target = code[i..].trim_start_matches('>').trim_start();
                let harmless = ["\"/dev/stderr\"", "\"/dev/stdout\"", "\"/dev/null\""]
                    .iter()
                    .any(|sink| target.starts_with(sink));
                if !harmless {
                    return Some("`print >` writes a file");
                }
            }
            b'<' if in_getline && bytes.get(i + 1) != Some(&b'=') => {
                return Some("`getline <` reads a file by name");
            }
            _ if b.is_ascii_alphabetic() || b == b'_' => {
                let word: String = code[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                match word.as_str() {
                    "system" => return Some("`system()` runs a command"),
                    "print" | "printf" => in_print = true,
                    "getline" => in_getline = true,
                    _ => {}
                }
                i += word.len();
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The program with comments removed and string and regex literals
/// blanked (their text cannot run anything), except the strings right
/// after a `>`, kept to check redirect targets. `None` for an unterminated
/// literal.
fn code_only(program: &str) -> Option<String> {
    let mut out = String::with_capacity(program.len());
    let mut chars = program.chars().peekable();
    let mut last_significant = '\n';
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // Keep a redirect target's text; blank any other string.
                let keep = out.trim_end().ends_with('>');
                out.push('"');
                loop {
                    match chars.next()? {
                        '\\' => {
                            let e = chars.next()?;
                            if keep {
                                out.push('\\');
                                out.push(e);
                            }
                        }
                        '"' => break,
                        d if keep => out.push(d),
                        _ => out.push('_'),
                    }
                }
                out.push('"');
                last_significant = '"';
            }
            '#' => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
                last_significant = '\n';
            }
            '/' if "\n(,{};~!&|?:=+-*%^<>[".contains(last_significant) => {
                loop {
                    match chars.next()? {
                        '\\' => {
                            chars.next()?;
                        }
                        '/' => break,
                        '\n' => return None,
                        _ => {}
                    }
                }
                out.push_str("//");
                last_significant = '/';
            }
            _ => {
                out.push(c);
                if !c.is_whitespace() || c == '\n' {
                    last_significant = if c.is_ascii_alphanumeric() || c == '_' {
                        'a'
                    } else {
                        c
                    };
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::program_refusal;

    #[test]
    fn programs() {
        for ok in [
            "{print $1}",
            "$3 > 100 {print}",
            "NR==1",
            "{ if (x > 1) print x }",
            "{printf \"%s>\\n\", $1}",
            "/system/ {print}",
            "{ print \"a|b\" }",
            "# system\n{print}",
            "{ print > \"/dev/stderr\" }",
            "$1 ~ /a|b/ { n++ } END { print n }",
            "{ a[$1] += $2 } END { for (k in a) print k, a[k] }",
            "BEGIN { FS=\":\" } { print $1 }",
            "{ print ($1 > 5) }",
        ] {
            assert_eq!(program_refusal(ok), None, "{ok}");
        }
        for bad in [
            "{print > \"/tmp/x\"}",
            "{ system(\"rm x\") }",
            "{print | \"sh\"}",
            "{print $1 >> \"f\"}",
            "BEGIN { \"date\" | getline d }",
            "BEGIN { getline line < \"/etc/shadow\" }",
            "@load \"readfile\"",
            "BEGIN { \"/inet/tcp/0/h/80\" |& getline }",
            "{ printf \"%s\", $0 > $2 }",
            "BEGIN { s = \"sys\" \"tem\"; system(\"id\") }",
        ] {
            assert!(program_refusal(bad).is_some(), "{bad}");
        }
    }
}
