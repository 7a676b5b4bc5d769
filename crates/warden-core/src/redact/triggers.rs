//! Two literal passes over the text find every place a secret could start,
//! so the common case (no secret) costs two SIMD multi-literal searches
//! (Teddy). Each rule then looks only where its literals were found.
//!
//! Why two passes and these spellings: the searcher is fastest with few
//! literals of at least three bytes. Key fragments are matched in three
//! spellings (`pass`, `Pass`, `PASS`) rather than case-insensitively (eight
//! variants each would overflow it; `pAsSwOrD` is not seen), and the short
//! `pw` only where it ends a key (`REDIS_PW=`, `pw=`).

use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};

/// Fragments every secret-named key contains (`DB_PASSWORD`, `clientSecret`,
/// `X-Auth-Token`, `PrivateKey`, `MYSQL_PWD`, `wpa_psk`, `Set-Cookie`,
/// `Authorization`, `requirepass`, `masterauth`, `PVEAPIToken`).
pub const KEY_FRAGMENTS: [&str; 9] = [
    "pass", "pwd", "secret", "token", "auth", "key", "cred", "psk", "cookie",
];

/// `pw` as the last word of a key, spelled out (two bytes are too short
/// for the fast searcher).
const PW_KEY_ENDINGS: [&str; 6] = ["_pw", "_PW", "-pw", "-PW", "pw=", "PW="];

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
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxr-",
    "xoxs-",
    "xoxe-",
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

/// The two literal searchers.
pub struct Triggers {
    key_fragments: AhoCorasick,
    shapes: AhoCorasick,
}

/// Leftmost-first, as an alternation of the literals would match.
fn searcher(literals: &[String]) -> Option<AhoCorasick> {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(literals)
        .ok()
}

impl Triggers {
    pub fn compile() -> Option<Triggers> {
        let mut fragments: Vec<String> = Vec::new();
        for fragment in KEY_FRAGMENTS {
            fragments.push(fragment.to_string());
            fragments.push(capitalised(fragment));
            fragments.push(fragment.to_ascii_uppercase());
        }
        fragments.extend(PW_KEY_ENDINGS.iter().map(|l| l.to_string()));
        let shapes: Vec<String> = SHAPE_LITERALS.iter().map(|l| l.to_string()).collect();
        Some(Triggers {
            key_fragments: searcher(&fragments)?,
            shapes: searcher(&shapes)?,
        })
    }

    pub fn scan(&self, text: &str) -> Hits {
        let mut hits = Hits {
            key_fragments: self
                .key_fragments
                .find_iter(text)
                .map(|m| pw_key(&text[m.range()], m.range()))
                .collect(),
            ..Hits::default()
        };
        // The previous shape hit and its line: only the gap since is searched
        // for a newline, so a long single-line document stays linear.
        let mut previous: Option<(usize, usize)> = None;
        for found in self.shapes.find_iter(text) {
            let family = match &text[found.range()] {
                "-----BEGIN " => {
                    hits.block_starts.push(found.start());
                    continue;
                }
                "://" => {
                    hits.url_separators.push(found.start());
                    continue;
                }
                "Bearer" | "bearer" => ShapeFamily::Bearer,
                _ => ShapeFamily::Token,
            };
            let (from, line) = previous.unwrap_or((0, 0));
            let line = text[from..found.start()]
                .rfind('\n')
                .map_or(line, |i| from + i + 1);
            previous = Some((found.start(), line));
            let entry = ShapeLine {
                start: line,
                family,
            };
            if !hits
                .shape_lines
                .iter()
                .rev()
                .take_while(|l| l.start == line)
                .any(|l| *l == entry)
            {
                hits.shape_lines.push(entry);
            }
        }
        hits
    }
}

/// The `pw` inside `_pw` or `pw=`, so the key around it is found.
fn pw_key(found: &str, at: Range<usize>) -> Range<usize> {
    match found.as_bytes() {
        [b'_' | b'-', ..] => at.start + 1..at.end,
        [.., b'='] => at.start..at.end - 1,
        _ => at,
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Where the literals were found.
#[derive(Debug, Default)]
pub struct Hits {
    /// Key fragments: candidates for assignments and headers.
    pub key_fragments: Vec<Range<usize>>,
    /// Every line holding a shape literal, once per family, in order.
    pub shape_lines: Vec<ShapeLine>,
    /// Positions of `-----BEGIN `.
    pub block_starts: Vec<usize>,
    /// Positions of `://`.
    pub url_separators: Vec<usize>,
}

/// A line to search for one family of shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeLine {
    pub start: usize,
    pub family: ShapeFamily,
}

/// Which pattern a shape literal calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeFamily {
    /// A well-known token prefix (`ghp_`, `AKIA`, `eyJ`, …).
    Token,
    /// `Bearer` outside an Authorization header.
    Bearer,
}
