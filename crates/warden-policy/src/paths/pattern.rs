//! A path as a command may name it: literal characters, glob wildcards
//! (`*`, `?`, `[…]`) that stay within one component, and [`Tok::Any`] for
//! text computed when the command runs (`$VAR`, `$(…)`, `` `…` ``), which
//! may be anything, slashes included.

/// One element of a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Lit(char),
    /// `*`: any text within one component.
    Star,
    /// `?`: one character other than `/`.
    One,
    /// `[…]`: one character of the set (or not of it).
    Class {
        chars: Vec<ClassItem>,
        negated: bool,
    },
    /// Computed at run time: any text at all.
    Any,
}

/// A character or a range in a `[…]` class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassItem {
    Char(char),
    Range(char, char),
}

/// A path pattern, absolute once [`Pattern::rooted`] made it so.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pattern {
    pub toks: Vec<Tok>,
}

/// What the text of a word may contain besides literal characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wildcards {
    /// Unquoted `*`, `?`, `[` are globs.
    pub globs: bool,
    /// `$…` and `` `…` `` are expansions (computed text).
    pub expansions: bool,
}

impl Pattern {
    /// `text` read with `wildcards`.
    pub fn from_text(text: &str, wildcards: Wildcards) -> Pattern {
        let chars: Vec<char> = text.chars().collect();
        let mut toks = Vec::with_capacity(chars.len());
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            match c {
                '$' if wildcards.expansions => {
                    i = skip_expansion(&chars, i);
                    push_any(&mut toks);
                    continue;
                }
                '`' if wildcards.expansions => {
                    i = chars[i + 1..]
                        .iter()
                        .position(|d| *d == '`')
                        .map_or(chars.len(), |end| i + end + 2);
                    push_any(&mut toks);
                    continue;
                }
                '*' if wildcards.globs => {
                    if toks.last() != Some(&Tok::Star) {
                        toks.push(Tok::Star);
                    }
                }
                '?' if wildcards.globs => toks.push(Tok::One),
                '[' if wildcards.globs => {
                    if let Some((class, end)) = parse_class(&chars, i) {
                        toks.push(class);
                        i = end;
                        continue;
                    }
                    toks.push(Tok::Lit('['));
                }
                c => toks.push(Tok::Lit(c)),
            }
            i += 1;
        }
        Pattern { toks }
    }

    /// The pattern made of `toks`.
    pub fn from_toks(toks: &[Tok]) -> Pattern {
        Pattern {
            toks: toks.to_vec(),
        }
    }

    /// A path taken literally, whatever characters it holds.
    pub fn literal_path(path: &str) -> Pattern {
        Pattern {
            toks: path.chars().map(Tok::Lit).collect(),
        }
    }

    /// Whether every element is a literal character.
    pub fn is_literal(&self) -> bool {
        self.toks.iter().all(|t| matches!(t, Tok::Lit(_)))
    }

    /// Whether it holds computed text.
    pub fn has_any(&self) -> bool {
        self.toks.contains(&Tok::Any)
    }

    /// Whether it is nothing but computed text and wildcards: it could be
    /// any path at all.
    pub fn is_wholly_computed(&self) -> bool {
        self.has_any()
            && !self
                .toks
                .iter()
                .any(|t| matches!(t, Tok::Lit(c) if *c != '/'))
    }

    /// The literal text, when [`Pattern::is_literal`].
    pub fn literal(&self) -> Option<String> {
        self.toks
            .iter()
            .map(|t| match t {
                Tok::Lit(c) => Some(*c),
                Tok::Star | Tok::One | Tok::Class { .. } | Tok::Any => None,
            })
            .collect()
    }

    pub fn starts_with_slash(&self) -> bool {
        self.toks.first() == Some(&Tok::Lit('/'))
    }

    /// Absolute: relative to `base` unless it starts with `/` (or with
    /// computed text, which may be absolute already).
    pub fn rooted(&self, base: &str) -> Pattern {
        self.rooted_at(&Pattern::literal_path(base))
    }

    /// Absolute: below `base` (itself a pattern) unless it starts with `/`
    /// or with computed text.
    pub fn rooted_at(&self, base: &Pattern) -> Pattern {
        if self.starts_with_slash() || self.toks.first() == Some(&Tok::Any) {
            return self.clone();
        }
        let mut toks = base.toks.clone();
        if toks.last() != Some(&Tok::Lit('/')) {
            toks.push(Tok::Lit('/'));
        }
        toks.extend(self.toks.iter().cloned());
        Pattern { toks }
    }

    /// `//` collapsed, `.` components dropped, `..` taking the previous
    /// component away, trailing `/` dropped (as a path is read lexically;
    /// symbolic links are for the filesystem check).
    pub fn normalized(&self) -> Pattern {
        let mut components: Vec<Vec<Tok>> = Vec::new();
        let rooted = self.starts_with_slash();
        for component in self.toks.split(|t| *t == Tok::Lit('/')) {
            match component {
                [] | [Tok::Lit('.')] => {}
                [Tok::Lit('.'), Tok::Lit('.')] => match components.last() {
                    // After computed text, `..` could be anywhere.
                    Some(last) if last.contains(&Tok::Any) => components.push(vec![Tok::Any]),
                    Some(_) => {
                        components.pop();
                    }
                    None if rooted => {}
                    None => components.push(component.to_vec()),
                },
                _ => components.push(component.to_vec()),
            }
        }
        let mut toks = Vec::with_capacity(self.toks.len());
        for (n, component) in components.into_iter().enumerate() {
            if n > 0 || rooted {
                toks.push(Tok::Lit('/'));
            }
            toks.extend(component);
        }
        if toks.is_empty() && rooted {
            toks.push(Tok::Lit('/'));
        }
        Pattern { toks }
    }

    /// The ways this pattern goes on once it has matched all of `path`:
    /// `Some(rest)` for each (an empty rest: it names `path` itself).
    pub fn rests_after(&self, path: &str) -> Vec<Pattern> {
        let path: Vec<char> = path.chars().collect();
        let reach = self.reach(&path);
        reach
            .iter()
            .enumerate()
            .filter(|(_, row)| row[path.len()])
            .map(|(at, _)| Pattern {
                toks: self.toks[at..].to_vec(),
            })
            .collect()
    }

    /// Whether it matches all of `path`.
    pub fn matches(&self, path: &str) -> bool {
        let path: Vec<char> = path.chars().collect();
        self.reach(&path)[self.toks.len()][path.len()]
    }

    /// `reach[p][s]`: the first `p` elements match the first `s` characters.
    fn reach(&self, path: &[char]) -> Vec<Vec<bool>> {
        let (n, m) = (self.toks.len(), path.len());
        let mut reach = vec![vec![false; m + 1]; n + 1];
        reach[0][0] = true;
        for p in 0..n {
            for s in 0..=m {
                if !reach[p][s] {
                    continue;
                }
                match &self.toks[p] {
                    Tok::Lit(c) => {
                        if path.get(s) == Some(c) {
                            reach[p + 1][s + 1] = true;
                        }
                    }
                    Tok::One => {
                        if path.get(s).is_some_and(|c| *c != '/') {
                            reach[p + 1][s + 1] = true;
                        }
                    }
                    Tok::Class { chars, negated } => {
                        if let Some(c) = path.get(s)
                            && *c != '/'
                            && class_has(chars, *c) != *negated
                        {
                            reach[p + 1][s + 1] = true;
                        }
                    }
                    Tok::Star => {
                        let mut t = s;
                        reach[p + 1][t] = true;
                        while t < m && path[t] != '/' {
                            t += 1;
                            reach[p + 1][t] = true;
                        }
                    }
                    Tok::Any => {
                        for row in &mut reach[p + 1][s..=m] {
                            *row = true;
                        }
                    }
                }
            }
        }
        reach
    }
}

fn push_any(toks: &mut Vec<Tok>) {
    if toks.last() != Some(&Tok::Any) {
        toks.push(Tok::Any);
    }
}

/// Past the expansion starting at `chars[at] == '$'`.
fn skip_expansion(chars: &[char], at: usize) -> usize {
    let close = match chars.get(at + 1) {
        Some('(') => ')',
        Some('{') => '}',
        Some('[') => ']',
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let mut end = at + 1;
            while chars
                .get(end)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                end += 1;
            }
            return end;
        }
        // `$1`, `$$`, `$?`, `$@`, …; a lone `$` is literal text in bash,
        // but reading it as computed only widens the match.
        Some(_) => return at + 2,
        None => return at + 1,
    };
    let open = chars[at + 1];
    let mut depth = 0usize;
    for (offset, c) in chars[at + 1..].iter().enumerate() {
        if *c == open {
            depth += 1;
        } else if *c == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return at + 1 + offset + 1;
            }
        }
    }
    chars.len()
}

/// `[…]` at `chars[at]`: the class and the index past it.
fn parse_class(chars: &[char], at: usize) -> Option<(Tok, usize)> {
    let mut i = at + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    while let Some(&c) = chars.get(i) {
        if c == ']' && !first {
            return Some((
                Tok::Class {
                    chars: items,
                    negated,
                },
                i + 1,
            ));
        }
        first = false;
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|e| *e != ']') {
            items.push(ClassItem::Range(c, chars[i + 2]));
            i += 3;
        } else {
            items.push(ClassItem::Char(c));
            i += 1;
        }
    }
    None
}

fn class_has(items: &[ClassItem], c: char) -> bool {
    items.iter().any(|item| match item {
        ClassItem::Char(x) => *x == c,
        ClassItem::Range(a, b) => (*a..=*b).contains(&c),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: Wildcards = Wildcards {
        globs: true,
        expansions: true,
    };

    fn p(text: &str) -> Pattern {
        Pattern::from_text(text, BOTH)
    }

    #[test]
    fn matching_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("/var/lib/warden", "/var/lib/warden", true),
            ("/var/lib/w*", "/var/lib/warden", true),
            ("/var/*/warden", "/var/lib/warden", true),
            ("/*", "/var/lib", false),
            ("/v?r/l[a-i]b/warde[!x]", "/var/lib/warden", true),
            ("/v?r/l[j-z]b/warden", "/var/lib/warden", false),
            ("$D", "/var/lib/warden", true),
            ("/var/$X", "/var/lib/warden", true),
            ("${D}/warden", "/var/lib/warden", true),
            ("$(echo /var)/lib/warden", "/var/lib/warden", true),
            ("`echo /var`/lib/warden", "/var/lib/warden", true),
            ("/var/lib/warden2", "/var/lib/warden", false),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(p(pattern).matches(path), *expected, "{pattern} vs {path}");
        }
    }

    #[test]
    fn rests_say_how_a_pattern_goes_on_inside_a_path() {
        let rests = p("/var/lib/w*/admin-password").rests_after("/var/lib/warden");
        assert!(rests.contains(&p("/admin-password")), "{rests:?}");
        let rests = p("$D/admin-password").rests_after("/var/lib/warden");
        assert!(rests.contains(&p("/admin-password")), "{rests:?}");
        assert!(p("/etc/passwd").rests_after("/var/lib/warden").is_empty());
    }

    #[test]
    fn normalizing_is_lexical() {
        let cases: &[(&str, &str)] = &[
            ("/var//lib/./warden/", "/var/lib/warden"),
            ("/tmp/../var/lib/warden", "/var/lib/warden"),
            ("/../../var", "/var"),
            ("/", "/"),
            ("/..", "/"),
            ("a/../b", "b"),
        ];
        for (text, expected) in cases {
            let literal = Pattern::from_text(
                text,
                Wildcards {
                    globs: false,
                    expansions: false,
                },
            );
            assert_eq!(
                literal.normalized().literal().as_deref(),
                Some(*expected),
                "{text}"
            );
        }
        // `..` after computed text could be anywhere.
        assert!(p("$X/../warden").normalized().has_any());
    }

    #[test]
    fn quoted_text_is_literal() {
        let literal = Pattern::from_text(
            "/tmp/$x*",
            Wildcards {
                globs: false,
                expansions: false,
            },
        );
        assert!(literal.is_literal());
        assert!(p("$x").is_wholly_computed());
        assert!(p("$x/*").is_wholly_computed());
        assert!(!p("$x/admin-password").is_wholly_computed());
    }
}
