//! Text filters, with the programs that embed a language inspected (sed, awk).

use super::Rule;
use super::common::always_read;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("wc", always_read),
    ("cut", always_read),
    ("tr", always_read),
    ("comm", always_read),
    ("paste", always_read),
    ("column", always_read),
    ("rev", always_read),
    ("strings", always_read),
    ("od", always_read),
    ("hexdump", always_read),
    ("seq", always_read),
    ("grep", always_read),
    ("egrep", always_read),
    ("fgrep", always_read),
    ("zgrep", always_read),
    ("jq", always_read),
    ("sed", sed),
    ("awk", awk),
    ("gawk", awk),
    ("mawk", awk),
    ("numfmt", always_read),
    ("rg", ripgrep),
];

fn sed(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('i') || inv.has_long_abbrev("--in-place") {
        return Verdict::write(Risk::MediumWrite, "`-i` edits files in place");
    }
    if inv.has_short('f') || inv.has_long_abbrev("--file") {
        return Verdict::unknown("`-f` reads a script that cannot be inspected");
    }
    if inv.any_variable() {
        return Verdict::unknown("an argument from an expansion could be `-i` or a script");
    }
    let spec = OptSpec {
        short_with_value: "el",
        long_with_value: &["--expression", "--line-length"],
    };
    let scripts: Vec<&str> = {
        let mut out = Vec::new();
        let mut iter = inv.args.iter();
        let mut has_e = false;
        while let Some(a) = iter.next() {
            let t = a.as_str();
            if t == "-e" || t == "--expression" {
                has_e = true;
                if let Some(s) = iter.next() {
                    out.push(s.as_str());
                }
            } else if let Some(s) = t.strip_prefix("--expression=") {
                has_e = true;
                out.push(s);
            }
        }
        if !has_e && let Some((_, s)) = inv.positionals(spec).next() {
            out.push(s);
        }
        out
    };
    for script in scripts {
        if !sed_script_is_read_only(script) {
            return Verdict::unknown("the script may write files or run commands (`w`, `W`, `e`)");
        }
    }
    Verdict::Read
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

fn awk(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('f')
        || inv.has_long_abbrev("--file")
        || inv.has_short('i')
        || inv.has_long_abbrev("--include")
        || inv.has_short('l')
        || inv.has_long_abbrev("--load")
        || inv.has_short('E')
        || inv.has_long_abbrev("--exec")
    {
        return Verdict::unknown("loads a program or extension that cannot be inspected");
    }
    let spec = OptSpec {
        short_with_value: "vF",
        long_with_value: &["--assign", "--field-separator"],
    };
    let Some((index, program)) = inv.positionals(spec).next() else {
        return Verdict::unknown("no program");
    };
    if inv.args.get(index).is_some_and(|a| a.is_variable()) {
        return Verdict::unknown("the program comes from an expansion");
    }
    if awk_program_is_read_only(program) {
        Verdict::Read
    } else {
        Verdict::unknown("the program may run commands or write files (`system`, `|`, `>`)")
    }
}

fn awk_program_is_read_only(program: &str) -> bool {
    if program.contains("system")
        || program.contains('|')
        || program.contains("getline") && program.contains('"')
    {
        return false;
    }
    let bytes = program.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    let mut in_print = false;
    let mut depth = 0i32;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            if b == b'\\' {
                i += 1;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'(' => depth += 1,
            b')' => depth -= 1,
            b';' | b'}' | b'{' | b'\n' => in_print = false,
            b'>' if in_print && depth <= 0 => return false,
            b'p' if program[i..].starts_with("print") => in_print = true,
            _ => {}
        }
        i += 1;
    }
    true
}

fn ripgrep(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long("--pre")
        || inv.has_long("--search-zip")
        || inv.has_short('z')
        || inv.has_long("--hostname-bin")
        || inv.has_long_abbrev("--pre-glob")
    {
        return Verdict::unknown("runs helper programs on the files");
    }
    if inv.any_variable()
        && inv
            .args
            .iter()
            .any(|a| a.shape == crate::invocation::ArgShape::Dynamic)
    {
        return Verdict::unknown("an argument from an expansion could be `--pre`");
    }
    Verdict::Read
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

    #[test]
    fn awk_programs() {
        for ok in [
            "{print $1}",
            "$3 > 100 {print}",
            "NR==1",
            "{ if (x > 1) print x }",
            "{printf \"%s>\\n\", $1}",
        ] {
            assert!(awk_program_is_read_only(ok), "{ok}");
        }
        for bad in [
            "{print > \"/tmp/x\"}",
            "{ system(\"rm x\") }",
            "{print | \"sh\"}",
            "{print $1 >> \"f\"}",
            "BEGIN { \"date\" | getline d }",
        ] {
            assert!(!awk_program_is_read_only(bad), "{bad}");
        }
    }
}
