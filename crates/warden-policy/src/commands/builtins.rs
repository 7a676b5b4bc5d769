//! The shell's own builtins that only affect the shell running the line.

use super::Rule;
use super::common::always_read;
use crate::env_vars;
use crate::invocation::Invocation;
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    (":", always_read),
    ("[[", always_read),
    ("read", always_read),
    ("cd", always_read),
    ("pushd", always_read),
    ("popd", always_read),
    ("dirs", always_read),
    ("unset", always_read),
    ("shift", always_read),
    ("exit", always_read),
    ("return", always_read),
    ("break", always_read),
    ("continue", always_read),
    ("wait", always_read),
    ("jobs", always_read),
    ("getopts", always_read),
    ("let", always_read),
    ("umask", always_read),
    ("times", always_read),
    ("set", set),
    ("shopt", shopt),
    ("export", declare),
    ("declare", declare),
    ("typeset", declare),
    ("local", declare),
    ("readonly", declare),
    ("alias", alias),
    ("unalias", always_read),
];

fn set(inv: &Invocation<'_, '_>) -> Verdict {
    // `set -e`, `set -o pipefail`, `set -- a b` only change the running shell.
    let _ = inv;
    Verdict::Read
}

fn shopt(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('s') || inv.has_short('u') {
        return Verdict::unknown("changes shell behaviour (aliases, globbing)");
    }
    Verdict::Read
}

fn declare(inv: &Invocation<'_, '_>) -> Verdict {
    for arg in inv.args {
        let name = arg.as_str().split('=').next().unwrap_or_default();
        if arg.as_str().contains('=') && env_vars::is_dangerous(name.trim_end_matches('+')) {
            return Verdict::unknown(format!("setting `{name}` changes what programs run"));
        }
        if arg.is_variable() && !arg.as_str().contains('=') {
            return Verdict::unknown("variable names come from an expansion");
        }
    }
    Verdict::Read
}

fn alias(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().all(|a| !a.as_str().contains('=')) {
        Verdict::Read
    } else {
        Verdict::unknown("defines an alias")
    }
}
