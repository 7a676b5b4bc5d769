//! Shells and interpreters: `sh -c` scripts are parsed and classified like
//! the line itself; interpreters run code that cannot be inspected.

use super::Rule;
use crate::invocation::{Invocation, OptSpec, is_short_cluster};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("sh", shell),
    ("bash", shell),
    ("dash", shell),
    ("zsh", shell),
    ("ksh", shell),
    ("mksh", shell),
    ("ash", shell),
    ("fish", shell),
    ("python", interpreter),
    ("python2", interpreter),
    ("python3", interpreter),
    ("perl", interpreter),
    ("ruby", interpreter),
    ("node", interpreter),
    ("nodejs", interpreter),
    ("deno", interpreter),
    ("bun", interpreter),
    ("php", interpreter),
    ("lua", interpreter),
    ("luajit", interpreter),
    ("Rscript", interpreter),
    ("tclsh", interpreter),
    ("wish", interpreter),
    ("irb", interpreter),
    ("pry", interpreter),
    ("ghci", interpreter),
    ("erl", interpreter),
    ("iex", interpreter),
    ("julia", interpreter),
    ("java", interpreter),
    ("jshell", interpreter),
    ("mongo", interpreter),
    ("mongosh", interpreter),
    ("bc", calculator),
    ("dc", calculator),
];

pub(super) fn escalates() -> Reason {
    "runs a command with other privileges".into()
}

pub(super) fn first_operand(inv: &Invocation<'_, '_>, spec: OptSpec) -> Option<usize> {
    inv.first_positional(spec).map(|(i, _)| i)
}

fn shell(inv: &Invocation<'_, '_>) -> Verdict {
    let mut index = 0;
    let mut wants_script = false;
    while let Some(arg) = inv.args.get(index) {
        let text = arg.as_str();
        if text == "--" || text == "-" {
            index += 1;
            break;
        }
        if text == "-o" || text == "+o" || text == "-O" || text == "+O" {
            index += 2;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long {
                "login" | "norc" | "noprofile" | "posix" | "noediting" | "restricted" => {}
                "version" | "help" => return Verdict::Read,
                _ => return Verdict::unknown(format!("unknown option `{text}`")),
            }
            index += 1;
            continue;
        }
        if is_short_cluster(text) || text.starts_with('+') {
            if arg.is_variable() {
                return Verdict::unknown("options come from an expansion");
            }
            for c in text[1..].chars() {
                match c {
                    'c' => wants_script = true,
                    's' => {
                        return Verdict::Wrap(opaque(
                            "sh -s",
                            "reads its script from standard input",
                        ));
                    }
                    'i' | 'l' | 'e' | 'x' | 'u' | 'v' | 'f' | 'n' | 'a' | 'b' | 'h' | 'm' | 'p'
                    | 'r' | 'B' | 'C' | 'E' | 'H' | 'P' | 'T' => {}
                    _ => return Verdict::unknown(format!("unknown option `-{c}`")),
                }
            }
            index += 1;
            continue;
        }
        break;
    }
    match inv.args.get(index) {
        Some(script) if wants_script => {
            if script.is_variable() {
                return Verdict::Wrap(opaque("sh -c", "the script comes from an expansion"));
            }
            Verdict::wrap_script("sh -c", script.as_str().to_string())
        }
        Some(file) => Verdict::Wrap(opaque("sh", format!("runs the script file `{}`", file.raw))),
        None if wants_script => Verdict::unknown("`-c` without a script"),
        None => Verdict::Wrap(Wrap {
            inner: Inner::Shell,
            bound: Bound::None,
            interactive: None,
            via: "sh",
        }),
    }
}

pub(super) fn opaque(via: &'static str, reason: impl Into<Reason>) -> Wrap {
    Wrap {
        inner: Inner::Opaque(reason.into()),
        bound: Bound::None,
        interactive: None,
        via,
    }
}

fn interpreter(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "starts an interactive interpreter",
        );
    }
    if inv.args.len() == 1 && inv.has_word(&["--version", "-V", "-v", "--help", "-version", "-h"]) {
        return Verdict::Read;
    }
    // `python3 -m http.server` and friends serve until stopped.
    let serves = inv.args.windows(2).any(|pair| {
        pair[0].as_str() == "-m"
            && matches!(
                pair[1].as_str(),
                "http.server" | "SimpleHTTPServer" | "smtpd" | "pydoc" | "ftplib" | "aiosmtpd"
            )
    });
    if serves {
        return Verdict::interactive_writer(
            InteractiveCategory::UnboundedStream,
            "runs a server until stopped",
        );
    }
    Verdict::unknown("runs code that cannot be inspected")
}

fn calculator(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().any(|a| !a.text.starts_with('-')) {
        // Reads the named files, then waits for more on stdin.
        return Verdict::interactive(InteractiveCategory::InteractiveRepl, "waits for input");
    }
    Verdict::interactive(InteractiveCategory::InteractiveRepl, "waits for input")
}
