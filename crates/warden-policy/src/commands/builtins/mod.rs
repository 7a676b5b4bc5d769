//! The shell's own builtins (and the programs of the same name: `echo`,
//! `printf`, `test`, `[`, `true`, `false`, `pwd`, `sleep`). Most only affect
//! the shell running the line; the ones that assign to a variable by a name
//! they are given (`read`, `printf -v`, `declare`, `unset`, `test -v`)
//! evaluate a subscript in that name (`a[$(reboot)]`) and so accept only
//! plain names; `let` and `declare -i` evaluate arithmetic and are refused.

mod tests_and_names;

mod variables;

use super::Rule;
use super::common::always_read;
use crate::invocation::Invocation;
use crate::shell::is_name;
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    (":", always_read),
    ("true", always_read),
    ("false", always_read),
    ("echo", always_read),
    ("pwd", pwd),
    ("printf", variables::printf),
    ("test", tests_and_names::test),
    ("[", tests_and_names::test),
    ("[[", tests_and_names::conditional),
    ("read", variables::read),
    ("mapfile", variables::mapfile),
    ("readarray", variables::mapfile),
    ("let", variables::arithmetic),
    ("declare", variables::declare),
    ("typeset", variables::declare),
    ("local", variables::declare),
    ("export", variables::declare),
    ("readonly", variables::declare),
    ("unset", variables::unset),
    ("getopts", variables::getopts),
    ("cd", tests_and_names::cd),
    ("pushd", tests_and_names::cd),
    ("popd", always_read),
    ("dirs", always_read),
    ("shift", always_read),
    ("exit", always_read),
    ("return", always_read),
    ("break", always_read),
    ("continue", always_read),
    ("wait", variables::wait),
    ("jobs", always_read),
    ("times", always_read),
    ("umask", always_read),
    ("type", always_read),
    ("hash", hash),
    ("help", always_read),
    ("sleep", sleep),
    ("set", set),
    ("shopt", shopt),
    ("alias", alias),
    ("unalias", always_read),
];

fn pwd(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .args
        .iter()
        .all(|a| matches!(a.as_str(), "-L" | "-P" | "--help" | "--version"))
    {
        Verdict::Read
    } else {
        Verdict::unknown("unexpected arguments")
    }
}

/// `sleep N`: bounded by N; `sleep infinity` is not.
fn sleep(inv: &Invocation<'_, '_>) -> Verdict {
    let finite = !inv.args.is_empty()
        && inv.args.iter().all(|a| {
            a.is_literal() && {
                let n = a.as_str().trim_end_matches(['s', 'm', 'h', 'd']);
                n.parse::<f64>().is_ok_and(f64::is_finite)
                    || matches!(a.as_str(), "--help" | "--version")
            }
        });
    if finite {
        Verdict::Read
    } else {
        Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "sleeps without a bound",
        )
    }
}

/// `set -e`, `set -o pipefail`, `set -- a b` only change the running shell;
/// `-k` would make later `NAME=value` arguments into environment variables.
fn set(inv: &Invocation<'_, '_>) -> Verdict {
    for arg in inv.args {
        let text = arg.as_str();
        if text == "--" || text == "-" {
            break;
        }
        if arg.is_variable() {
            return Verdict::unknown("an option comes from an expansion");
        }
        if (text.starts_with('-') || text.starts_with('+')) && text[1..].contains('k')
            || text == "keyword"
        {
            return Verdict::unknown("`-k` turns arguments into environment variables");
        }
    }
    Verdict::Read
}

fn shopt(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('s') || inv.has_short('u') {
        return Verdict::unknown("changes shell behaviour (aliases, globbing)");
    }
    Verdict::Read
}

fn alias(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .args
        .iter()
        .all(|a| a.is_literal() && !a.as_str().contains('='))
    {
        Verdict::Read
    } else {
        Verdict::unknown("defines an alias")
    }
}

/// `hash -p PATH NAME` makes NAME run PATH.
fn hash(inv: &Invocation<'_, '_>) -> Verdict {
    let plain = inv.args.iter().all(|a| {
        a.is_literal() && (matches!(a.as_str(), "-r" | "-l" | "-t" | "-d") || is_name(a.as_str()))
    });
    if plain && !inv.has_short('p') {
        Verdict::Read
    } else {
        Verdict::unknown("`hash -p` makes a name run another program")
    }
}

#[cfg(test)]
mod tests;
