//! The one option walker: reads a command's arguments the way the program's
//! own option parser does, against an allowlist of the options it accepts.
//!
//! Every rule that needs options goes through [`Options::walk`] (or
//! [`walk_sets`] when a command line mixes global and subcommand options).
//! The walker reports each option it recognises with its value, each operand,
//! every option the allowlist does not know ([`Tok::Unknown`]), and every word
//! whose runtime text could become an option ([`Tok::Dynamic`]). What to do
//! with those is the rule's decision; refusing is the default of the helpers
//! in `commands::common`.

use crate::invocation::Arg;

mod abbrev;

/// How a program's option parser reads its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// GNU `getopt_long`: options and operands may interleave, and a long
    /// option may be abbreviated to any unambiguous prefix (`--foll` for
    /// `--follow`). The program may have options the allowlist does not
    /// list, and an exact name wins over an abbreviation: a prefix that may
    /// be such an option is [`Tok::Unknown`], and so is an ambiguous one
    /// (see `abbrev`). Where the program would refuse an abbreviation, it
    /// exits with an error, which changes nothing.
    Gnu,
    /// Like [`Style::Gnu`] (abbreviations included), but options end at
    /// the first operand (POSIX `getopt`, `+` optstrings, programs whose
    /// operands are a command).
    GnuStopAtOperand,
    /// Go's pflag (cobra programs): no abbreviations; a short option's value
    /// may follow `=` (`-n=5`), and a boolean takes `=false`.
    Go,
    /// Like [`Style::Go`], but options end at the first operand (`docker
    /// exec [OPTIONS] CONTAINER COMMAND…`).
    GoStopAtOperand,
}

impl Style {
    fn is_go(self) -> bool {
        matches!(self, Style::Go | Style::GoStopAtOperand)
    }

    fn stops_at_operand(self) -> bool {
        matches!(self, Style::GnuStopAtOperand | Style::GoStopAtOperand)
    }
}

/// The options a program accepts.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Short options without a value.
    pub short_flags: &'static str,
    /// Short options with a required value (`-n 5`, `-n5`, end of a cluster).
    pub short_values: &'static str,
    /// Short options whose value, if any, is glued (`-i.bak`).
    pub short_optional: &'static str,
    /// Long options (with `--`) without a value.
    pub long_flags: &'static [&'static str],
    /// Long options with a required value (`--unit x`, `--unit=x`).
    pub long_values: &'static [&'static str],
    /// Long options whose value, if any, follows `=`.
    pub long_optional: &'static [&'static str],
    pub style: Style,
}

impl Options {
    /// No options at all, GNU style; the base for `..Options::GNU` literals.
    pub const GNU: Options = Options {
        short_flags: "",
        short_values: "",
        short_optional: "",
        long_flags: &[],
        long_values: &[],
        long_optional: &[],
        style: Style::Gnu,
    };

    /// No options at all, pflag style.
    pub const GO: Options = Options {
        style: Style::Go,
        ..Options::GNU
    };

    /// No options at all; options end at the first operand.
    pub const POSIX: Options = Options {
        style: Style::GnuStopAtOperand,
        ..Options::GNU
    };

    /// Walk `args` with these options.
    pub fn walk<'i, 'a>(&self, args: &'i [Arg<'a>]) -> Walk<'i, 'a, 'static> {
        Walk::new(*self, &[], args)
    }
}

/// Walk `args` with the union of several option sets (global options and a
/// subcommand's, say). The style is the first set's.
pub fn walk_sets<'i, 'a, 's>(sets: &'s [&'s Options], args: &'i [Arg<'a>]) -> Walk<'i, 'a, 's> {
    match sets.split_first() {
        Some((first, rest)) => Walk::new(**first, rest, args),
        None => Walk::new(Options::GNU, &[], args),
    }
}

/// One option or operand, as the program's parser sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok<'i> {
    /// A known short option with its value, if it takes one.
    Short {
        index: usize,
        flag: char,
        value: Option<&'i str>,
    },
    /// A known long option (full name with `--`) with its value, if given.
    Long {
        index: usize,
        name: &'static str,
        value: Option<&'i str>,
    },
    /// An operand; after `--` everything is one. A glob or expansion can be
    /// several operands: check `args[index]` when the number matters.
    Operand { index: usize, text: &'i str },
    /// An option the allowlist does not know, an ambiguous abbreviation, or a
    /// value given to an option that takes none. A long option is given as
    /// written (`--name=value`); a short one as the rest of its cluster from
    /// the unknown letter on (`z5` in `-az5`), and the walk goes on with the
    /// letters after it, as getopt does.
    Unknown { index: usize, text: &'i str },
    /// A word whose runtime text could be an option, or several words.
    Dynamic { index: usize },
}

impl Tok<'_> {
    /// The index of the argument this token starts in.
    pub fn index(&self) -> usize {
        match *self {
            Tok::Short { index, .. }
            | Tok::Long { index, .. }
            | Tok::Operand { index, .. }
            | Tok::Unknown { index, .. }
            | Tok::Dynamic { index } => index,
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum LongKind {
    Flag,
    Value,
    Optional,
}

/// Iterator over [`Tok`]s; see [`Options::walk`].
pub struct Walk<'i, 'a, 's> {
    args: &'i [Arg<'a>],
    first: Options,
    rest: &'s [&'s Options],
    style: Style,
    next: usize,
    /// (argument index, byte offset) inside a short cluster.
    cluster: Option<(usize, usize)>,
    ended: bool,
    pending: Option<Tok<'i>>,
}

impl<'i, 'a, 's> Walk<'i, 'a, 's> {
    fn new(first: Options, rest: &'s [&'s Options], args: &'i [Arg<'a>]) -> Self {
        Walk {
            args,
            first,
            rest,
            style: first.style,
            next: 0,
            cluster: None,
            ended: false,
            pending: None,
        }
    }

    fn sets(&self) -> impl Iterator<Item = &Options> {
        std::iter::once(&self.first).chain(self.rest.iter().copied())
    }

    fn short_kind(&self, c: char) -> Option<ShortKind> {
        for set in self.sets() {
            if set.short_values.contains(c) {
                return Some(ShortKind::Value);
            }
            if set.short_optional.contains(c) {
                return Some(ShortKind::Optional);
            }
            if set.short_flags.contains(c) {
                return Some(ShortKind::Flag);
            }
        }
        None
    }

    /// The known long option `head` names: exactly, or for GNU-style
    /// parsers as its only safe abbreviation (see [`Style::Gnu`]).
    fn resolve(&self, head: &str) -> Option<(&'static str, LongKind)> {
        let all = || {
            self.sets().flat_map(|s| {
                s.long_flags
                    .iter()
                    .map(|n| (*n, LongKind::Flag))
                    .chain(s.long_values.iter().map(|n| (*n, LongKind::Value)))
                    .chain(s.long_optional.iter().map(|n| (*n, LongKind::Optional)))
            })
        };
        if let Some(exact) = all().find(|(n, _)| *n == head) {
            return Some(exact);
        }
        if self.style.is_go() {
            return None;
        }
        abbrev::expand(head, all())
    }

    /// Take the next word as an option's value. A value that could be
    /// several words is followed by a [`Tok::Dynamic`].
    fn take_value(&mut self) -> Option<&'i str> {
        let args = self.args;
        let arg = args.get(self.next)?;
        if arg.may_split() {
            self.pending = Some(Tok::Dynamic { index: self.next });
        }
        self.next += 1;
        Some(&arg.text)
    }

    fn cluster_tok(&mut self, index: usize, offset: usize) -> Option<Tok<'i>> {
        let args = self.args;
        let text: &'i str = args.get(index).map_or("", |a| &*a.text);
        let flag = text.get(offset..).and_then(|r| r.chars().next())?;
        let after = offset + flag.len_utf8();
        let glued = text.get(after..).unwrap_or_default();
        self.cluster = None;
        if matches!(flag, '$' | '`') {
            return Some(Tok::Dynamic { index });
        }
        match self.short_kind(flag) {
            Some(ShortKind::Value) => {
                let glued = if self.style.is_go() {
                    glued.strip_prefix('=').unwrap_or(glued)
                } else {
                    glued
                };
                let value = if glued.is_empty() {
                    self.take_value()
                } else {
                    Some(glued)
                };
                Some(Tok::Short { index, flag, value })
            }
            Some(ShortKind::Optional) => Some(Tok::Short {
                index,
                flag,
                value: (!glued.is_empty()).then_some(glued),
            }),
            Some(ShortKind::Flag) => {
                if self.style.is_go()
                    && let Some(value) = glued.strip_prefix('=')
                {
                    return Some(Tok::Short {
                        index,
                        flag,
                        value: Some(value),
                    });
                }
                if !glued.is_empty() {
                    self.cluster = Some((index, after));
                }
                Some(Tok::Short {
                    index,
                    flag,
                    value: None,
                })
            }
            None => {
                // Like getopt, go on with the rest of the cluster.
                if !glued.is_empty() {
                    self.cluster = Some((index, after));
                }
                Some(Tok::Unknown {
                    index,
                    text: text.get(offset..).unwrap_or(text),
                })
            }
        }
    }

    fn long_tok(&mut self, index: usize, arg: &'i Arg<'a>) -> Tok<'i> {
        let text: &'i str = &arg.text;
        let (head, inline) = match text.split_once('=') {
            Some((h, v)) => (h, Some(v)),
            None => (text, None),
        };
        if !arg.is_literal() && head.contains(['$', '`']) {
            return Tok::Dynamic { index };
        }
        let Some((name, kind)) = self.resolve(head) else {
            return Tok::Unknown { index, text };
        };
        let value = match (kind, inline) {
            (LongKind::Value, None) => self.take_value(),
            (LongKind::Flag, Some(_)) if !self.style.is_go() => {
                return Tok::Unknown { index, text };
            }
            (_, inline) => inline,
        };
        Tok::Long { index, name, value }
    }
}

#[derive(Clone, Copy)]
enum ShortKind {
    Flag,
    Value,
    Optional,
}

impl<'i> Iterator for Walk<'i, '_, '_> {
    type Item = Tok<'i>;

    fn next(&mut self) -> Option<Tok<'i>> {
        if let Some(tok) = self.pending.take() {
            return Some(tok);
        }
        if let Some((index, offset)) = self.cluster {
            if let Some(tok) = self.cluster_tok(index, offset) {
                return Some(tok);
            }
            self.cluster = None;
        }
        let args = self.args;
        let index = self.next;
        let arg = args.get(index)?;
        self.next += 1;
        let text: &'i str = &arg.text;
        if self.ended {
            return Some(Tok::Operand { index, text });
        }
        if arg.may_be_option() && !option_part_is_literal(arg) {
            return Some(Tok::Dynamic { index });
        }
        if text == "--" {
            self.ended = true;
            return self.next();
        }
        if text.starts_with("--") {
            return Some(self.long_tok(index, arg));
        }
        let bytes = text.as_bytes();
        if bytes.len() > 1 && bytes[0] == b'-' {
            let first = text[1..].chars().next().unwrap_or('-');
            // `-5` is a negative number unless the program has digit flags
            // (`ls -1`, `grep -5`).
            if !first.is_ascii_digit() || self.short_kind(first).is_some() {
                let tok = self.cluster_tok(index, 1);
                if let Some(tok) = tok {
                    return Some(tok);
                }
            }
        }
        if self.style.stops_at_operand() {
            self.ended = true;
        }
        Some(Tok::Operand { index, text })
    }
}

/// A dynamic word whose option part is written out (`"--key=$K"`, `"-n$N"`)
/// can be read as that option.
fn option_part_is_literal(arg: &Arg<'_>) -> bool {
    if arg.may_split() {
        return false;
    }
    let text = arg.as_str();
    let body = text.trim_start_matches('-');
    text.starts_with('-') && !body.is_empty() && !body.starts_with(['$', '`'])
}

#[cfg(test)]
mod tests;
