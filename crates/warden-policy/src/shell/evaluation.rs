//! Expansions that evaluate text as code in bash: arithmetic on names or
//! substitutions, array subscripts, indirection and the `@P`-style
//! transforms. The word scanner asks these before it trusts a word.

pub(super) const ARITHMETIC: &str =
    "arithmetic on variables or substitutions evaluates their values as code";
const SUBSCRIPT: &str = "an array subscript is arithmetic that can run code";
const INDIRECT: &str = "indirect expansion `${!…}` can run code hidden in a variable";
const TRANSFORM: &str = "the expansion operator can run code (`${x@P}`)";

/// Does the parameter expansion starting after `${` evaluate hidden text?
/// Indirection (`${!x}`), subscripts other than `@`, `*` or a number,
/// substrings whose offset is not a number (`${x:$n}` is arithmetic), and
/// the `@` operators other than quoting and case ones (`${x@P}`) do.
pub(super) fn parameter_evaluates(rest: &[u8]) -> Option<&'static str> {
    let mut i = 0;
    match rest.first() {
        Some(b'!') => return Some(INDIRECT),
        Some(b'#') if rest.get(1).is_some_and(|&b| b != b'}') => i = 1,
        _ => {}
    }
    let name_start = i;
    while rest
        .get(i)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    {
        i += 1;
    }
    if i == name_start && rest.get(i).is_some_and(|b| b"@*#?$!-".contains(b)) {
        i += 1;
    }
    if rest.get(i) == Some(&b'[') {
        let close = rest[i..].iter().position(|&b| b == b']')?;
        let subscript = &rest[i + 1..i + close];
        let number = subscript.strip_prefix(b"-").unwrap_or(subscript);
        let plain = subscript == b"@"
            || subscript == b"*"
            || (!number.is_empty() && number.iter().all(u8::is_ascii_digit));
        if !plain {
            return Some(SUBSCRIPT);
        }
        i += close + 1;
    }
    match rest.get(i) {
        Some(b':') => match rest.get(i + 1) {
            Some(b'-' | b'=' | b'?' | b'+') => None,
            _ => {
                let end = rest[i..]
                    .iter()
                    .position(|&b| b == b'}')
                    .map_or(rest.len(), |p| i + p);
                let numeric = rest[i + 1..end]
                    .iter()
                    .all(|&b| b.is_ascii_digit() || matches!(b, b' ' | b'-' | b':' | b'+'));
                (!numeric).then_some(ARITHMETIC)
            }
        },
        Some(b'@') => match rest.get(i + 1) {
            Some(b'Q' | b'E' | b'a' | b'A' | b'K' | b'k' | b'U' | b'u' | b'L') => None,
            _ => Some(TRANSFORM),
        },
        _ => None,
    }
}

/// Does an arithmetic expression refer to anything but numbers? Names are
/// variables whose values bash evaluates as expressions (`a[$(cmd)]` runs
/// `cmd`), and `$` expansions insert text that is evaluated too.
pub(super) fn arithmetic_evaluates(body: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&b) = body.get(i) {
        if b.is_ascii_digit() {
            // A number, with its base and digits: `0x1f`, `16#ff`, `2#101`.
            while body
                .get(i)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'#' || c == b'_')
            {
                i += 1;
            }
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b == b'`' {
            return true;
        }
        i += 1;
    }
    false
}
