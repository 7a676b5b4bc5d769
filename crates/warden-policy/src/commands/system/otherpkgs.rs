//! Package managers beyond the distribution's own: Alpine `apk`, `snap`,
//! and the language tools `pip` and `npm`.

use crate::commands::common::sub_in;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(super) fn apk(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "info", "list", "search", "policy", "stats", "dot", "version", "audit",
        ],
    )
}

pub(super) fn snap(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "list",
            "info",
            "find",
            "version",
            "connections",
            "services",
            "changes",
            "change",
            "interfaces",
            "warnings",
            "model",
            "logs",
            "help",
        ],
    )
}

pub(super) fn pip(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "list",
            "show",
            "freeze",
            "check",
            "--version",
            "-V",
            "help",
            "debug",
            "inspect",
        ],
    )
}

pub(super) fn npm(inv: &Invocation<'_, '_>) -> Verdict {
    let verdict = sub_in(
        inv,
        OptSpec::NONE,
        &[
            "ls",
            "list",
            "la",
            "ll",
            "view",
            "info",
            "show",
            "outdated",
            "--version",
            "-v",
            "help",
            "search",
            "audit",
            "config",
            "doctor",
            "root",
            "prefix",
            "bin",
        ],
    );
    unless_setter(verdict, inv)
}

/// `npm config set`, `npm audit fix`, `tailscale dns … set` write even though
/// their first word reads.
fn unless_setter(verdict: Verdict, inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&[
        "set", "delete", "edit", "fix", "--fix", "add", "rm", "remove",
    ]) {
        return Verdict::write(Risk::MediumWrite, "changes configuration or packages");
    }
    verdict
}
