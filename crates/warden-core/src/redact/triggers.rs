//! One pass over the text finds every place a secret could start, so the
//! common case (no secret) costs a single literal search: the literals
//! below compile to one SIMD multi-literal searcher (Teddy). Each rule then
//! looks only where its literals were found.
//!
//! Key fragments are matched in three spellings (`pass`, `Pass`, `PASS`)
//! rather than case-insensitively: eight case variants per fragment would
//! overflow the fast searcher. `pAsSwOrD` is not seen.

use std::ops::Range;

use regex::Regex;

/// Fragments every secret-named key contains (`DB_PASSWORD`, `clientSecret`,
/// `X-Auth-Token`, `PrivateKey`, `REDIS_PW`, `wpa_psk`, `Set-Cookie`,
/// `Authorization`, `requirepass`, `masterauth`).
pub const KEY_FRAGMENTS: [&str; 9] = [
    "pass", "pw", "secret", "token", "auth", "key", "cred", "psk", "cookie",
];

/// Literals that start (or, for `://` and `Bearer`, announce) a secret
/// recognised by its shape.
const SHAPE_LITERALS: &[&str] = &[
    "-----BEGIN ",
    "://",
    "Bearer",
    "bearer",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "gldt-",
    "glrt-",
    "glptt-",
    "xox",
    "AKIA",
    "ASIA",
    "AIza",
    "sk-",
    "k_live_",
    "k_test_",
    "whsec_",
    "npm_",
    "hf_",
    "dckr_pat_",
    "eyJ",
];

/// Where the literals were found.
#[derive(Debug, Default)]
pub struct Hits {
    /// Key fragments: candidates for assignments and headers.
    pub key_fragments: Vec<Range<usize>>,
    /// Start of every line holding a shape literal, each once, in order.
    pub shape_lines: Vec<usize>,
    /// Positions of `-----BEGIN `.
    pub block_starts: Vec<usize>,
}

pub fn compile() -> Option<Regex> {
    let mut literals: Vec<String> = Vec::new();
    for fragment in KEY_FRAGMENTS {
        literals.push(fragment.to_string());
        literals.push(capitalised(fragment));
        literals.push(fragment.to_ascii_uppercase());
    }
    literals.extend(SHAPE_LITERALS.iter().map(|l| regex::escape(l)));
    Regex::new(&literals.join("|")).ok()
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

pub fn scan(triggers: &Regex, text: &str) -> Hits {
    let mut hits = Hits::default();
    // The previous shape hit and its line: only the gap since is searched
    // for a newline, so a long single-line document stays linear.
    let mut previous: Option<(usize, usize)> = None;
    for found in triggers.find_iter(text) {
        let literal = found.as_str();
        if KEY_FRAGMENTS
            .iter()
            .any(|f| literal.eq_ignore_ascii_case(f))
        {
            hits.key_fragments.push(found.range());
            continue;
        }
        if literal.starts_with('-') {
            hits.block_starts.push(found.start());
        }
        let (from, line) = previous.unwrap_or((0, 0));
        let line = text[from..found.start()]
            .rfind('\n')
            .map_or(line, |i| from + i + 1);
        if hits.shape_lines.last() != Some(&line) {
            hits.shape_lines.push(line);
        }
        previous = Some((found.start(), line));
    }
    hits
}
