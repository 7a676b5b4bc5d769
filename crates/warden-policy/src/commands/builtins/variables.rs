//! Builtins that assign to variables by name: the name must be a plain,
//! literal name, since bash evaluates a subscript in it (`read
//! 'a[$(reboot)]'` runs `reboot`); and the ones that evaluate arithmetic.

use crate::commands::common::bad;
use crate::env_vars;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::shell::is_name;
use crate::verdict::*;

/// A name a builtin assigns to: literal and plain.
fn plain_name(text: &str, literal: bool) -> Option<Verdict> {
    if literal && is_name(text) {
        return None;
    }
    Some(Verdict::unknown(format!(
        "assigning to `{text}` can evaluate a subscript, which can run code"
    )))
}

/// `let` and arithmetic on variables evaluate their values as code.
pub(super) fn arithmetic(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::unknown("evaluates arithmetic, which can run code hidden in variables")
}

const READ: Options = Options {
    short_flags: "ers",
    short_values: "adinNptu",
    ..Options::POSIX
};

/// `read [-r] NAME…`: waits for a line on standard input.
pub(super) fn read(inv: &Invocation<'_, '_>) -> Verdict {
    let mut timeout = false;
    for tok in READ.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'a', value, ..
            } => {
                if let Some(v) = plain_name(value.unwrap_or_default(), true) {
                    return v;
                }
            }
            Tok::Short { flag: 't', .. } => timeout = true,
            Tok::Short { .. } | Tok::Long { .. } => {}
            Tok::Operand { index, text } => {
                let literal = inv.args.get(index).is_some_and(|a| a.is_literal());
                if let Some(v) = plain_name(text, literal) {
                    return v;
                }
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
        }
    }
    // Assigning text from the input is one of the constructs DESIGN counts
    // as evaluating hidden text (a name can be a reference or integer set
    // earlier); without input it waits on the terminal.
    let reason = "assigns text from its input to variables";
    if timeout {
        return Verdict::unknown(reason);
    }
    Verdict::interactive_writer(InteractiveCategory::InteractiveRepl, reason)
}

const MAPFILE: Options = Options {
    short_flags: "t",
    short_values: "dnOsuCc",
    ..Options::POSIX
};

/// `mapfile [-t] [NAME]`; `-C` runs a callback.
pub(super) fn mapfile(inv: &Invocation<'_, '_>) -> Verdict {
    for tok in MAPFILE.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'C' | 'c', ..
            } => {
                return Verdict::unknown("`-C` runs a command for every line");
            }
            Tok::Short { .. } | Tok::Long { .. } => {}
            Tok::Operand { index, text } => {
                let literal = inv.args.get(index).is_some_and(|a| a.is_literal());
                if let Some(v) = plain_name(text, literal) {
                    return v;
                }
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
        }
    }
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "assigns lines from its input to an array",
    )
}

/// `printf FORMAT [ARG…]`; `printf -v NAME` assigns.
pub(super) fn printf(inv: &Invocation<'_, '_>) -> Verdict {
    let Some(first) = inv.args.first() else {
        return Verdict::Read;
    };
    if first.may_be_option() {
        return bad(first.raw);
    }
    if first.as_str() == "-v" {
        let name = inv.args.get(1);
        if let Some(v) = plain_name(
            name.map_or("", |a| a.as_str()),
            name.is_some_and(|a| a.is_literal()),
        ) {
            return v;
        }
        return Verdict::unknown("`printf -v` assigns to a variable, which bash can evaluate");
    }
    Verdict::Read
}

/// The attributes `declare` and friends take (`-i` and `-n` are refused).
const DECLARE_FLAGS: &str = "aAfFgilnprtuxI";

/// `declare`/`local`/`export`/`readonly`/`typeset`: plain names, no
/// integer attribute (`-i` evaluates the values), no references (`-n`).
/// `export` and `declare -x` put names into the environment of every later
/// command, like a prefix does: an allowlist (see [`crate::env_vars`]).
pub(super) fn declare(inv: &Invocation<'_, '_>) -> Verdict {
    let mut exports = inv.name == "export";
    for arg in inv.args {
        let text = arg.as_str();
        if (text.starts_with('-') || text.starts_with('+')) && text.len() > 1 && arg.is_literal() {
            exports |= text.starts_with('-') && text[1..].contains('x');
            if text[1..].contains(['i', 'n']) {
                return Verdict::unknown(
                    "`-i` evaluates values as arithmetic and `-n` makes references: both can run code",
                );
            }
            if let Some(c) = text[1..].chars().find(|c| !DECLARE_FLAGS.contains(*c)) {
                return Verdict::unknown(format!("unknown option `-{c}`"));
            }
            continue;
        }
        if arg.may_be_option() {
            return bad(arg.raw);
        }
        let name = text.split_once('=').map_or(text, |(n, _)| n);
        let name = name.strip_suffix('+').unwrap_or(name);
        // The name part must be written out (the value may be an expansion).
        let literal_name = !arg
            .raw
            .split('=')
            .next()
            .unwrap_or_default()
            .contains(['$', '`']);
        if let Some(v) = plain_name(name, literal_name) {
            return v;
        }
        let refusal = match text.split_once('=') {
            Some((_, value)) if exports => {
                env_vars::assignment_refusal(name, value, arg.is_literal())
            }
            Some((_, value)) => env_vars::bare_assignment_refusal(name, value, arg.is_literal()),
            // Exporting a name set earlier: its value is not known here.
            None if exports => env_vars::assignment_refusal(name, "", false),
            None => None,
        };
        if let Some(reason) = refusal {
            return Verdict::unknown(reason);
        }
    }
    Verdict::Read
}

/// `unset [-fvn] NAME…`
pub(super) fn unset(inv: &Invocation<'_, '_>) -> Verdict {
    for arg in inv.args {
        let text = arg.as_str();
        if matches!(text, "-f" | "-v" | "-n" | "-fv" | "-vf") {
            continue;
        }
        if let Some(v) = plain_name(text, arg.is_literal()) {
            return v;
        }
    }
    Verdict::Read
}

/// `getopts OPTSTRING NAME [ARG…]`
pub(super) fn getopts(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args.get(1) {
        Some(name) => plain_name(name.as_str(), name.is_literal()).unwrap_or(Verdict::Read),
        None => Verdict::unknown("no variable name"),
    }
}

/// `wait [-fn] [-p NAME] [ID…]`
pub(super) fn wait(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args.iter().position(|a| a.as_str() == "-p") {
        Some(i) => {
            let name = inv.args.get(i + 1);
            plain_name(
                name.map_or("", |a| a.as_str()),
                name.is_some_and(|a| a.is_literal()),
            )
            .unwrap_or(Verdict::Read)
        }
        None => Verdict::Read,
    }
}
