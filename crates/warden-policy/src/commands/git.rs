//! Version control: git.
//!
//! `git [GLOBAL OPTIONS] SUBCOMMAND [ARGS]`. The global options are checked
//! against an allowlist (several of them load configuration or point git at
//! other programs), the subcommand against the tables in [`read`] and
//! [`write`]. Anything else, aliases included, is unknown: an alias can run
//! any shell command.

mod help;
mod read;
mod write;

#[cfg(test)]
mod tests;

use super::Rule;
use crate::invocation::{Arg, ArgShape, Invocation};
use crate::options::{Options, Tok};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

pub(crate) const RULES: &[(&str, Rule)] = &[("git", git)];

/// A subcommand rule: sees the arguments after the subcommand name.
type SubRule = fn(&Invocation<'_, '_>) -> Verdict;

fn git(inv: &Invocation<'_, '_>) -> Verdict {
    let mut paginate = false;
    let mut i = 0;
    while let Some(arg) = inv.args.get(i) {
        let text = arg.as_str();
        if !text.starts_with('-') || text == "-" {
            break;
        }
        if arg.is_variable() {
            return Verdict::unknown("a global option comes from an expansion");
        }
        match text {
            // `-C DIR` only changes directory first, exactly like `cd DIR &&
            // git …`: the repository found there is read with its own config,
            // as one in the current directory would be, and git refuses
            // repositories owned by other users (`safe.directory`). Codex
            // refuses it; we accept it because operators read repositories
            // elsewhere (`git -C /etc log`) all the time.
            "-C" => {
                if inv.args.get(i + 1).is_none() {
                    return Verdict::unknown("`-C` without a directory");
                }
                i += 2;
                continue;
            }
            "-p" | "--paginate" => paginate = true,
            "-P"
            | "--no-pager"
            | "--no-replace-objects"
            | "--bare"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-optional-locks"
            | "--no-lazy-fetch"
            | "--no-advice" => {}
            "--attr-source" => {
                i += 2;
                continue;
            }
            // `git --help X` and `git --version` are `git help X` and `git version`.
            "--help" | "-h" => return help::help(&inv.from(i + 1)),
            "--version" | "-v" => return Verdict::Read,
            "--html-path" | "--man-path" | "--info-path" => return Verdict::Read,
            // Alone it prints the directory; with a value it runs git
            // helpers from there (git ignores the rest after printing, but
            // a command line that names more is not what it seems).
            "--exec-path" if inv.args.len() == i + 1 => return Verdict::Read,
            _ if text.starts_with("--attr-source=") => {}
            _ if text.starts_with("--list-cmds=") => return Verdict::Read,
            _ => return global_option_reason(text),
        }
        i += 1;
    }
    let Some(sub) = inv.args.get(i) else {
        // `git` alone prints its usage.
        return if paginate { pager() } else { Verdict::Read };
    };
    if !sub.is_literal() {
        return Verdict::unknown("the subcommand comes from an expansion");
    }
    let rest = inv.from(i + 1);
    let verdict = subcommand(sub.as_str(), &rest);
    match verdict {
        Verdict::Read | Verdict::Conditional(_) if paginate => pager(),
        v => v,
    }
}

fn pager() -> Verdict {
    Verdict::interactive(InteractiveCategory::Pager, "`--paginate` pages the output")
}

/// Why a global option (other than the accepted ones) is refused.
fn global_option_reason(text: &str) -> Verdict {
    let head = text.split_once('=').map_or(text, |(h, _)| h);
    let reason = match head {
        _ if text.starts_with("-c") => {
            "`-c` sets configuration, which can run programs (core.pager, core.fsmonitor, aliases)"
        }
        "--config-env" => "`--config-env` sets configuration, which can run programs",
        "--git-dir" => "`--git-dir` points git at another repository and its configuration",
        "--work-tree" => "`--work-tree` points git at another work tree",
        "--exec-path" => "`--exec-path` runs git helpers from another directory",
        "--namespace" => "`--namespace` changes which refs git sees",
        "--super-prefix" => "`--super-prefix` is internal to submodule commands",
        _ => return Verdict::unknown(format!("unknown global option `{head}`")),
    };
    Verdict::unknown(reason)
}

fn subcommand(name: &str, rest: &Invocation<'_, '_>) -> Verdict {
    // `git X --help` is `git help X` (a manual page in a pager or a
    // browser); `-h` alone prints usage. Only in first place: elsewhere
    // `--help` can be an option's value.
    if matches!(rest.arg(0), Some("--help")) {
        return help::manual_page(name);
    }
    if rest.args.len() == 1 && rest.arg(0) == Some("-h") {
        return Verdict::Read;
    }
    if let Some(reason) = variable_option(rest) {
        return reason;
    }
    if let Some(&(_, rule)) = read::SUBCOMMANDS.iter().find(|(n, _)| *n == name) {
        return rule(rest);
    }
    if let Some(&(_, risk, reason)) = write::SIMPLE.iter().find(|(n, ..)| *n == name) {
        if let Some(editor) = write::opens_editor(name, rest) {
            return editor;
        }
        return Verdict::write(risk, reason);
    }
    if let Some(&(_, rule)) = write::SUBCOMMANDS.iter().find(|(n, _)| *n == name) {
        return rule(rest);
    }
    if let Some(&(_, reason)) = write::OPAQUE.iter().find(|(n, _)| *n == name) {
        return Verdict::unknown(reason);
    }
    Verdict::unknown(format!("unknown subcommand or alias `{name}`"))
}

/// Git has options that write files or run programs, so an argument before
/// `--` that could expand into an option makes the command unknown.
fn variable_option(rest: &Invocation<'_, '_>) -> Option<Verdict> {
    rest.option_args()
        .any(may_become_option)
        .then(|| Verdict::unknown("an argument comes from an expansion and could be an option"))
}

/// Could the shell turn this word into an option (or several words)? A glob
/// or a double-quoted expansion that starts with fixed text cannot.
fn may_become_option(arg: &Arg<'_>) -> bool {
    let safe_start = |s: &str| {
        s.bytes().next().is_some_and(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/' | b'_' | b':' | b'@')
        })
    };
    match arg.shape {
        ArgShape::Literal | ArgShape::Inert => false,
        ArgShape::Glob => !safe_start(&arg.text),
        ArgShape::Dynamic => {
            let raw = arg.raw;
            let quoted = raw.len() >= 2
                && raw.starts_with('"')
                && raw.ends_with('"')
                && raw[1..raw.len() - 1].bytes().all(|b| b != b'"');
            !(quoted && safe_start(&raw[1..]))
        }
    }
}

/// One option or operand as git's parse-options sees it: the walker's
/// tokens ([`crate::options`]), with options the spec does not know kept as
/// options, so rules can look for the ones they care about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt<'i> {
    Short(char),
    /// The name without `--` and without `=value`.
    Long(&'i str),
    /// An operand and its index.
    Pos(usize, &'i str),
}

/// Walk the arguments with `spec` (which says which options take a value),
/// calling `f` for every option and operand; the first verdict `f` returns
/// ends the walk.
fn scan<'i>(
    args: &'i [Arg<'_>],
    spec: Options,
    mut f: impl FnMut(Opt<'i>) -> Option<Verdict>,
) -> Option<Verdict> {
    for tok in spec.walk(args) {
        let opt = match tok {
            Tok::Short { flag, .. } => Opt::Short(flag),
            Tok::Long { name, .. } => Opt::Long(name.trim_start_matches('-')),
            Tok::Unknown { text, .. } => match text.strip_prefix("--") {
                Some(long) => Opt::Long(long.split_once('=').map_or(long, |(n, _)| n)),
                None => Opt::Short(text.chars().next().unwrap_or('-')),
            },
            Tok::Operand { index, text } => Opt::Pos(index, text),
            Tok::Dynamic { index } => match args.get(index) {
                Some(arg) => Opt::Pos(index, &arg.text),
                None => continue,
            },
        };
        if let Some(v) = f(opt) {
            return Some(v);
        }
    }
    None
}

/// Is `head` (`--name` before any `=`) `long` or an abbreviation of it that
/// parse-options could accept (at least `min` characters)?
fn abbrev_of(head: &str, long: &str, min: usize) -> bool {
    head.len() >= min && long.starts_with(head)
}

/// Options that make an otherwise read-only subcommand write a file or run a
/// configured program. Checked on the arguments before `--`.
fn hazards(rest: &Invocation<'_, '_>) -> Option<Verdict> {
    for arg in rest.option_args() {
        let text = arg.as_str();
        // A remote as an operand or as an option's value (`--remote=ext::…`).
        let value = text.split_once('=').map_or("", |(_, v)| v);
        let runs_command = |remote: &str| remote.starts_with("ext::") || remote.starts_with("fd::");
        if runs_command(text) || (text.starts_with("--") && runs_command(value)) {
            return Some(Verdict::unknown(
                "an `ext::` or `fd::` remote runs a command",
            ));
        }
        let Some(_) = text.strip_prefix("--") else {
            continue;
        };
        let head = text.split_once('=').map_or(text, |(h, _)| h);
        if abbrev_of(head, "--output", 3) {
            return Some(Verdict::write(Risk::LowWrite, "`--output` writes a file"));
        }
        if abbrev_of(head, "--ext-diff", 3) {
            return Some(Verdict::unknown(
                "`--ext-diff` runs the configured external diff program",
            ));
        }
        if abbrev_of(head, "--textconv", 5) && head != "--text" {
            return Some(Verdict::unknown(
                "`--textconv` runs the configured conversion filters",
            ));
        }
        if head == "--filters" {
            return Some(Verdict::unknown("`--filters` runs the configured filters"));
        }
        if abbrev_of(head, "--upload-pack", 4)
            || abbrev_of(head, "--receive-pack", 4)
            || abbrev_of(head, "--exec", 4)
        {
            return Some(Verdict::unknown("runs the program given as a value"));
        }
        if abbrev_of(head, "--open-files-in-pager", 4) {
            return Some(Verdict::interactive_writer(
                InteractiveCategory::Pager,
                "`--open-files-in-pager` opens a pager or editor",
            ));
        }
    }
    None
}

/// A read-only subcommand, unless one of the [`hazards`] is present; with
/// `--stdin` or `--batch` it waits for standard input.
fn plain_read(rest: &Invocation<'_, '_>) -> Verdict {
    if let Some(hazard) = hazards(rest) {
        return hazard;
    }
    // `--batch-all-objects` walks the object store instead of reading input.
    let reads_stdin = !rest.has_long("--batch-all-objects")
        && rest.option_args().any(|a| {
            let head = a.as_str().split_once('=').map_or(a.as_str(), |(h, _)| h);
            matches!(
                head,
                "--stdin" | "--batch" | "--batch-check" | "--batch-command"
            )
        });
    if reads_stdin {
        return super::common::stdin_reader();
    }
    Verdict::Read
}

/// A subcommand that reads standard input (`patch-id`, `stripspace`,
/// `show-index`): bounded only when the line feeds it.
fn stdin_read(rest: &Invocation<'_, '_>) -> Verdict {
    hazards(rest).unwrap_or_else(super::common::stdin_reader)
}

/// `ls-remote`: `-u` is `--upload-pack`, a program to run.
fn ls_remote(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_short('u') {
        return Verdict::unknown("`-u` names a program to run as upload-pack");
    }
    plain_read(rest)
}

/// The first operand (a sub-subcommand like `stash list`), skipping options
/// per `spec`, with its index in `rest.args`.
fn first_word<'i>(rest: &Invocation<'i, '_>, spec: Options) -> Option<(usize, &'i str)> {
    let mut found = None;
    scan(rest.args, spec, |o| match o {
        Opt::Pos(i, p) => {
            found = Some((i, p));
            Some(Verdict::Read)
        }
        _ => None,
    });
    found
}

/// How many operands there are.
fn count_operands(rest: &Invocation<'_, '_>, spec: Options) -> usize {
    let mut n = 0;
    scan(rest.args, spec, |o| {
        if matches!(o, Opt::Pos(..)) {
            n += 1;
        }
        None
    });
    n
}
