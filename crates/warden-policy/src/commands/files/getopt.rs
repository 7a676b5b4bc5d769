//! A getopt_long-style walk over a command's arguments, shared by the file
//! and text rules: short clusters with glued or separate values, long options
//! with GNU unambiguous abbreviations, `--`, and the words whose runtime text
//! is unknown (a `$VAR` or glob can become any option).

use crate::invocation::{Arg, ArgShape, is_short_cluster};

/// How one program reads its options.
pub(crate) struct Getopt {
    /// Short options that need a value (`-o FILE`, `-oFILE`).
    pub short_value: &'static str,
    /// Short options whose value is optional and only glued (`-i.bak`, `-Iseconds`).
    pub short_optional: &'static str,
    /// Short options without a value.
    pub short_flag: &'static str,
    /// Long options (with `--`) that need a value (`--output F`, `--output=F`).
    pub long_value: &'static [&'static str],
    /// Long options whose value is optional (only as `--name=value`).
    pub long_optional: &'static [&'static str],
    /// Long options without a value.
    pub long_flag: &'static [&'static str],
    /// Options end at the first operand (awk, POSIX `+` optstrings).
    pub stop_at_operand: bool,
}

impl Getopt {
    pub(crate) const fn new() -> Getopt {
        Getopt {
            short_value: "",
            short_optional: "",
            short_flag: "",
            long_value: &[],
            long_optional: &[],
            long_flag: &[],
            stop_at_operand: false,
        }
    }

    pub(crate) fn walk<'i, 'a>(&'static self, args: &'i [Arg<'a>]) -> Toks<'i, 'a> {
        Toks {
            args,
            spec: self,
            next: 0,
            cluster: None,
            ended: false,
            pending: None,
        }
    }

    /// The full name of a long option: exact, or the only known option it
    /// abbreviates. `None` when unknown or ambiguous.
    fn resolve(&self, head: &str) -> Option<(&'static str, LongKind)> {
        let all = self
            .long_value
            .iter()
            .map(|n| (*n, LongKind::Value))
            .chain(self.long_optional.iter().map(|n| (*n, LongKind::Optional)))
            .chain(self.long_flag.iter().map(|n| (*n, LongKind::Flag)));
        let mut found = None;
        for (name, kind) in all {
            if name == head {
                return Some((name, kind));
            }
            if name.starts_with(head) {
                if found.is_some() {
                    return None;
                }
                found = Some((name, kind));
            }
        }
        found
    }
}

#[derive(Clone, Copy)]
enum LongKind {
    Value,
    Optional,
    Flag,
}

/// One option or operand, as the program sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok<'i> {
    Short {
        flag: char,
        value: Option<&'i str>,
    },
    /// A long option resolved to its full name.
    Long {
        name: &'static str,
        value: Option<&'i str>,
    },
    /// An operand (everything after `--` is one). Check `args[index].shape`
    /// when the number of operands matters: a glob can be several.
    Pos { index: usize, text: &'i str },
    /// An option the spec does not know, or an ambiguous abbreviation.
    Unknown { text: &'i str },
    /// A word that could expand into options or several words.
    Variable { index: usize },
}

/// Iterator over [`Tok`]s, see [`Getopt::walk`].
pub(crate) struct Toks<'i, 'a> {
    args: &'i [Arg<'a>],
    spec: &'static Getopt,
    next: usize,
    /// (argument index, byte offset) inside a short cluster.
    cluster: Option<(usize, usize)>,
    ended: bool,
    pending: Option<Tok<'i>>,
}

impl<'i> Toks<'i, '_> {
    /// Takes the next word as an option's value; a value that could split
    /// into several words is reported as variable.
    fn take_value(&mut self) -> Option<&'i str> {
        let args = self.args;
        let arg = args.get(self.next)?;
        if !single_word(arg) {
            self.pending = Some(Tok::Variable { index: self.next });
        }
        self.next += 1;
        Some(&arg.text)
    }
}

impl<'i> Iterator for Toks<'i, '_> {
    type Item = Tok<'i>;

    fn next(&mut self) -> Option<Tok<'i>> {
        if let Some(tok) = self.pending.take() {
            return Some(tok);
        }
        let args = self.args;
        loop {
            if let Some((index, offset)) = self.cluster {
                let text: &'i str = args.get(index).map_or("", |a| &*a.text);
                let Some(flag) = text.get(offset..).and_then(|r| r.chars().next()) else {
                    self.cluster = None;
                    continue;
                };
                let after = offset + flag.len_utf8();
                let glued = text.get(after..).unwrap_or_default();
                if self.spec.short_value.contains(flag) {
                    self.cluster = None;
                    let value = if glued.is_empty() {
                        self.take_value()
                    } else {
                        Some(glued)
                    };
                    return Some(Tok::Short { flag, value });
                }
                if self.spec.short_optional.contains(flag) {
                    self.cluster = None;
                    let value = (!glued.is_empty()).then_some(glued);
                    return Some(Tok::Short { flag, value });
                }
                if matches!(flag, '$' | '`' | '"' | '\'') {
                    self.cluster = None;
                    return Some(Tok::Variable { index });
                }
                self.cluster = (!glued.is_empty()).then_some((index, after));
                if self.spec.short_flag.contains(flag) {
                    return Some(Tok::Short { flag, value: None });
                }
                self.cluster = None;
                return Some(Tok::Unknown {
                    text: text.get(offset..).unwrap_or(text),
                });
            }
            let index = self.next;
            let arg = args.get(index)?;
            let text: &'i str = &arg.text;
            self.next += 1;
            if self.ended {
                return Some(Tok::Pos { index, text });
            }
            if !option_safe(arg) {
                return Some(Tok::Variable { index });
            }
            if text == "--" {
                self.ended = true;
                continue;
            }
            if text.starts_with("--") {
                let (head, inline) = match text.split_once('=') {
                    Some((h, v)) => (h, Some(v)),
                    None => (text, None),
                };
                if !arg.is_literal() && head.contains(['$', '`']) {
                    return Some(Tok::Variable { index });
                }
                let Some((name, kind)) = self.spec.resolve(head) else {
                    return Some(Tok::Unknown { text });
                };
                let value = match (inline, kind) {
                    (Some(v), _) => Some(v),
                    (None, LongKind::Value) => self.take_value(),
                    (None, _) => None,
                };
                return Some(Tok::Long { name, value });
            }
            if is_short_cluster(text) {
                self.cluster = Some((index, 1));
                continue;
            }
            if self.spec.stop_at_operand {
                self.ended = true;
            }
            return Some(Tok::Pos { index, text });
        }
    }
}

/// Can the shell turn this word into exactly one word? Literal words and
/// fully double-quoted expansions can; globs and unquoted expansions may
/// become several words.
pub(crate) fn single_word(arg: &Arg<'_>) -> bool {
    match arg.shape {
        ArgShape::Literal => true,
        ArgShape::Glob => false,
        ArgShape::Dynamic => {
            let raw = arg.raw;
            raw.len() >= 2
                && raw.starts_with('"')
                && raw.ends_with('"')
                && !raw[1..raw.len() - 1].contains('"')
        }
    }
}

fn starts_plain(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || "/._:@%+,=~".contains(c))
}

/// Can this word only ever be operands, never an option? Literal words can
/// (the walk reads them); a glob or quoted expansion that starts with a plain
/// character can, since nothing it expands to starts with `-`.
pub(crate) fn inert(arg: &Arg<'_>) -> bool {
    match arg.shape {
        ArgShape::Literal => true,
        ArgShape::Glob => starts_plain(arg.raw) && !arg.raw.contains(['$', '`']),
        ArgShape::Dynamic => single_word(arg) && starts_plain(&arg.raw[1..]),
    }
}

/// Can the walk read this word in an option position? Either it is inert, or
/// it is one word whose option part is written out (`"--key=$K"`, `"-n$N"`).
fn option_safe(arg: &Arg<'_>) -> bool {
    if inert(arg) {
        return true;
    }
    if !single_word(arg) {
        return false;
    }
    // A quoted word: safe when it starts with a literal `-x` or `--name`;
    // the cluster and long branches report `$` in the option part.
    let text = arg.as_str();
    text.len() > 1 && text.starts_with('-') && !text[1..].starts_with(['$', '`'])
}

/// Does any word outside option values look variable to the walk?
pub(crate) fn any_variable_token(spec: &'static Getopt, args: &[Arg<'_>]) -> bool {
    spec.walk(args).any(|t| matches!(t, Tok::Variable { .. }))
}

/// `-`, `/dev/null`, standard output or error: nothing is written.
pub(crate) fn is_sink(target: &str) -> bool {
    matches!(
        target,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/fd/1" | "/dev/fd/2"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPEC: Getopt = Getopt {
        short_value: "ok",
        short_optional: "i",
        short_flag: "nru",
        long_value: &["--output", "--key"],
        long_optional: &["--in-place"],
        long_flag: &["--reverse", "--unique", "--output-delimiter-x"],
        stop_at_operand: false,
    };

    fn args(words: &[&'static str]) -> Vec<Arg<'static>> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn walks_clusters_values_abbreviations() {
        let a = args(&[
            "-nrk2", "-o", "f", "--rev", "--key", "1", "--in-p=x", "x", "--", "-z",
        ]);
        let toks: Vec<_> = SPEC.walk(&a).collect();
        assert_eq!(
            toks,
            vec![
                Tok::Short {
                    flag: 'n',
                    value: None
                },
                Tok::Short {
                    flag: 'r',
                    value: None
                },
                Tok::Short {
                    flag: 'k',
                    value: Some("2")
                },
                Tok::Short {
                    flag: 'o',
                    value: Some("f")
                },
                Tok::Long {
                    name: "--reverse",
                    value: None
                },
                Tok::Long {
                    name: "--key",
                    value: Some("1")
                },
                Tok::Long {
                    name: "--in-place",
                    value: Some("x")
                },
                Tok::Pos { index: 7, text: "x" },
                Tok::Pos {
                    index: 9,
                    text: "-z"
                },
            ]
        );
    }

    #[test]
    fn ambiguous_and_unknown_options() {
        let a = args(&["--out", "-q", "-ni.bak"]);
        let toks: Vec<_> = SPEC.walk(&a).collect();
        assert_eq!(toks[0], Tok::Unknown { text: "--out" });
        assert_eq!(toks[1], Tok::Unknown { text: "q" });
        assert_eq!(
            toks[3],
            Tok::Short {
                flag: 'i',
                value: Some(".bak")
            }
        );
    }

    #[test]
    fn variables() {
        let quoted = Arg {
            text: "/var/$F".into(),
            raw: "\"/var/$F\"",
            shape: ArgShape::Dynamic,
        };
        let bare = Arg {
            text: "$F".into(),
            raw: "$F",
            shape: ArgShape::Dynamic,
        };
        let key = Arg {
            text: "--key=$K".into(),
            raw: "\"--key=$K\"",
            shape: ArgShape::Dynamic,
        };
        let glob = Arg {
            text: "*.log".into(),
            raw: "*.log",
            shape: ArgShape::Glob,
        };
        assert!(inert(&quoted) && inert(&glob));
        assert!(!inert(&bare));
        let a = vec![quoted, key, glob];
        assert!(!any_variable_token(&SPEC, &a));
        let a = vec![bare];
        assert!(any_variable_token(&SPEC, &a));
    }
}
