//! Users, groups, passwords, logins, and scheduled jobs (cron, at).

use crate::commands::common::{bad, first_bad, help_only, variable_guard};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;

/// `useradd`, `usermod`, `groupadd`, … (`--help` aside).
pub(super) fn account_change(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-h") {
        return Verdict::Read;
    }
    // `useradd -D` alone prints the defaults.
    if inv.name == "useradd"
        && matches!(inv.args, [a] if a.as_str() == "-D" || a.as_str() == "--defaults")
    {
        return Verdict::Read;
    }
    Verdict::write(M, "changes users or groups")
}

/// `userdel`, `deluser`: removes accounts (and with `-r`, their files).
pub(super) fn account_delete(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-h") {
        return Verdict::Read;
    }
    Verdict::write(Risk::HighWrite, "deletes accounts")
}

/// Editors on the account databases.
pub(super) fn account_editor(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-h") {
        return Verdict::Read;
    }
    Verdict::interactive_writer(
        InteractiveCategory::Pager,
        "opens an editor on account files",
    )
}

/// `visudo -c` checks the syntax; otherwise it opens an editor.
pub(super) fn visudo(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || inv.has_short('c') || inv.has_long("--check") || inv.has_short('V') {
        return Verdict::Read;
    }
    Verdict::interactive_writer(InteractiveCategory::Pager, "opens an editor on sudoers")
}

/// `passwd -S [USER]` / `passwd -Sa` show status; anything else changes.
pub(super) fn passwd(inv: &Invocation<'_, '_>) -> Verdict {
    const PASSWD: Options = Options {
        short_flags: "Saq",
        short_values: "R",
        short_optional: "",
        long_flags: &["--status", "--all", "--quiet"],
        long_values: &["--root", "--prefix"],
        long_optional: &[],
        style: Style::Gnu,
    };
    let mut status = false;
    for tok in PASSWD.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'S', .. }
            | Tok::Long {
                name: "--status", ..
            } => status = true,
            Tok::Unknown { text: _, .. } => {
                return Verdict::write(M, "changes a password or account state");
            }
            _ => {}
        }
    }
    if status && first_bad(&PASSWD, inv.args).is_none() {
        return variable_guard(inv).unwrap_or(Verdict::Read);
    }
    Verdict::write(M, "changes a password or account state")
}

/// `chage -l USER` lists; other options change password ageing.
pub(super) fn chage(inv: &Invocation<'_, '_>) -> Verdict {
    const CHAGE: Options = Options {
        short_flags: "lih",
        short_values: "RP",
        short_optional: "",
        long_flags: &["--list", "--iso8601", "--help"],
        long_values: &["--root", "--prefix"],
        long_optional: &[],
        style: Style::Gnu,
    };
    let listing = CHAGE.walk(inv.args).any(|t| {
        matches!(
            t,
            Tok::Short {
                flag: 'l' | 'h',
                ..
            } | Tok::Long {
                name: "--list" | "--help",
                ..
            }
        )
    });
    if listing && first_bad(&CHAGE, inv.args).is_none() {
        return variable_guard(inv).unwrap_or(Verdict::Read);
    }
    Verdict::write(M, "changes password ageing")
}

/// `chsh -l` lists shells.
pub(super) fn chsh(inv: &Invocation<'_, '_>) -> Verdict {
    if matches!(inv.args, [a] if a.as_str() == "-l" || a.as_str() == "--list-shells")
        || help_only(inv)
    {
        return Verdict::Read;
    }
    Verdict::write(M, "changes a login shell")
}

/// `lastlog` shows; `-C`/`--clear` and `-S`/`--set` change the records.
pub(super) fn lastlog(inv: &Invocation<'_, '_>) -> Verdict {
    const LASTLOG: Options = Options {
        short_flags: "CSh",
        short_values: "bRtu",
        short_optional: "",
        long_flags: &["--clear", "--set", "--help"],
        long_values: &["--before", "--root", "--time", "--user"],
        long_optional: &[],
        style: Style::Gnu,
    };
    for tok in LASTLOG.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'C' | 'S', ..
            }
            | Tok::Long {
                name: "--clear" | "--set",
                ..
            } => {
                return Verdict::write(M, "changes the lastlog records");
            }
            Tok::Unknown { text: word, .. } => return bad(word),
            _ => {}
        }
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

/// `faillog` shows; `-r`, `-l`, `-m` reset or set limits.
pub(super) fn faillog(inv: &Invocation<'_, '_>) -> Verdict {
    const FAILLOG: Options = Options {
        short_flags: "arh",
        short_values: "lmRtu",
        short_optional: "",
        long_flags: &["--all", "--reset", "--help"],
        long_values: &["--lock-secs", "--maximum", "--root", "--time", "--user"],
        long_optional: &[],
        style: Style::Gnu,
    };
    for tok in FAILLOG.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 'r' | 'l' | 'm',
                ..
            }
            | Tok::Long {
                name: "--reset" | "--lock-secs" | "--maximum",
                ..
            } => {
                return Verdict::write(M, "resets failure counts or sets limits");
            }
            Tok::Unknown { text: word, .. } => return bad(word),
            _ => {}
        }
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

/// `faillock` and `pam_tally2` show; `--reset` clears.
pub(super) fn tally(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long_abbrev("--reset") || inv.has_short('r') {
        return Verdict::write(M, "`--reset` clears login failure records");
    }
    if inv.any_variable() {
        return Verdict::unknown("an argument could expand into `--reset`");
    }
    Verdict::Read
}

/// `pwck -r` / `grpck -r` only check; otherwise they offer to fix entries.
pub(super) fn check_db(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('r') || inv.has_long("--read-only") || help_only(inv) {
        return Verdict::Read;
    }
    Verdict::write(M, "may fix account database entries")
}

const CRONTAB: Options = Options {
    short_flags: "lerixcVTh",
    short_values: "usn",
    short_optional: "",
    long_flags: &[],
    long_values: &[],
    long_optional: &[],
    style: Style::Gnu,
};

/// `crontab -l` lists, `-e` edits, `-r` removes, a file (or `-`) installs.
pub(super) fn crontab(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut list, mut edit, mut remove, mut other) = (false, false, false, false);
    for tok in CRONTAB.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'l', .. } => list = true,
            Tok::Short { flag: 'e', .. } => edit = true,
            Tok::Short { flag: 'r', .. } => remove = true,
            Tok::Short {
                flag: 'u' | 'i' | 'x' | 's',
                ..
            } => {}
            Tok::Short {
                flag: 'c' | 'V' | 'h',
                ..
            } => list = true,
            Tok::Short { flag: 'T', .. } => list = true,
            _ => other = true,
        }
    }
    if edit {
        return Verdict::interactive_writer(InteractiveCategory::Pager, "`-e` opens an editor");
    }
    if remove {
        return Verdict::write(Risk::HighWrite, "`-r` removes the crontab");
    }
    if list && !other {
        return variable_guard(inv).unwrap_or(Verdict::Read);
    }
    Verdict::write(M, "installs a crontab")
}

/// `at`/`batch` schedule a job; `at -l` lists, `at -c N` prints one,
/// `at -r`/`-d` removes.
pub(super) fn at(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args.first().map(|a| a.as_str()) {
        Some("-l" | "-c" | "-V" | "--help" | "--version") if inv.name == "at" => Verdict::Read,
        Some("-r" | "-d") if inv.name == "at" => Verdict::write(M, "removes scheduled jobs"),
        _ => Verdict::write(M, "schedules a command to run later"),
    }
}

/// `sg GROUP CMD` and `newgrp` run a command or a shell as another group.
pub(super) fn newgrp(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.name == "newgrp" {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "starts a shell with another group",
        );
    }
    Verdict::unknown("runs a command with another group")
}
