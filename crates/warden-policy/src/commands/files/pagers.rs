//! Pagers, editors and manual readers: they need a terminal.

use crate::invocation::Invocation;
use crate::verdict::*;

pub(super) fn pager(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive(InteractiveCategory::Pager, "pages its output on a terminal")
}

pub(super) fn editor(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(InteractiveCategory::Pager, "an interactive editor")
}

/// `man -k`/`-f`/`-w` print and exit; otherwise `man` pages.
pub(super) fn man(inv: &Invocation<'_, '_>) -> Verdict {
    let prints = inv.args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-k" | "-f"
                | "-w"
                | "-W"
                | "--apropos"
                | "--whatis"
                | "--where"
                | "--path"
                | "--help"
                | "--version"
        )
    });
    let only_known = inv.args.iter().all(|a| {
        a.is_literal()
            && (!a.as_str().starts_with('-')
                || matches!(
                    a.as_str(),
                    "-k" | "-f"
                        | "-w"
                        | "-W"
                        | "-a"
                        | "--apropos"
                        | "--whatis"
                        | "--where"
                        | "--path"
                        | "--all"
                        | "--help"
                        | "--version"
                ))
    });
    if prints && only_known {
        Verdict::Read
    } else {
        pager(inv)
    }
}
