//! Values that may stay: they hold no secret. Everything else assigned to a
//! secret-named key is redacted, including numbers (a PIN is a password) and
//! well-known defaults such as `changeme` or `admin` (a default never changed
//! is exactly the secret an attacker wants).

use super::kind::MARKER_PREFIX;

/// Words that stand for "no value here" or a flag, never for a secret.
const NON_SECRET_WORDS: &[&str] = &[
    "redacted",
    "hidden",
    "(hidden)",
    "[hidden]",
    "<hidden>",
    "masked",
    "null",
    "(null)",
    "none",
    "(none)",
    "nil",
    "~",
    "undefined",
    "n/a",
    "true",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "!vault",
    "$ansible_vault",
];

/// Is `value` (quotes already removed) empty, a mask, a reference to a
/// secret kept elsewhere (`${DB_PASSWORD}`, `{{ .Values.x }}`), a flag, or
/// an earlier marker?
pub fn is_placeholder(value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() || value.starts_with(MARKER_PREFIX.trim_end()) {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    if NON_SECRET_WORDS.iter().any(|w| lower == *w) || lower.starts_with("!vault") {
        return true;
    }
    is_mask(value) || is_reference(value) || is_angle_placeholder(value)
}

/// `****`, `xxxxxx`, `•••`, `...`: a value someone already hid.
fn is_mask(value: &str) -> bool {
    let all = |allowed: &[char]| value.chars().all(|c| allowed.contains(&c));
    all(&['*', '•', '·', '#', '?', '.'])
        || (value.chars().count() >= 3 && all(&['x', 'X']))
        || value.trim_matches('*').eq_ignore_ascii_case("redacted")
}

/// `${VAR}`, `$VAR`, `{{ var }}`, `%(var)s`: the secret lives elsewhere.
fn is_reference(value: &str) -> bool {
    let braced = |open: &str, close: &str| {
        value.starts_with(open) && value.ends_with(close) && value.len() > open.len() + close.len()
    };
    if braced("${", "}") || braced("{{", "}}") || braced("%(", ")s") {
        return true;
    }
    value.strip_prefix('$').is_some_and(|name| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// `<your-password>`, `<redacted>`: documentation placeholders.
fn is_angle_placeholder(value: &str) -> bool {
    value.len() > 2
        && value.starts_with('<')
        && value.ends_with('>')
        && !value[1..value.len() - 1].contains(['<', '>'])
}
