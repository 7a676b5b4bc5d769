//! Rules and helpers shared by every command family: fixed verdicts, and the
//! ways rules read options through the one walker ([`crate::options`]).

use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Tok};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// The command never changes anything, whatever its arguments. Only for
/// programs that take no options and no files (`true`, `pwd`-like builtins).
pub fn always_read(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::Read
}

/// Destroys data or availability.
pub fn high_write(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::write(Risk::HighWrite, "destroys data or availability")
}

/// Prints until interrupted (follow, watch, monitor modes): never a
/// bounded read.
pub fn stream(reason: &'static str) -> Verdict {
    Verdict::interactive(InteractiveCategory::UnboundedStream, reason)
}

/// The verdict for an option the allowlist does not know (or a word that
/// could expand into one).
pub fn bad(word: &str) -> Verdict {
    if word.contains(['$', '`', '*', '?', '[']) {
        Verdict::unknown(format!("`{word}` could expand into an option"))
    } else if word.starts_with('-') {
        Verdict::unknown(format!("unknown option `{word}`"))
    } else {
        // A letter of a short cluster (see `Tok::Unknown`).
        let letter = word.chars().next().unwrap_or('?');
        Verdict::unknown(format!("unknown option `-{letter}`"))
    }
}

/// The first operand (often the subcommand) and its index.
pub fn first_pos<'i>(spec: &Options, args: &'i [Arg<'_>]) -> Option<(usize, &'i str)> {
    spec.walk(args).find_map(|t| match t {
        Tok::Operand { index, text } => Some((index, text)),
        _ => None,
    })
}

/// The first option the program is not known to have, or the first word
/// that could expand into one, as written.
pub fn first_bad<'i>(spec: &Options, args: &'i [Arg<'_>]) -> Option<&'i str> {
    spec.walk(args).find_map(|t| match t {
        Tok::Unknown { text, .. } => Some(text),
        Tok::Dynamic { index } => Some(args.get(index).map_or("$…", |a| a.raw)),
        _ => None,
    })
}

/// `Read`, unless some option is unknown or could be.
pub fn read_if_known(spec: &Options, inv: &Invocation<'_, '_>) -> Verdict {
    match first_bad(spec, inv.args) {
        Some(word) => bad(word),
        None => Verdict::Read,
    }
}

/// Writes on the first token `writes` recognises; unknown options are unknown.
pub fn scan(
    inv: &Invocation<'_, '_>,
    spec: &Options,
    writes: impl Fn(&Tok<'_>) -> Option<Verdict>,
) -> Verdict {
    for tok in spec.walk(inv.args) {
        if let Some(v) = writes(&tok) {
            return v;
        }
    }
    read_if_known(spec, inv)
}

/// Unknown when an argument could expand into an option the walk did not see.
pub fn variable_guard(inv: &Invocation<'_, '_>) -> Option<Verdict> {
    inv.args
        .iter()
        .find(|a| a.may_be_option())
        .map(|a| bad(a.raw))
}

/// Only `--help` / `--version` (which print and exit before acting).
pub fn help_only(inv: &Invocation<'_, '_>) -> bool {
    !inv.args.is_empty()
        && inv
            .args
            .iter()
            .all(|a| matches!(a.as_str(), "--help" | "--version"))
}

/// A subcommand table: which words read, which write and how much.
pub struct Subs {
    pub reads: &'static [&'static str],
    pub writes: &'static [(&'static str, Risk)],
    /// What a write subcommand changes, for the reason ("changes units").
    pub what: &'static str,
    /// Is the program read-only without a subcommand (`systemctl` = list)?
    pub bare_read: bool,
}

/// The verdict for `sub` per `subs` (options already checked).
pub fn sub_verdict(sub: &str, subs: &Subs) -> Verdict {
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
pub fn subcommand_tool(inv: &Invocation<'_, '_>, spec: &Options, subs: &Subs) -> Verdict {
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
    verdict
}

/// Operands after the subcommand at `sub_index`.
pub fn operands_after<'i, 's>(
    spec: &'s Options,
    args: &'i [Arg<'_>],
    sub_index: usize,
) -> impl Iterator<Item = &'i str> + use<'i, 's> {
    spec.walk(args).filter_map(move |t| match t {
        Tok::Operand { index, text } if index > sub_index => Some(text),
        _ => None,
    })
}

/// How a glob among the arguments is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Globs {
    /// A glob names existing files; if one looks like an option (a file
    /// called `-n`), it can only be one of this program's options, and none
    /// of them writes, runs a program, follows or reads a file named by its
    /// value. So globs are fine (`grep x *.log`, `du -sh *`).
    Harmless,
    /// A file named like an option could make the program write or follow:
    /// a glob that could expand into an option is refused.
    Refused,
}

/// Walk `inv` with `sets`: unknown options are refused, and so are words
/// that could expand into options (globs too, unless `globs` is
/// [`Globs::Harmless`]). `each` sees every known option and operand and may
/// decide the verdict; otherwise the command reads.
pub fn walk_checked<'i>(
    inv: &Invocation<'i, '_>,
    sets: &[&Options],
    globs: Globs,
    mut each: impl FnMut(&Tok<'i>) -> Option<Verdict>,
) -> Verdict {
    for tok in crate::options::walk_sets(sets, inv.args) {
        match tok {
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => {
                let Some(arg) = inv.args.get(index) else {
                    continue;
                };
                let glob_ok =
                    globs == Globs::Harmless && arg.shape == crate::invocation::ArgShape::Glob;
                if !glob_ok {
                    return bad(arg.raw);
                }
            }
            Tok::Short { .. } | Tok::Long { .. } | Tok::Operand { .. } => {
                if let Some(verdict) = each(&tok) {
                    return verdict;
                }
            }
        }
    }
    Verdict::Read
}

/// Read-only when every option is known (see [`walk_checked`]).
pub fn reads(inv: &Invocation<'_, '_>, spec: &Options, globs: Globs) -> Verdict {
    walk_checked(inv, &[spec], globs, |_| None)
}

/// `PROGRAM [IN [OUT]]` (`uniq`, `xxd`): read-only when every option is
/// known and there is at most one operand; a second is an output file.
pub fn reads_unless_second_operand(inv: &Invocation<'_, '_>, spec: &Options) -> Verdict {
    let mut operands = 0;
    walk_checked(inv, &[spec], Globs::Refused, |tok| {
        if matches!(tok, Tok::Operand { .. }) {
            operands += 1;
            if operands > 1 {
                return Some(Verdict::write(
                    Risk::MediumWrite,
                    "a second operand is an output file",
                ));
            }
        }
        None
    })
}

/// A filter: read-only when every option is known, and reading standard
/// input when given no more than `words` operands (`cat`, `sort`; `tr`
/// always): with nothing feeding it, it waits on the terminal.
pub fn filter(inv: &Invocation<'_, '_>, spec: &Options, globs: Globs, words: usize) -> Verdict {
    let mut operands = 0;
    let verdict = walk_checked(inv, &[spec], globs, |tok| {
        operands += usize::from(matches!(tok, Tok::Operand { text, .. } if *text != "-"));
        None
    });
    if verdict == Verdict::Read && operands <= words && !inv.has_word(&["--help", "--version"]) {
        return stdin_reader();
    }
    verdict
}

/// Waits for standard input: bounded when the line feeds it.
pub fn stdin_reader() -> Verdict {
    Verdict::interactive(
        crate::verdict::InteractiveCategory::InteractiveRepl,
        "reads standard input",
    )
}

/// A rule for a filter: `filter_rule!(cat, CAT, Globs::Harmless, 0)`.
macro_rules! filter_rule {
    ($name:ident, $spec:expr, $globs:expr, $words:expr) => {
        pub(super) fn $name(
            inv: &$crate::invocation::Invocation<'_, '_>,
        ) -> $crate::verdict::Verdict {
            $crate::commands::common::filter(inv, &$spec, $globs, $words)
        }
    };
}
pub(crate) use filter_rule;

/// A rule for a program whose known options only change what it prints:
/// `read_rule!(cat, CAT, Globs::Harmless)` defines `fn cat`.
macro_rules! read_rule {
    ($name:ident, $spec:expr, $globs:expr) => {
        pub(super) fn $name(
            inv: &$crate::invocation::Invocation<'_, '_>,
        ) -> $crate::verdict::Verdict {
            $crate::commands::common::reads(inv, &$spec, $globs)
        }
    };
}
pub(crate) use read_rule;
