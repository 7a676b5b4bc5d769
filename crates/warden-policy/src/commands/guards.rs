//! Guards: commands that are writes by themselves (`sudo`, `su`, `eval`,
//! `exec`, `source`, `nohup`, …). The inner command is still classified, for
//! catastrophic and interactive findings.

use super::Rule;
use super::shells::{escalates, first_operand, opaque};
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("sudo", sudo),
    ("doas", doas),
    ("pkexec", pkexec),
    ("su", su),
    ("runuser", runuser),
    ("nohup", nohup),
    ("setsid", setsid),
    ("chroot", chroot),
    ("unshare", unshare),
    ("eval", eval),
    ("exec", exec),
    ("source", source),
    (".", source),
    ("trap", trap),
];

fn guarded(via: &'static str, start: Option<usize>, reason: Reason) -> Verdict {
    let inner = match start {
        Some(start) => Inner::Argv { start },
        None => Inner::Shell,
    };
    Verdict::Guarded(
        Wrap {
            inner,
            bound: Bound::None,
            interactive: None,
            via,
        },
        reason,
    )
}

fn sudo(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('e') || inv.has_long("--edit") {
        return Verdict::interactive_writer(InteractiveCategory::Pager, "`-e` opens an editor");
    }
    let spec = OptSpec {
        short_with_value: "ugCDhprtTU",
        long_with_value: &[
            "--user",
            "--group",
            "--close-from",
            "--chdir",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
        ],
    };
    guarded("sudo", first_operand(inv, spec), escalates())
}

fn doas(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "Cu",
        long_with_value: &[],
    };
    guarded("doas", first_operand(inv, spec), escalates())
}

fn pkexec(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "",
        long_with_value: &["--user"],
    };
    guarded("pkexec", first_operand(inv, spec), escalates())
}

fn su(inv: &Invocation<'_, '_>) -> Verdict {
    let script = inv.option_value(Some('c'), Some("--command"));
    let wrap = match script {
        Some(text) => Wrap {
            inner: Inner::Script(text.to_string()),
            bound: Bound::None,
            interactive: None,
            via: "su -c",
        },
        None => Wrap {
            inner: Inner::Shell,
            bound: Bound::None,
            interactive: None,
            via: "su",
        },
    };
    Verdict::Guarded(wrap, escalates())
}

/// `runuser -u USER [--] CMD…` runs a command; `runuser [-l] USER -c CMD`
/// runs a script, as `su` does.
fn runuser(inv: &Invocation<'_, '_>) -> Verdict {
    let by_user = inv.option_value(Some('u'), Some("--user")).is_some();
    if !by_user {
        return su(inv);
    }
    let spec = OptSpec {
        short_with_value: "ugGcsw",
        long_with_value: &[
            "--user",
            "--group",
            "--supp-group",
            "--command",
            "--session-command",
            "--shell",
            "--whitelist-environment",
        ],
    };
    guarded("runuser", first_operand(inv, spec), escalates())
}

fn nohup(inv: &Invocation<'_, '_>) -> Verdict {
    guarded(
        "nohup",
        (!inv.args.is_empty()).then_some(0),
        "keeps the command running after the session ends".into(),
    )
}

fn setsid(inv: &Invocation<'_, '_>) -> Verdict {
    guarded(
        "setsid",
        first_operand(inv, OptSpec::NONE),
        "detaches the command from the session".into(),
    )
}

fn chroot(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "",
        long_with_value: &["--userspec", "--groups"],
    };
    let start = inv.positionals(spec).nth(1).map(|(i, _)| i);
    guarded(
        "chroot",
        start,
        "runs the command under another root".into(),
    )
}

fn unshare(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "S",
        long_with_value: &["--setuid", "--setgid", "--root", "--wd", "--propagation"],
    };
    guarded(
        "unshare",
        first_operand(inv, spec),
        "runs the command in new namespaces".into(),
    )
}

fn joined_script(inv: &Invocation<'_, '_>, via: &'static str, reason: &'static str) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    let words: Vec<&str> = inv.args.iter().map(|a| a.as_str()).collect();
    Verdict::Guarded(
        Wrap {
            inner: Inner::Script(words.join(" ")),
            bound: Bound::None,
            interactive: None,
            via,
        },
        reason.into(),
    )
}

fn eval(inv: &Invocation<'_, '_>) -> Verdict {
    joined_script(inv, "eval", "evaluates text as a command")
}

fn exec(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::unknown("changes the shell's file descriptors");
    }
    let spec = OptSpec {
        short_with_value: "a",
        long_with_value: &[],
    };
    guarded(
        "exec",
        first_operand(inv, spec),
        "replaces the shell".into(),
    )
}

fn source(inv: &Invocation<'_, '_>) -> Verdict {
    Verdict::Wrap(opaque(
        "source",
        format!("runs the script file `{}`", inv.arg(0).unwrap_or("")),
    ))
}

fn trap(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args.len() {
        0 => Verdict::Read,
        _ if inv.has_short('p') || inv.has_short('l') => Verdict::Read,
        _ => joined_script(inv, "trap", "installs a command to run later"),
    }
}
