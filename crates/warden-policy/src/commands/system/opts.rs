//! How the system rules read arguments: a getopt_long-style walker that
//! knows each program's options (so an unknown option is never taken for a
//! harmless one), and the verdict helpers the rules share.

use crate::invocation::{Arg, ArgShape, Invocation, is_short_cluster};
use crate::verdict::{Risk, Verdict};

/// The options a program accepts.
pub(super) struct Spec {
    /// Short flags without a value.
    pub flags: &'static str,
    /// Short options with a required value (`-n 5`, `-n5`, end of a cluster).
    pub values: &'static str,
    /// Short options whose value, if any, is glued (`-p`, `-pFILE`).
    pub optional: &'static str,
    /// Long flags without a value.
    pub long_flags: &'static [&'static str],
    /// Long options with a required value (`--unit x`, `--unit=x`).
    pub long_values: &'static [&'static str],
    /// Long options whose value, if any, follows `=`.
    pub long_optional: &'static [&'static str],
}

impl Spec {
    /// The known long option `head` names, also from an unambiguous prefix.
    fn resolve(&self, head: &str) -> Option<&'static str> {
        let all = || {
            self.long_flags
                .iter()
                .chain(self.long_values)
                .chain(self.long_optional)
        };
        if let Some(exact) = all().find(|n| **n == head) {
            return Some(exact);
        }
        if head.len() < 3 {
            return None;
        }
        let mut found = None;
        for name in all().filter(|n| n.starts_with(head)) {
            if found.is_some() {
                return None;
            }
            found = Some(*name);
        }
        found
    }
}

/// One option or operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tok<'i> {
    /// A known short option, with its value when it takes one.
    Short(char, Option<&'i str>),
    /// A known long option (full name), with its value when given.
    Long(&'static str, Option<&'i str>),
    /// An operand (after `--`, everything is one).
    Pos(usize, &'i str),
    /// An option the program is not known to have, as written.
    Bad(&'i str),
}

/// Walks `args` the way getopt_long does (options may follow operands).
pub(super) fn walk<'i, 'a>(spec: &'static Spec, args: &'i [Arg<'a>]) -> Walk<'i, 'a> {
    Walk {
        args,
        spec,
        next: 0,
        cluster: None,
        ended: false,
    }
}

pub(super) struct Walk<'i, 'a> {
    args: &'i [Arg<'a>],
    spec: &'static Spec,
    next: usize,
    cluster: Option<(usize, usize)>,
    ended: bool,
}

impl<'i> Walk<'i, '_> {
    fn take_value(&mut self) -> Option<&'i str> {
        let args = self.args;
        let value = args.get(self.next).map(|a| &*a.text);
        if value.is_some() {
            self.next += 1;
        }
        value
    }
}

impl<'i> Iterator for Walk<'i, '_> {
    type Item = Tok<'i>;

    fn next(&mut self) -> Option<Tok<'i>> {
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
                if self.spec.values.contains(flag) {
                    self.cluster = None;
                    let value = if glued.is_empty() {
                        self.take_value()
                    } else {
                        Some(glued)
                    };
                    return Some(Tok::Short(flag, value));
                }
                if self.spec.optional.contains(flag) {
                    self.cluster = None;
                    return Some(Tok::Short(flag, (!glued.is_empty()).then_some(glued)));
                }
                if !self.spec.flags.contains(flag) {
                    self.cluster = None;
                    return Some(Tok::Bad(text));
                }
                self.cluster = (!glued.is_empty()).then_some((index, after));
                return Some(Tok::Short(flag, None));
            }
            let index = self.next;
            let text: &'i str = &args.get(index)?.text;
            self.next += 1;
            if self.ended {
                return Some(Tok::Pos(index, text));
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
                let Some(name) = self.spec.resolve(head) else {
                    return Some(Tok::Bad(text));
                };
                if self.spec.long_values.contains(&name) {
                    let value = match inline {
                        Some(v) => Some(v),
                        None => self.take_value(),
                    };
                    return Some(Tok::Long(name, value));
                }
                if self.spec.long_flags.contains(&name) && inline.is_some() {
                    return Some(Tok::Bad(text));
                }
                return Some(Tok::Long(name, inline));
            }
            if is_short_cluster(text) {
                self.cluster = Some((index, 1));
                continue;
            }
            // `-1` is a flag for some programs (`coredumpctl -1`, `top -1`).
            if let Some(digit) = text.strip_prefix('-').filter(|d| d.len() == 1) {
                if self.spec.flags.contains(digit) {
                    return Some(Tok::Short(digit.chars().next().unwrap_or('-'), None));
                }
            }
            return Some(Tok::Pos(index, text));
        }
    }
}

/// The first operand (often the subcommand).
pub(super) fn first_pos<'i>(spec: &'static Spec, args: &'i [Arg<'_>]) -> Option<(usize, &'i str)> {
    walk(spec, args).find_map(|t| match t {
        Tok::Pos(i, text) => Some((i, text)),
        _ => None,
    })
}

/// The first option the program is not known to have.
pub(super) fn first_bad<'i>(spec: &'static Spec, args: &'i [Arg<'_>]) -> Option<&'i str> {
    walk(spec, args).find_map(|t| match t {
        Tok::Bad(text) => Some(text),
        _ => None,
    })
}

pub(super) fn bad(word: &str) -> Verdict {
    Verdict::unknown(format!("unknown option `{word}`"))
}

/// `Read`, unless some option is unknown.
pub(super) fn read_if_known(spec: &'static Spec, inv: &Invocation<'_, '_>) -> Verdict {
    match first_bad(spec, inv.args) {
        Some(word) => bad(word),
        None => Verdict::Read,
    }
}

/// Writes on the first token `writes` recognises; unknown options are unknown.
pub(super) fn scan(
    inv: &Invocation<'_, '_>,
    spec: &'static Spec,
    writes: impl Fn(&Tok<'_>) -> Option<Verdict>,
) -> Verdict {
    for tok in walk(spec, inv.args) {
        if let Some(v) = writes(&tok) {
            return v;
        }
    }
    match first_bad(spec, inv.args) {
        Some(word) => bad(word),
        None => variable_guard(inv).unwrap_or(Verdict::Read),
    }
}

/// Can this word only ever be one operand that is not an option? Literal
/// words can; so can a glob or a double-quoted expansion that starts with a
/// plain literal character.
fn inert(arg: &Arg<'_>) -> bool {
    let plain = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || "/._:@%+,=".contains(c))
    };
    match arg.shape {
        ArgShape::Literal => true,
        ArgShape::Glob => plain(arg.raw) && !arg.raw.contains(['$', '`']),
        ArgShape::Dynamic => {
            let raw = arg.raw;
            raw.len() >= 2
                && raw.starts_with('"')
                && raw.ends_with('"')
                && !raw[1..raw.len() - 1].contains('"')
                && plain(&raw[1..])
        }
    }
}

/// For programs with options that write: unknown when an argument could
/// expand into such an option.
pub(super) fn variable_guard(inv: &Invocation<'_, '_>) -> Option<Verdict> {
    inv.args
        .iter()
        .any(|a| !inert(a))
        .then(|| Verdict::unknown("an argument could expand into an option that writes"))
}

/// Only `--help` / `--version` (which print and exit before acting).
pub(super) fn help_only(inv: &Invocation<'_, '_>) -> bool {
    !inv.args.is_empty()
        && inv
            .args
            .iter()
            .all(|a| matches!(a.as_str(), "--help" | "--version"))
}

/// A subcommand table: which words read, which write and how much.
pub(super) struct Subs {
    pub reads: &'static [&'static str],
    pub writes: &'static [(&'static str, Risk)],
    /// What a write subcommand changes, for the reason ("changes units").
    pub what: &'static str,
    /// Is the program read-only without a subcommand (`systemctl` = list)?
    pub bare_read: bool,
}

/// The verdict for `sub` per `subs` (options already checked).
pub(super) fn sub_verdict(sub: &str, subs: &Subs) -> Verdict {
    if subs.reads.contains(&sub) {
        return Verdict::Read;
    }
    match subs.writes.iter().find(|(w, _)| *w == sub) {
        Some((_, risk)) => Verdict::write(*risk, format!("subcommand `{sub}` {}", subs.what)),
        None => Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only")),
    }
}

/// `PROGRAM [OPTIONS] SUBCOMMAND [ARGS]`: a write subcommand writes; an
/// unknown option or subcommand is unknown; a read subcommand reads.
pub(super) fn subcommand_tool(
    inv: &Invocation<'_, '_>,
    spec: &'static Spec,
    subs: &Subs,
) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    let verdict = match first_pos(spec, inv.args) {
        Some((_, sub)) => sub_verdict(sub, subs),
        None if subs.bare_read => Verdict::Read,
        None => Verdict::unknown("no subcommand"),
    };
    if matches!(verdict, Verdict::Write(..)) {
        return verdict;
    }
    if let Some(word) = first_bad(spec, inv.args) {
        return bad(word);
    }
    if !subs.writes.is_empty() && matches!(verdict, Verdict::Read) {
        if let Some(v) = variable_guard(inv) {
            return v;
        }
    }
    verdict
}

/// Operands after the subcommand at `sub_index`.
pub(super) fn operands_after<'i>(
    spec: &'static Spec,
    args: &'i [Arg<'_>],
    sub_index: usize,
) -> impl Iterator<Item = &'i str> {
    walk(spec, args).filter_map(move |t| match t {
        Tok::Pos(i, text) if i > sub_index => Some(text),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        flags: "ab",
        values: "n",
        optional: "p",
        long_flags: &["--all", "--after"],
        long_values: &["--lines", "--unit"],
        long_optional: &["--poll"],
    };

    fn args(words: &[&'static str]) -> Vec<Arg<'static>> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn walks_like_getopt() {
        let a = args(&["-abn5", "x", "--lin", "3", "--al", "-pz", "--", "-q"]);
        let toks: Vec<_> = walk(&SPEC, &a).collect();
        assert_eq!(
            toks,
            vec![
                Tok::Short('a', None),
                Tok::Short('b', None),
                Tok::Short('n', Some("5")),
                Tok::Pos(1, "x"),
                Tok::Long("--lines", Some("3")),
                Tok::Long("--all", None),
                Tok::Short('p', Some("z")),
                Tok::Pos(7, "-q"),
            ]
        );
    }

    #[test]
    fn unknown_and_ambiguous_options_are_bad() {
        let a = args(&["--a"]);
        assert_eq!(first_bad(&SPEC, &a), Some("--a"));
        let a = args(&["-az"]);
        assert_eq!(first_bad(&SPEC, &a), Some("-az"));
        let a = args(&["--all=1"]);
        assert_eq!(first_bad(&SPEC, &a), Some("--all=1"));
        let a = args(&["--frob"]);
        assert_eq!(first_bad(&SPEC, &a), Some("--frob"));
    }
}
