//! One simple command as the per-command rules see it: a name and its
//! arguments after quote removal, plus helpers for reading options the way
//! getopt-style programs do.

use std::borrow::Cow;

use crate::options::{Options, Tok};

/// What a word can turn into when the shell runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgShape {
    /// Exactly `text`.
    Literal,
    /// Unquoted glob characters: expands to file names, which may look like flags.
    Glob,
    /// Contains a parameter, command or arithmetic expansion: any text at all.
    Dynamic,
    /// Unknown text known to be one word that is not an option and names
    /// no device: a file name from `find DIR` fed to `xargs`.
    Inert,
}

/// One argument word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg<'a> {
    /// The word after quote removal. For a dynamic word, expansions keep their
    /// source spelling (`--output=$F` stays so), so option checks still see them.
    pub text: Cow<'a, str>,
    /// The word as written in the command line.
    pub raw: &'a str,
    pub shape: ArgShape,
}

impl<'a> Arg<'a> {
    pub fn literal(text: &'a str) -> Arg<'a> {
        Arg {
            text: Cow::Borrowed(text),
            raw: text,
            shape: ArgShape::Literal,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn is_literal(&self) -> bool {
        self.shape == ArgShape::Literal
    }

    /// Could the shell turn this word into something other than `text`?
    pub fn is_variable(&self) -> bool {
        !self.is_literal()
    }

    /// Could the shell turn this word into several words? Globs can (several
    /// matches), and so can any expansion outside double quotes (field
    /// splitting), wherever it sits in the word.
    pub fn may_split(&self) -> bool {
        match self.shape {
            ArgShape::Literal => false,
            ArgShape::Glob => true,
            ArgShape::Dynamic => has_unquoted_expansion(self.raw),
            ArgShape::Inert => false,
        }
    }

    /// Could the runtime word (or one of the words) start with `-`, so that
    /// the program reads it as an option? Literal words are read as written.
    pub fn may_be_option(&self) -> bool {
        match self.shape {
            ArgShape::Literal | ArgShape::Inert => false,
            ArgShape::Glob => self.text.starts_with(['-', '*', '?', '[']),
            ArgShape::Dynamic => {
                if self.may_split() {
                    return true;
                }
                let head = &self.text[..self.text.find(['$', '`']).unwrap_or(self.text.len())];
                head.is_empty() || head.starts_with('-')
            }
        }
    }
}

/// Does the word as written contain a `$…` or backquote expansion outside
/// quotes?
fn has_unquoted_expansion(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    let mut i = 0;
    let mut double = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 1,
            b'\'' if !double => {
                i += 1;
                while bytes.get(i).is_some_and(|&c| c != b'\'') {
                    i += 1;
                }
            }
            b'"' => double = !double,
            b'`' if !double => return true,
            b'$' if !double => match bytes.get(i + 1) {
                Some(b'\'' | b'"') => {}
                Some(&c)
                    if c.is_ascii_alphanumeric()
                        || matches!(
                            c,
                            b'_' | b'{'
                                | b'('
                                | b'['
                                | b'@'
                                | b'*'
                                | b'#'
                                | b'?'
                                | b'$'
                                | b'!'
                                | b'-'
                        ) =>
                {
                    return true;
                }
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    false
}

/// Which options take a value, so positionals (subcommands) can be found.
#[derive(Debug, Clone, Copy, Default)]
pub struct OptSpec {
    /// Short options that take a value (`-n 5` or `-n5`), e.g. `"nC"`.
    pub short_with_value: &'static str,
    /// Long options that take a value as the next word when given without `=`.
    pub long_with_value: &'static [&'static str],
}

impl OptSpec {
    pub const NONE: OptSpec = OptSpec {
        short_with_value: "",
        long_with_value: &[],
    };
}

/// A simple command: `name args…`.
#[derive(Debug, Clone, Copy)]
pub struct Invocation<'i, 'a> {
    /// The command name after quote removal, without its directory.
    pub name: &'i str,
    pub args: &'i [Arg<'a>],
}

impl<'i, 'a> Invocation<'i, 'a> {
    pub fn new(name: &'i str, args: &'i [Arg<'a>]) -> Self {
        Invocation { name, args }
    }

    /// The text of argument `i`.
    pub fn arg(&self, i: usize) -> Option<&'i str> {
        self.args.get(i).map(|a| &*a.text)
    }

    pub fn is_empty(&self) -> bool {
        self.args.is_empty()
    }

    /// Does any argument expand to unknown text (variables, globs, substitutions)?
    pub fn any_variable(&self) -> bool {
        self.args.iter().any(Arg::is_variable)
    }

    /// Arguments before a `--` end-of-options marker.
    pub fn option_args(&self) -> impl Iterator<Item = &'i Arg<'a>> {
        self.args.iter().take_while(|a| a.text != "--")
    }

    /// Is the short flag `c` present in any cluster (`-c`, `-xc`, `-cVALUE`)?
    /// Conservative: a value glued to another option may match too, which is
    /// the safe direction for flags that make a command write.
    pub fn has_short(&self, c: char) -> bool {
        self.option_args()
            .any(|a| is_short_cluster(&a.text) && a.text[1..].contains(c))
    }

    /// Is the long option present exactly (`--name` or `--name=value`)?
    pub fn has_long(&self, long: &str) -> bool {
        self.option_args()
            .any(|a| long_matches_exact(&a.text, long))
    }

    /// Is the long option present, also as a GNU-style unambiguous
    /// abbreviation (`--in-pl` for `--in-place`)? Any prefix of at least three
    /// characters counts, which errs towards finding the option.
    pub fn has_long_abbrev(&self, long: &str) -> bool {
        self.option_args()
            .any(|a| long_matches_abbrev(&a.text, long))
    }

    /// `has_short(c) || has_long(long)`.
    pub fn has_flag(&self, c: char, long: &str) -> bool {
        self.has_short(c) || self.has_long(long)
    }

    /// Does any argument equal one of `words` exactly (anywhere, options included)?
    pub fn has_word(&self, words: &[&str]) -> bool {
        self.args.iter().any(|a| words.contains(&&*a.text))
    }

    /// The positional arguments with their indices, skipping options (and the
    /// values of options that take one, per `spec`). After `--` everything is
    /// positional. Options `spec` does not know are skipped as flags, and a
    /// word that could expand into anything is returned as written: callers
    /// compare positionals with known words, so it never matches one.
    pub fn positionals(
        &self,
        spec: OptSpec,
    ) -> impl Iterator<Item = (usize, &'i str)> + use<'i, 'a> {
        let args = self.args;
        let options = Options {
            short_values: spec.short_with_value,
            long_values: spec.long_with_value,
            ..Options::GNU
        };
        options.walk(args).filter_map(move |t| match t {
            Tok::Operand { index, text } => Some((index, text)),
            Tok::Dynamic { index } => args.get(index).map(|a| (index, &*a.text)),
            Tok::Short { .. } | Tok::Long { .. } | Tok::Unknown { .. } => None,
        })
    }

    /// The first positional argument (often a subcommand) and its index.
    pub fn first_positional(&self, spec: OptSpec) -> Option<(usize, &'i str)> {
        self.positionals(spec).next()
    }

    /// A view of the arguments from `start` on, for subcommand rules.
    pub fn from(&self, start: usize) -> Invocation<'i, 'a> {
        Invocation {
            name: self.name,
            args: self.args.get(start..).unwrap_or(&[]),
        }
    }

    /// The value of an option, in any of its spellings: `-n 5`, `-n5`,
    /// `--lines 5`, `--lines=5`. Returns the first occurrence.
    pub fn option_value(&self, short: Option<char>, long: Option<&str>) -> Option<&'i str> {
        let mut iter = self.args.iter().take_while(|a| a.text != "--").peekable();
        while let Some(arg) = iter.next() {
            let text: &'i str = &arg.text;
            if let Some(long) = long {
                if text == long {
                    return iter.peek().map(|a| &*a.text);
                }
                if let Some(rest) = text.strip_prefix(long)
                    && let Some(value) = rest.strip_prefix('=')
                {
                    return Some(value);
                }
            }
            if let Some(short) = short
                && is_short_cluster(text)
                && text[1..].starts_with(short)
            {
                let rest = &text[1 + short.len_utf8()..];
                if rest.is_empty() {
                    return iter.peek().map(|a| &*a.text);
                }
                return Some(rest);
            }
        }
        None
    }
}

/// `-x…` but not `-`, `--…` or a negative number.
pub fn is_short_cluster(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() > 1 && bytes[0] == b'-' && bytes[1] != b'-' && !bytes[1].is_ascii_digit()
}

fn long_head(text: &str) -> Option<&str> {
    if !text.starts_with("--") || text.len() < 3 {
        return None;
    }
    Some(text.split_once('=').map_or(text, |(head, _)| head))
}

/// `--name` or `--name=value`.
pub fn long_matches_exact(text: &str, long: &str) -> bool {
    long_head(text) == Some(long)
}

/// `--name`, `--name=value`, or an abbreviation of at least three characters.
pub fn long_matches_abbrev(text: &str, long: &str) -> bool {
    match long_head(text) {
        Some(head) => head.len() >= 3 && long.starts_with(head),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&'static str]) -> Vec<Arg<'static>> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn short_flags_in_clusters() {
        let a = args(&["-ni", "file"]);
        let inv = Invocation::new("sed", &a);
        assert!(inv.has_short('i'));
        assert!(inv.has_short('n'));
        assert!(!inv.has_short('e'));
    }

    #[test]
    fn flags_after_double_dash_are_operands() {
        let a = args(&["--", "-i"]);
        assert!(!Invocation::new("sed", &a).has_short('i'));
    }

    #[test]
    fn long_abbreviations() {
        let a = args(&["--in-pl=bak"]);
        let inv = Invocation::new("sed", &a);
        assert!(inv.has_long_abbrev("--in-place"));
        assert!(!inv.has_long("--in-place"));
    }

    #[test]
    fn positionals_skip_option_values() {
        let a = args(&["-n", "kube-system", "--context", "prod", "get", "pods"]);
        let inv = Invocation::new("kubectl", &a);
        let spec = OptSpec {
            short_with_value: "n",
            long_with_value: &["--context"],
        };
        let pos: Vec<_> = inv.positionals(spec).collect();
        assert_eq!(pos, vec![(4, "get"), (5, "pods")]);
    }

    #[test]
    fn option_values_in_every_spelling() {
        for words in [
            &["-n", "5"][..],
            &["-n5"][..],
            &["--lines", "5"][..],
            &["--lines=5"][..],
        ] {
            let a = args(words);
            let inv = Invocation::new("tail", &a);
            assert_eq!(inv.option_value(Some('n'), Some("--lines")), Some("5"));
        }
    }
}
