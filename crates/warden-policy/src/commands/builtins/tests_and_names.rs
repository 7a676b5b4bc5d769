//! `test`/`[`, bash's `[[ … ]]`, and `cd`.

use crate::invocation::{Arg, Invocation};
use crate::shell::is_name;
use crate::verdict::*;

/// Unary tests that look a variable up by name (`-v 'a[$(reboot)]'`
/// evaluates the subscript).
const NAME_TESTS: &[&str] = &["-v", "-R"];

/// The binary operators of `test`.
const BINARY: &[&str] = &[
    "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "=~",
    "-a", "-o",
];

fn evaluates(name: &Arg<'_>) -> bool {
    !(name.is_literal() && is_name(name.as_str()))
}

/// `test EXPR` / `[ EXPR ]`: reads nothing but file metadata; `-v NAME`
/// needs a plain name, also when a `$word` could turn into `-v`.
pub(super) fn test(inv: &Invocation<'_, '_>) -> Verdict {
    let mut args: &[Arg<'_>] = inv.args;
    if inv.name == "[" {
        match args.split_last() {
            Some((last, rest)) if last.as_str() == "]" => args = rest,
            _ => return Verdict::unknown("`[` without `]`"),
        }
    }
    let refused = || Verdict::unknown("`-v NAME` with a name that is not plain can run code");
    for (i, arg) in args.iter().enumerate() {
        let operand = args.get(i + 1);
        let name_test = arg.is_literal() && NAME_TESTS.contains(&arg.as_str());
        if name_test && operand.is_some_and(evaluates) {
            return refused();
        }
    }
    // A word that could become `-v`: only where test reads an operator.
    let may_be_unary =
        |a: &Arg<'_>, next: Option<&Arg<'_>>| a.is_variable() && next.is_some_and(evaluates);
    let safe = match args {
        [] | [_] => true,
        [a, b] => a.as_str() == "!" && a.is_literal() || !may_be_unary(a, Some(b)),
        [a, op, c] if op.is_literal() && BINARY.contains(&op.as_str()) => {
            let _ = (a, c);
            true
        }
        [bang, a, b] if bang.is_literal() && bang.as_str() == "!" => !may_be_unary(a, Some(b)),
        _ => !args.iter().any(Arg::is_variable) || args.iter().all(|a| !a.may_be_option()),
    };
    if safe { Verdict::Read } else { refused() }
}

const ARITHMETIC_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

fn integer(arg: &Arg<'_>) -> bool {
    let text = arg.as_str();
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    arg.is_literal() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// bash's `[[ … ]]`: `-eq` and friends evaluate both sides as arithmetic
/// (`[[ $x -eq 1 ]]` runs code hidden in `x`), so only integers may stand
/// there; `-v` needs a plain name.
pub(super) fn conditional(inv: &Invocation<'_, '_>) -> Verdict {
    let words = inv.args;
    for (i, word) in words.iter().enumerate() {
        let text = word.as_str();
        if !word.is_literal() {
            continue;
        }
        if ARITHMETIC_TESTS.contains(&text) {
            let sides = [
                i.checked_sub(1).and_then(|j| words.get(j)),
                words.get(i + 1),
            ];
            if !sides.iter().all(|s| s.is_some_and(integer)) {
                return Verdict::unknown(format!(
                    "`{text}` in `[[` evaluates its operands as arithmetic, which can run code"
                ));
            }
        }
        if NAME_TESTS.contains(&text) && words.get(i + 1).is_some_and(evaluates) {
            return Verdict::unknown("`-v NAME` with a name that is not plain can run code");
        }
    }
    Verdict::Read
}

/// `cd DIR`: later relative names are read from DIR, so it must be a known
/// directory outside `/dev`, `/proc` and `/sys` (a relative one is taken
/// as if from `/`, where relative names are checked anyway).
pub(super) fn cd(inv: &Invocation<'_, '_>) -> Verdict {
    let target = inv
        .args
        .iter()
        .find(|a| !(a.is_literal() && matches!(a.as_str(), "-L" | "-P" | "-e" | "-@" | "--")));
    match target {
        None => Verdict::Read,
        Some(t) if t.is_literal() && t.as_str() != "-" && !t.as_str().starts_with(['+', '~']) => {
            let path = t.as_str();
            let mut comps: Vec<&str> = Vec::new();
            for comp in path.split('/') {
                match comp {
                    "" | "." => {}
                    ".." => {
                        comps.pop();
                    }
                    _ => comps.push(comp),
                }
            }
            if matches!(comps.first(), Some(&("dev" | "proc" | "sys"))) {
                Verdict::unknown(format!("`{path}` holds device or process files"))
            } else {
                Verdict::Read
            }
        }
        Some(t) if t.is_literal() && t.as_str().starts_with('~') => Verdict::Read,
        Some(t) => Verdict::unknown(format!("the directory `{}` is not known", t.raw)),
    }
}
