//! systemd's service manager and journal: `systemctl`, `journalctl`, and
//! the SysV `service` front end.

use crate::commands::common::{Subs, bad, first_bad, first_pos, help_only, variable_guard};
use crate::commands::follow::rewrite_args;
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

const SYSTEMCTL: Options = Options {
    short_flags: "arlqfiTh",
    short_values: "tpsHMnoPC",
    short_optional: "",
    long_flags: &[
        "--all",
        "--recursive",
        "--reverse",
        "--after",
        "--before",
        "--with-dependencies",
        "--full",
        "--value",
        "--show-types",
        "--show-transaction",
        "--fail",
        "--failed",
        "--ignore-inhibitors",
        "--dry-run",
        "--quiet",
        "--wait",
        "--no-block",
        "--user",
        "--system",
        "--global",
        "--no-wall",
        "--no-reload",
        "--no-ask-password",
        "--force",
        "--now",
        "--runtime",
        "--firmware-setup",
        "--plain",
        "--mkdir",
        "--marked",
        "--read-only",
        "--no-legend",
        "--no-pager",
        "--help",
        "--version",
        "--ignore-dependencies",
        "--irreversible",
        "--stdin",
        "--no-warn",
    ],
    long_values: &[
        "--type",
        "--property",
        "--state",
        "--host",
        "--machine",
        "--lines",
        "--output",
        "--root",
        "--image-policy",
        "--job-mode",
        "--kill-whom",
        "--kill-value",
        "--signal",
        "--what",
        "--message",
        "--preset-mode",
        "--boot-loader-menu",
        "--boot-loader-entry",
        "--reboot-argument",
        "--timestamp",
        "--check-inhibitors",
        "--when",
        "--legend",
        "--drop-in",
        "--capsule",
        "--kill-mode",
    ],
    long_optional: &[],
    style: Style::Gnu,
};

const SYSTEMCTL_READS: &[&str] = &[
    "status",
    "show",
    "cat",
    "list-units",
    "list-unit-files",
    "list-sockets",
    "list-timers",
    "list-jobs",
    "list-dependencies",
    "list-machines",
    "list-paths",
    "list-automounts",
    "is-active",
    "is-enabled",
    "is-failed",
    "is-system-running",
    "get-default",
    "show-environment",
    "whoami",
    "help",
];

/// Shown without an argument, set with one.
const SYSTEMCTL_GETSET: &[&str] = &["log-level", "log-target", "service-watchdogs"];

const SYSTEMCTL_WRITES: &[(&str, Risk)] = &[
    ("start", Risk::MediumWrite),
    ("stop", Risk::MediumWrite),
    ("restart", Risk::MediumWrite),
    ("reload", Risk::MediumWrite),
    ("try-restart", Risk::MediumWrite),
    ("reload-or-restart", Risk::MediumWrite),
    ("try-reload-or-restart", Risk::MediumWrite),
    ("reload-or-try-restart", Risk::MediumWrite),
    ("force-reload", Risk::MediumWrite),
    ("condrestart", Risk::MediumWrite),
    ("condreload", Risk::MediumWrite),
    ("condstop", Risk::MediumWrite),
    ("kill", Risk::MediumWrite),
    ("enable", Risk::MediumWrite),
    ("disable", Risk::MediumWrite),
    ("reenable", Risk::MediumWrite),
    ("mask", Risk::MediumWrite),
    ("unmask", Risk::MediumWrite),
    ("preset", Risk::MediumWrite),
    ("preset-all", Risk::MediumWrite),
    ("link", Risk::MediumWrite),
    ("revert", Risk::MediumWrite),
    ("add-wants", Risk::MediumWrite),
    ("add-requires", Risk::MediumWrite),
    ("set-property", Risk::MediumWrite),
    ("set-default", Risk::MediumWrite),
    ("bind", Risk::MediumWrite),
    ("mount-image", Risk::MediumWrite),
    ("daemon-reload", Risk::MediumWrite),
    ("daemon-reexec", Risk::MediumWrite),
    ("reset-failed", Risk::MediumWrite),
    ("clean", Risk::MediumWrite),
    ("freeze", Risk::MediumWrite),
    ("thaw", Risk::MediumWrite),
    ("import-environment", Risk::MediumWrite),
    ("set-environment", Risk::MediumWrite),
    ("unset-environment", Risk::MediumWrite),
    ("log-level", Risk::MediumWrite),
    ("log-target", Risk::MediumWrite),
    ("service-watchdogs", Risk::MediumWrite),
    ("exit", Risk::MediumWrite),
    ("reboot", Risk::HighWrite),
    ("soft-reboot", Risk::HighWrite),
    ("poweroff", Risk::HighWrite),
    ("halt", Risk::HighWrite),
    ("kexec", Risk::HighWrite),
    ("isolate", Risk::HighWrite),
    ("rescue", Risk::HighWrite),
    ("emergency", Risk::HighWrite),
    ("default", Risk::HighWrite),
    ("switch-root", Risk::HighWrite),
    ("suspend", Risk::HighWrite),
    ("hibernate", Risk::HighWrite),
    ("hybrid-sleep", Risk::HighWrite),
    ("suspend-then-hibernate", Risk::HighWrite),
    ("sleep", Risk::HighWrite),
];

const SYSTEMCTL_SUBS: Subs = Subs {
    reads: SYSTEMCTL_READS,
    writes: SYSTEMCTL_WRITES,
    what: "changes units or the system state",
    bare_read: true,
};

pub(super) fn systemctl(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    if let Some((index, sub)) = first_pos(&SYSTEMCTL, inv.args) {
        if sub == "help" {
            // The units' manual pages, in a pager; their names print instead.
            let units: Vec<&str> =
                crate::commands::common::operands_after(&SYSTEMCTL, inv.args, index).collect();
            let plain = units.iter().all(|u| {
                u.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"@._-".contains(&b))
            });
            return if plain && !units.is_empty() {
                Verdict::pager_with_rewrite(
                    format!("show -p Documentation {}", units.join(" ")),
                    "`help` opens the units' manual pages in a pager",
                )
            } else {
                Verdict::interactive(
                    InteractiveCategory::Pager,
                    "`help` opens the units' manual pages in a pager",
                )
            };
        }
        if sub == "edit" {
            return Verdict::interactive_writer(
                InteractiveCategory::Pager,
                "`edit` opens an editor on a unit",
            );
        }
        if SYSTEMCTL_GETSET.contains(&sub)
            && crate::commands::common::operands_after(&SYSTEMCTL, inv.args, index)
                .next()
                .is_none()
        {
            return known_or_bad(&SYSTEMCTL, inv);
        }
    }
    crate::commands::common::subcommand_tool(inv, &SYSTEMCTL, &SYSTEMCTL_SUBS)
}

fn known_or_bad(spec: &'static Options, inv: &Invocation<'_, '_>) -> Verdict {
    match first_bad(spec, inv.args) {
        Some(word) => bad(word),
        None => variable_guard(inv).unwrap_or(Verdict::Read),
    }
}

const JOURNALCTL: Options = Options {
    short_flags: "mkefrxaqlNhI",
    short_values: "MDSUcutTpgoFi",
    short_optional: "bn",
    long_flags: &[
        "--system",
        "--user",
        "--merge",
        "--dmesg",
        "--pager-end",
        "--follow",
        "--no-tail",
        "--reverse",
        "--truncate-newline",
        "--catalog",
        "--all",
        "--quiet",
        "--no-full",
        "--full",
        "--no-hostname",
        "--utc",
        "--fields",
        "--list-boots",
        "--list-namespaces",
        "--list-invocations",
        "--disk-usage",
        "--header",
        "--verify",
        "--force",
        "--show-cursor",
        "--list-catalog",
        "--dump-catalog",
        "--new-id128",
        "--no-pager",
        "--help",
        "--version",
        // Writers, recognised so their abbreviations resolve.
        "--rotate",
        "--flush",
        "--sync",
        "--relinquish-var",
        "--smart-relinquish-var",
        "--setup-keys",
        "--update-catalog",
    ],
    long_values: &[
        "--machine",
        "--directory",
        "--file",
        "--root",
        "--image-policy",
        "--namespace",
        "--since",
        "--until",
        "--cursor",
        "--after-cursor",
        "--unit",
        "--user-unit",
        "--identifier",
        "--exclude-identifier",
        "--priority",
        "--facility",
        "--grep",
        "--output",
        "--output-fields",
        "--field",
        "--verify-key",
        "--interval",
        "--invocation",
        "--vacuum-size",
        "--vacuum-time",
        "--vacuum-files",
        "--cursor-file",
    ],
    long_optional: &["--boot", "--lines", "--case-sensitive", "--json"],
    style: Style::Gnu,
};

const JOURNALCTL_WRITERS: &[(&str, Risk, &str)] = &[
    (
        "--vacuum-size",
        Risk::HighWrite,
        "deletes archived journal files",
    ),
    (
        "--vacuum-time",
        Risk::HighWrite,
        "deletes archived journal files",
    ),
    (
        "--vacuum-files",
        Risk::HighWrite,
        "deletes archived journal files",
    ),
    ("--rotate", Risk::MediumWrite, "rotates the journal files"),
    ("--flush", Risk::MediumWrite, "flushes the journal to /var"),
    ("--sync", Risk::LowWrite, "syncs the journal to disk"),
    (
        "--relinquish-var",
        Risk::MediumWrite,
        "moves journalling off /var",
    ),
    (
        "--smart-relinquish-var",
        Risk::MediumWrite,
        "moves journalling off /var",
    ),
    ("--setup-keys", Risk::MediumWrite, "generates sealing keys"),
    (
        "--update-catalog",
        Risk::LowWrite,
        "rebuilds the message catalog",
    ),
    (
        "--cursor-file",
        Risk::LowWrite,
        "`--cursor-file` saves the cursor to a file",
    ),
];

pub(super) fn journalctl(inv: &Invocation<'_, '_>) -> Verdict {
    let mut follows = false;
    let mut unknown = None;
    for tok in JOURNALCTL.walk(inv.args) {
        match tok {
            Tok::Long { name, .. } => {
                if let Some((_, risk, why)) = JOURNALCTL_WRITERS.iter().find(|w| w.0 == name) {
                    return Verdict::write(*risk, *why);
                }
                follows |= name == "--follow";
            }
            Tok::Short { flag: 'f', .. } => follows = true,
            Tok::Unknown { text: word, .. } => unknown = unknown.or(Some(word)),
            _ => {}
        }
    }
    if let Some(word) = unknown {
        return bad(word);
    }
    if let Some(v) = variable_guard(inv) {
        return v;
    }
    if !follows {
        return Verdict::Read;
    }
    let reason = "`-f` follows the journal forever";
    let mut added: Vec<&str> = Vec::with_capacity(4);
    let has = |short: char, long: &str| {
        JOURNALCTL.walk(inv.args).any(|t| match t {
            Tok::Short { flag: c, .. } => c == short,
            Tok::Long { name: n, .. } => n == long,
            _ => false,
        })
    };
    if !has('n', "--lines") {
        added.extend(["-n", "200"]);
    }
    if !has('S', "--since") {
        added.extend(["--since", "\"10 min ago\""]);
    }
    let is_follow = |t: &Tok<'_>| {
        matches!(
            t,
            Tok::Short { flag: 'f', .. }
                | Tok::Long {
                    name: "--follow",
                    ..
                }
        )
    };
    match rewrite_args(inv, &[&JOURNALCTL], is_follow, &added, None) {
        Some(rewrite) => Verdict::unbounded_with_rewrite(rewrite, reason),
        None => Verdict::interactive(InteractiveCategory::UnboundedStream, reason),
    }
}

const SERVICE_READS: &[&str] = &["status"];
const SERVICE_WRITES: &[&str] = &[
    "start",
    "stop",
    "restart",
    "reload",
    "force-reload",
    "try-restart",
    "condrestart",
    "force-stop",
];

/// `service NAME ACTION` or `service --status-all`.
pub(super) fn service(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args {
        [only]
            if matches!(
                only.as_str(),
                "--status-all" | "--help" | "-h" | "--version"
            ) =>
        {
            Verdict::Read
        }
        [name, action, ..] if !name.as_str().starts_with('-') => {
            let action = action.as_str();
            if SERVICE_READS.contains(&action) {
                if inv.args.iter().all(|a| a.is_literal()) {
                    Verdict::Read
                } else {
                    Verdict::unknown("the service or action comes from an expansion")
                }
            } else if SERVICE_WRITES.contains(&action) {
                Verdict::write(
                    Risk::MediumWrite,
                    format!("action `{action}` changes a service"),
                )
            } else {
                Verdict::unknown(format!("action `{action}` is not known to be read-only"))
            }
        }
        _ => Verdict::unknown("not a known form"),
    }
}
