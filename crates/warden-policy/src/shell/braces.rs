//! Bash brace expansion (`{a,b}`, `{1..3}`, `x{-delete,}`), done before the
//! program sees its arguments, so flags are matched on what it receives.

use super::ansi_c::decode_ansi_c;

/// More words than this and the expansion is refused.
const MAX_WORDS: usize = 256;

/// One character of a word after quote removal, and whether it was quoted
/// (a quoted `{`, `,` or `*` is literal).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Ch {
    c: char,
    quoted: bool,
}

/// One word of an expansion: its text, and whether it still has unquoted
/// glob characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub text: String,
    pub glob: bool,
}

/// The words bash makes of `raw` by brace expansion and quote removal.
/// `None` when the word also has a parameter, command or arithmetic
/// expansion (the result cannot be known), or expands to too many words.
pub fn expand_braces(raw: &str) -> Option<Vec<Expanded>> {
    let chars = unquote(raw)?;
    let mut out = Vec::new();
    expand(&chars, &mut out)?;
    Some(
        out.into_iter()
            .map(|word| Expanded {
                text: word.iter().map(|ch| ch.c).collect(),
                glob: word
                    .iter()
                    .any(|ch| !ch.quoted && matches!(ch.c, '*' | '?' | '[')),
            })
            .collect(),
    )
}

/// Quote removal that keeps track of what was quoted. `None` for words with
/// `$…` or backquote expansions.
fn unquote(raw: &str) -> Option<Vec<Ch>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    let push_all = |out: &mut Vec<Ch>, s: &str| {
        out.extend(s.chars().map(|c| Ch { c, quoted: true }));
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next()
                    && next != '\n'
                {
                    out.push(Ch {
                        c: next,
                        quoted: true,
                    });
                }
            }
            '\'' => {
                let mut s = String::new();
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    s.push(d);
                }
                push_all(&mut out, &s);
            }
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '$' | '`' => return None,
                        '\\' => match chars.peek() {
                            Some(&e @ ('$' | '`' | '"' | '\\')) => {
                                chars.next();
                                out.push(Ch { c: e, quoted: true });
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => out.push(Ch { c: d, quoted: true }),
                        },
                        _ => out.push(Ch { c: d, quoted: true }),
                    }
                }
            }
            '$' if chars.peek() == Some(&'\'') => {
                chars.next();
                let mut s = String::new();
                while let Some(d) = chars.next() {
                    match d {
                        '\'' => break,
                        '\\' => {
                            s.push('\\');
                            if let Some(e) = chars.next() {
                                s.push(e);
                            }
                        }
                        _ => s.push(d),
                    }
                }
                push_all(&mut out, &decode_ansi_c(&s));
            }
            '$' => match chars.peek() {
                Some(&d) if d.is_ascii_alphanumeric() || "_{([@*#?$!-\"".contains(d) => {
                    return None;
                }
                _ => out.push(Ch { c, quoted: false }),
            },
            '`' => return None,
            _ => out.push(Ch { c, quoted: false }),
        }
    }
    Some(out)
}

/// Expand `word` into `out` (bash's order: left to right, alternatives in
/// place). `None` when the result grows past [`MAX_WORDS`].
fn expand(word: &[Ch], out: &mut Vec<Vec<Ch>>) -> Option<()> {
    let Some((open, close, parts)) = first_expansion(word)? else {
        if out.len() >= MAX_WORDS {
            return None;
        }
        out.push(word.to_vec());
        return Some(());
    };
    let preamble = &word[..open];
    let postscript = &word[close + 1..];
    for part in parts {
        let mut joined = Vec::with_capacity(preamble.len() + part.len() + postscript.len());
        joined.extend_from_slice(preamble);
        joined.extend_from_slice(&part);
        joined.extend_from_slice(postscript);
        expand(&joined, out)?;
    }
    Some(())
}

/// The bounds of a `{…}` that expands, and its alternatives.
type Found = (usize, usize, Vec<Vec<Ch>>);

/// The first `{…}` that expands (`Some(None)` when none does; `None` when
/// a sequence is too long).
fn first_expansion(word: &[Ch]) -> Option<Option<Found>> {
    let mut from = 0;
    while let Some(open) = word[from..]
        .iter()
        .position(|ch| ch.c == '{' && !ch.quoted)
        .map(|p| from + p)
    {
        let Some(close) = matching_close(word, open) else {
            return Some(None);
        };
        let inner = &word[open + 1..close];
        let commas = top_level_commas(inner);
        if !commas.is_empty() {
            let mut parts = Vec::with_capacity(commas.len() + 1);
            let mut start = 0;
            for comma in commas {
                parts.push(inner[start..comma].to_vec());
                start = comma + 1;
            }
            parts.push(inner[start..].to_vec());
            return Some(Some((open, close, parts)));
        }
        match sequence(inner) {
            Some(Ok(parts)) => return Some(Some((open, close, parts))),
            Some(Err(TooLong)) => return None,
            None => {}
        }
        from = open + 1;
    }
    Some(None)
}

/// A sequence expression with more than [`MAX_WORDS`] words.
struct TooLong;

fn matching_close(word: &[Ch], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, ch) in word.iter().enumerate().skip(open) {
        if ch.quoted {
            continue;
        }
        match ch.c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn top_level_commas(inner: &[Ch]) -> Vec<usize> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for (i, ch) in inner.iter().enumerate() {
        if ch.quoted {
            continue;
        }
        match ch.c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => out.push(i),
            _ => {}
        }
    }
    out
}

/// `{1..5}`, `{01..10..2}`, `{a..e}`: the words of a sequence expression
/// (`None` when `inner` is not one).
fn sequence(inner: &[Ch]) -> Option<Result<Vec<Vec<Ch>>, TooLong>> {
    if inner.iter().any(|ch| ch.quoted) {
        return None;
    }
    let text: String = inner.iter().map(|ch| ch.c).collect();
    let mut fields = text.split("..");
    let (start, end) = (fields.next()?, fields.next()?);
    let step = match fields.next() {
        Some(s) => s.parse::<i64>().ok()?.unsigned_abs().max(1),
        None => 1,
    };
    if fields.next().is_some() {
        return None;
    }
    let literal = |s: String| s.chars().map(|c| Ch { c, quoted: false }).collect();
    if let (Ok(a), Ok(b)) = (start.parse::<i64>(), end.parse::<i64>()) {
        let count = a.abs_diff(b) / step + 1;
        if count > MAX_WORDS as u64 {
            return Some(Err(TooLong));
        }
        let width = if [start, end]
            .iter()
            .any(|s| s.trim_start_matches('-').starts_with('0') && s.len() > 1)
        {
            start.len().max(end.len())
        } else {
            0
        };
        let mut out = Vec::new();
        let mut n = a;
        for _ in 0..count {
            out.push(literal(format!("{n:0width$}")));
            n = if a <= b {
                n + step as i64
            } else {
                n - step as i64
            };
        }
        return Some(Ok(out));
    }
    let (mut a, mut b) = (start.chars(), end.chars());
    let (Some(a), None, Some(b), None) = (a.next(), a.next(), b.next(), b.next()) else {
        return None;
    };
    if !a.is_ascii_alphabetic() || !b.is_ascii_alphabetic() {
        return None;
    }
    let (lo, hi) = (a as u32, b as u32);
    let mut out = Vec::new();
    let mut n = lo;
    loop {
        out.push(literal(char::from_u32(n)?.to_string()));
        if n == hi {
            break;
        }
        let next = if lo <= hi {
            n.checked_add(step as u32)?
        } else {
            n.checked_sub(step as u32)?
        };
        if (lo <= hi && next > hi) || (lo > hi && next < hi) {
            break;
        }
        n = next;
    }
    Some(Ok(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(raw: &str) -> Vec<String> {
        expand_braces(raw)
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.text)
            .collect()
    }

    #[test]
    fn expands_like_bash() {
        assert_eq!(words("{-delete,}"), ["-delete", ""]);
        assert_eq!(words("a{b,c}d"), ["abd", "acd"]);
        assert_eq!(words("{a,b}{1,2}"), ["a1", "a2", "b1", "b2"]);
        assert_eq!(words("{a,{b,c}}"), ["a", "b", "c"]);
        assert_eq!(words("-{d,}elete"), ["-delete", "-elete"]);
        assert_eq!(words("x{1..3}"), ["x1", "x2", "x3"]);
        assert_eq!(words("{3..1}"), ["3", "2", "1"]);
        assert_eq!(words("{01..03}"), ["01", "02", "03"]);
        assert_eq!(words("{1..7..3}"), ["1", "4", "7"]);
        assert_eq!(words("{a..c}"), ["a", "b", "c"]);
        assert_eq!(words("/{,}"), ["/", "/"]);
        // Quoted braces and commas are literal.
        assert_eq!(words("'{a,b}'"), ["{a,b}"]);
        assert_eq!(words("{a\\,b}"), ["{a,b}"]);
        assert_eq!(words("{\"-\"del,x}"), ["-del", "x"]);
        // Not expansions.
        assert_eq!(words("{a}"), ["{a}"]);
        assert_eq!(words("{}"), ["{}"]);
        assert_eq!(words("{a..}"), ["{a..}"]);
    }

    #[test]
    fn refuses_what_it_cannot_know() {
        assert!(expand_braces("{$x,y}").is_none());
        assert!(expand_braces("{a,\"$x\"}").is_none());
        assert!(expand_braces("{1..100000}").is_none());
        assert!(expand_braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}").is_none());
    }

    #[test]
    fn globs_survive() {
        let e = expand_braces("{*,'*'}").unwrap_or_default();
        assert!(e[0].glob && !e[1].glob);
    }
}
