//! Catastrophic commands in text the parser refused (`sh -c 'rm -rf / ; (('`)
//! and fork bombs, which define functions the parser never accepts.

use std::borrow::Cow;

use crate::commands;
use crate::invocation::{Arg, Invocation};
use crate::verdict::{Reason, Verdict};

/// Programs that run the command in their operands, and how many operands
/// of their own come first (`chroot DIR cmd`, `timeout 5 cmd`).
const RUNNERS: &[(&str, usize)] = &[
    ("sudo", 0),
    ("doas", 0),
    ("pkexec", 0),
    ("env", 0),
    ("nice", 0),
    ("ionice", 0),
    ("nohup", 0),
    ("setsid", 0),
    ("stdbuf", 0),
    ("command", 0),
    ("builtin", 0),
    ("exec", 0),
    ("eval", 0),
    ("xargs", 0),
    ("busybox", 0),
    ("toybox", 0),
    ("time", 0),
    ("nsenter", 0),
    ("unshare", 0),
    ("systemd-run", 0),
    ("setpriv", 0),
    ("runuser", 0),
    ("su", 0),
    ("strace", 0),
    ("ltrace", 0),
    ("taskset", 1),
    ("chrt", 1),
    ("timeout", 1),
    ("chroot", 1),
    ("flock", 1),
    ("watch", 0),
    ("sh", 0),
    ("bash", 0),
    ("dash", 0),
    ("zsh", 0),
    ("ash", 0),
    ("ksh", 0),
];

/// A catastrophic command somewhere in `text`, read loosely: quotes dropped,
/// split at every shell operator, wrappers skipped.
pub fn scan_unparsed(text: &str) -> Option<Reason> {
    if let Some(reason) = fork_bomb(text) {
        return Some(reason);
    }
    let cleaned: Cow<'_, str> = if text.contains(['\'', '"', '\\']) {
        Cow::Owned(
            text.chars()
                .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                .collect(),
        )
    } else {
        Cow::Borrowed(text)
    };
    let mut words: Vec<&str> = Vec::new();
    cleaned
        .split(|c: char| {
            matches!(
                c,
                ';' | '&' | '|' | '(' | ')' | '{' | '}' | '\n' | '`' | '<' | '>'
            )
        })
        .find_map(|segment| {
            words.clear();
            words.extend(
                segment
                    .split_whitespace()
                    .filter(|w| *w != "$" && *w != "!"),
            );
            scan_words(&words)
        })
}

fn scan_words(words: &[&str]) -> Option<Reason> {
    let mut i = 0;
    // Assignments before the command.
    while words
        .get(i)
        .is_some_and(|w| w.contains('=') && !w.starts_with('-'))
    {
        i += 1;
    }
    loop {
        let word = words.get(i)?;
        let name = word.rsplit('/').next().unwrap_or(word);
        let name = name.trim_start_matches('$');
        if let Some(&(_, own)) = RUNNERS.iter().find(|(n, _)| *n == name) {
            i += 1;
            // The runner's options, then its own operands.
            while words
                .get(i)
                .is_some_and(|w| w.starts_with('-') || w.contains('='))
            {
                i += 1;
            }
            i += own;
            continue;
        }
        if name == "coreutils" {
            // `coreutils --coreutils-prog=rm -rf /`
            let prog = words.get(i + 1)?.strip_prefix("--coreutils-prog=")?;
            return check_words(prog, &words[i + 2..]);
        }
        return check_words(name, &words[i + 1..]);
    }
}

fn check_words(name: &str, words: &[&str]) -> Option<Reason> {
    let args: Vec<Arg<'_>> = words.iter().map(|w| Arg::literal(w)).collect();
    let inv = Invocation::new(name, &args);
    if let Some(reason) = super::check(&inv) {
        return Some(reason);
    }
    // Only a word that names a device can make the write catastrophic.
    if !words.iter().any(|w| crate::devices::may_name_device(w)) {
        return None;
    }
    let verdict =
        commands::lookup(name).map_or_else(|| Verdict::unknown("not known"), |rule| rule(&inv));
    super::device_write(&inv, &verdict, commands::lookup(name).is_some())
}

/// `:(){ :|:& };:` and its renamings: a function that calls itself twice,
/// one in the background or through a pipe.
pub fn fork_bomb(text: &str) -> Option<Reason> {
    // Most lines define nothing: a function needs a body (`{`) and `()`
    // or the `function` keyword. No copy unless there is one to look at.
    let bytes = text.as_bytes();
    if !bytes.contains(&b'{') || !(bytes.contains(&b'(') || text.contains("function")) {
        return None;
    }
    // A name comes only from `( )` right before a `{` or from the
    // `function` keyword (quotes and backslashes are dropped below).
    if !parens_before_brace(bytes) && !has_function_keyword(bytes) {
        return None;
    }
    let text: Cow<'_, str> = if bytes.iter().any(|b| matches!(b, b'\'' | b'"' | b'\\')) {
        Cow::Owned(
            text.chars()
                .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                .collect(),
        )
    } else {
        Cow::Borrowed(text)
    };
    for (open, _) in text.match_indices('{') {
        let Some(name) = function_name(&text[..open]) else {
            continue;
        };
        let body: String = text[open + 1..]
            .chars()
            .take_while(|&c| c != '}')
            .filter(|c| !c.is_whitespace())
            .collect();
        let twice = [
            format!("{name}|{name}"),
            format!("{name}&{name}"),
            format!("{name}&;{name}"),
        ];
        if twice.iter().any(|t| body.contains(t.as_str())) {
            return Some(Cow::Borrowed("catastrophic: fork bomb"));
        }
    }
    None
}

/// Quotes and backslashes, which the fork-bomb check drops before reading.
fn is_dropped(b: u8) -> bool {
    matches!(b, b'\'' | b'"' | b'\\')
}

/// Is some `{` preceded by `(` and `)`, with only whitespace, quotes and
/// backslashes around them?
fn parens_before_brace(bytes: &[u8]) -> bool {
    let skip_back = |mut at: usize| {
        // Any non-ASCII byte may be part of a Unicode space: skipped too.
        while at > 0 && {
            let b = bytes[at - 1];
            b.is_ascii_whitespace() || b == 0x0b || b >= 0x80 || is_dropped(b)
        } {
            at -= 1;
        }
        at
    };
    bytes.iter().enumerate().any(|(open, &b)| {
        if b != b'{' {
            return false;
        }
        let at = skip_back(open);
        if at == 0 || bytes[at - 1] != b')' {
            return false;
        }
        let at = skip_back(at - 1);
        at > 0 && bytes[at - 1] == b'('
    })
}

/// Does the text spell `function`, with quotes or backslashes anywhere in it?
fn has_function_keyword(bytes: &[u8]) -> bool {
    (0..bytes.len()).any(|start| {
        let mut rest = bytes[start..].iter().filter(|&&b| !is_dropped(b));
        bytes[start] == b'f' && b"function".iter().all(|want| rest.next() == Some(want))
    })
}

/// The name of the function whose body starts after `before`: `NAME ( )`
/// or `function NAME [( )]`.
fn function_name(before: &str) -> Option<&str> {
    let head = before.trim_end();
    let (head, parens) = match head.strip_suffix(')') {
        Some(h) => (h.trim_end().strip_suffix('(')?.trim_end(), true),
        None => (head, false),
    };
    let start = head
        .char_indices()
        .rfind(|(_, c)| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '{' | '}'))
        .map_or(0, |(p, c)| p + c.len_utf8());
    let name = &head[start..];
    if name.is_empty() {
        return None;
    }
    let keyword = head[..start].trim_end().ends_with("function");
    (parens || keyword).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_bombs() {
        for bomb in [
            ":(){ :|:& };:",
            "bomb() { bomb | bomb & }; bomb",
            "f(){ f & f; }; f",
            "function f { f|f& }; f",
            "function g() { g | g & } ; g",
            "bash -c ':(){ :|:& };:'",
            // Quotes and backslashes around the parentheses are dropped
            // before reading, as the shell would.
            "f'('')' { f|f& }; f",
            "f\\(\\) { f|f& }; f",
            "f ( \"\" ) \t{ f|f& }; f",
            "x=1; function \"g\" { g|g& }; g",
        ] {
            assert!(fork_bomb(bomb).is_some(), "{bomb}");
        }
        // `{` without `( )` or `function` before it defines nothing.
        for ok in [
            "find . -exec rm {} \\;",
            "awk '{ if (x) { print } }'",
            "echo {a,b} (x)",
        ] {
            assert!(fork_bomb(ok).is_none(), "{ok}");
        }
        for ok in ["f() { echo hi; }; f", "ls | grep x & wait"] {
            assert!(fork_bomb(ok).is_none(), "{ok}");
        }
    }

    #[test]
    fn unparsed_scripts() {
        for text in [
            "rm -rf / ; ((",
            "sudo rm -rf / )",
            "sh -c 'rm -rf /' )",
            "echo x; dd if=/dev/zero of=/dev/sda (",
            "timeout 5 rm -rf /etc ((",
            "coreutils --coreutils-prog=rm -rf / )",
            "cp /dev/zero /dev/sda ((",
        ] {
            assert!(scan_unparsed(text).is_some(), "{text}");
        }
        assert!(scan_unparsed("ls -la ((").is_none());
    }
}
