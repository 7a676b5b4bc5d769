//! Wrappers that run another command, looked through to classify it:
//! `timeout`, `nice`, `env`, `xargs`, `watch`, `ssh host …`, `nsenter`, ….

use super::Rule;
use super::shells::first_operand;
use crate::env_vars;
use crate::invocation::{Invocation, OptSpec, is_short_cluster};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("timeout", timeout),
    ("nice", nice),
    ("ionice", ionice),
    ("env", env),
    ("xargs", xargs),
    ("stdbuf", stdbuf),
    ("time", time),
    ("command", command),
    ("builtin", builtin),
    ("watch", watch),
    ("ssh", ssh),
    ("nsenter", nsenter),
];

fn timeout(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "sk",
        long_with_value: &["--signal", "--kill-after"],
    };
    let mut positionals = inv.positionals(spec);
    let Some((_, duration)) = positionals.next() else {
        return Verdict::unknown("no duration");
    };
    let Some((start, _)) = positionals.next() else {
        return Verdict::unknown("no command");
    };
    let bounded = inv
        .args
        .iter()
        .any(|a| a.text == duration && a.is_literal())
        && duration_is_positive(duration);
    Verdict::Wrap(Wrap {
        inner: Inner::Argv { start },
        bound: if bounded {
            Bound::TimeLimited
        } else {
            Bound::None
        },
        interactive: None,
        via: "timeout",
    })
}

fn duration_is_positive(text: &str) -> bool {
    let number = text.trim_end_matches(['s', 'm', 'h', 'd']);
    !number.is_empty()
        && number
            .parse::<f64>()
            .is_ok_and(|n| n > 0.0 && n.is_finite())
}

fn nice(inv: &Invocation<'_, '_>) -> Verdict {
    let mut index = 0;
    while let Some(arg) = inv.args.get(index) {
        let text = arg.as_str();
        if text == "-n" || text == "--adjustment" {
            index += 2;
        } else if text.starts_with("-n")
            || text.starts_with("--adjustment=")
            || text.starts_with('-') && text[1..].parse::<i32>().is_ok()
            || text.starts_with("--") && text != "--"
        {
            index += 1;
        } else if text == "--" {
            index += 1;
            break;
        } else {
            break;
        }
    }
    if index >= inv.args.len() {
        return Verdict::Read;
    }
    Verdict::wrap_argv("nice", index)
}

fn ionice(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('p')
        || inv.has_short('P')
        || inv.has_short('u')
        || inv.has_long("--pid")
        || inv.has_long("--pgid")
        || inv.has_long("--uid")
    {
        let sets = inv.has_short('c')
            || inv.has_short('n')
            || inv.has_long("--class")
            || inv.has_long("--classdata");
        return if sets {
            Verdict::write(
                Risk::LowWrite,
                "changes the I/O priority of running processes",
            )
        } else {
            Verdict::Read
        };
    }
    let spec = OptSpec {
        short_with_value: "cn",
        long_with_value: &["--class", "--classdata"],
    };
    match first_operand(inv, spec) {
        Some(start) => Verdict::wrap_argv("ionice", start),
        None => Verdict::Read,
    }
}

fn env(inv: &Invocation<'_, '_>) -> Verdict {
    let mut index = 0;
    while let Some(arg) = inv.args.get(index) {
        let text = arg.as_str();
        match text {
            "-i" | "--ignore-environment" | "-0" | "--null" | "-" | "-v" | "--debug" => index += 1,
            "-u" | "--unset" | "-C" | "--chdir" => index += 2,
            "--" => {
                index += 1;
                break;
            }
            _ if text.starts_with("--unset=")
                || text.starts_with("--chdir=")
                || text.starts_with("-u") && text.len() > 2 =>
            {
                index += 1
            }
            "-S" | "--split-string" => {
                return Verdict::unknown("`-S` splits a string into a command");
            }
            _ if text.starts_with("-S") || text.starts_with("--split-string") => {
                return Verdict::unknown("`-S` splits a string into a command");
            }
            _ if text.starts_with('-') => {
                return Verdict::unknown(format!("unknown option `{text}`"));
            }
            _ => break,
        }
    }
    while let Some(arg) = inv.args.get(index) {
        let Some((name, _)) = arg.as_str().split_once('=') else {
            break;
        };
        if env_vars::is_dangerous(name) {
            return Verdict::Guarded(
                Wrap {
                    inner: Inner::Argv { start: index + 1 },
                    bound: Bound::None,
                    interactive: None,
                    via: "env",
                },
                format!("setting `{name}` changes what programs run").into(),
            );
        }
        index += 1;
    }
    if index >= inv.args.len() {
        return Verdict::Read;
    }
    Verdict::wrap_argv("env", index)
}

fn xargs(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('p')
        || inv.has_long_abbrev("--interactive")
        || inv.has_short('o')
        || inv.has_long_abbrev("--open-tty")
    {
        return Verdict::interactive(
            InteractiveCategory::TtyFlag,
            "asks on the terminal before each run",
        );
    }
    let spec = OptSpec {
        short_with_value: "adEILnPs",
        long_with_value: &[
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--max-lines",
            "--process-slot-var",
            "--replace",
            "--eof",
        ],
    };
    // -i, -e and -l take optional glued values only, so they are not listed.
    let marker = inv
        .option_value(Some('I'), Some("--replace"))
        .map(str::to_string)
        .or_else(|| {
            inv.option_args()
                .find_map(|a| a.as_str().strip_prefix("-i"))
                .map(|m| {
                    if m.is_empty() {
                        "{}".to_string()
                    } else {
                        m.to_string()
                    }
                })
        })
        .or_else(|| inv.has_long("--replace").then(|| "{}".to_string()));
    match inv.first_positional(spec) {
        Some((start, _)) if marker.is_some() => Verdict::Wrap(Wrap {
            inner: Inner::ArgvReplacing {
                start,
                marker: marker.unwrap_or_default(),
            },
            bound: Bound::None,
            interactive: None,
            via: "xargs",
        }),
        Some((start, _)) => Verdict::Wrap(Wrap {
            inner: Inner::ArgvAppendingDynamic { start },
            bound: Bound::None,
            interactive: None,
            via: "xargs",
        }),
        // With no command xargs runs `echo`.
        None => Verdict::Read,
    }
}

fn stdbuf(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "ioe",
        long_with_value: &["--input", "--output", "--error"],
    };
    match first_operand(inv, spec) {
        Some(start) => Verdict::wrap_argv("stdbuf", start),
        None => Verdict::unknown("no command"),
    }
}

fn time(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('o') || inv.has_long_abbrev("--output") {
        return Verdict::write(Risk::LowWrite, "`-o` writes its report to a file");
    }
    let spec = OptSpec {
        short_with_value: "fo",
        long_with_value: &["--format", "--output"],
    };
    match first_operand(inv, spec) {
        Some(start) => Verdict::wrap_argv("time", start),
        None => Verdict::Read,
    }
}

fn command(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('v') || inv.has_short('V') {
        return Verdict::Read;
    }
    match first_operand(inv, OptSpec::NONE) {
        Some(start) => Verdict::wrap_argv("command", start),
        None => Verdict::Read,
    }
}

fn builtin(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.args.is_empty() {
        true => Verdict::Read,
        false => Verdict::wrap_argv("builtin", 0),
    }
}

fn watch(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "nq",
        long_with_value: &["--interval", "--equexit"],
    };
    let unbounded = InteractiveVerdict {
        ends_with_reader: false,
        category: InteractiveCategory::UnboundedStream,
        intent: Intent::ReadOnlyCertain,
        rewrite: None,
        reason: "re-runs the command forever".into(),
    };
    let Some(start) = first_operand(inv, spec) else {
        return Verdict::Interactive(unbounded);
    };
    let inner = if inv.has_short('x') || inv.has_long("--exec") {
        Inner::Argv { start }
    } else {
        let words: Vec<&str> = inv.args[start..].iter().map(|a| a.raw).collect();
        Inner::Script(words.join(" "))
    };
    Verdict::Wrap(Wrap {
        inner,
        bound: Bound::None,
        interactive: Some(unbounded),
        via: "watch",
    })
}

fn ssh(inv: &Invocation<'_, '_>) -> Verdict {
    const VALUE_OPTS: &str = "BbcDEeFIiJLlmOopQRSWw";
    let mut index = 0;
    let mut tty = false;
    while let Some(arg) = inv.args.get(index) {
        let text = arg.as_str();
        if text == "--" {
            index += 1;
            break;
        }
        if !is_short_cluster(text) {
            break;
        }
        index += 1;
        for (pos, c) in text[1..].char_indices() {
            match c {
                't' => tty = true,
                'N' | 'f' | 'L' | 'R' | 'D' | 'W' | 'M' | 'O' | 'w' => {
                    return Verdict::unknown(format!(
                        "`-{c}` forwards ports, backgrounds or controls a master connection"
                    ));
                }
                'o' => {
                    let value = if pos + 2 < text.len() {
                        Some(&text[pos + 2..])
                    } else {
                        let v = inv.arg(index);
                        index += 1;
                        v
                    };
                    if !value.is_some_and(ssh_option_is_safe) {
                        return Verdict::unknown(
                            "`-o` sets an option that can run local commands or forward",
                        );
                    }
                    break;
                }
                _ if VALUE_OPTS.contains(c) => {
                    if pos + c.len_utf8() == text.len() - 1 {
                        index += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    let Some(host) = inv.args.get(index) else {
        return Verdict::unknown("no host");
    };
    if host.is_variable() {
        return Verdict::unknown("the host comes from an expansion");
    }
    let command = &inv.args[index + 1..];
    let tty_verdict = tty.then(|| InteractiveVerdict {
        ends_with_reader: false,
        category: InteractiveCategory::TtyFlag,
        intent: Intent::ReadOnlyCertain,
        rewrite: None,
        reason: "`-t` asks for a terminal".into(),
    });
    if command.is_empty() {
        return Verdict::Wrap(Wrap {
            inner: Inner::Shell,
            bound: Bound::None,
            interactive: tty_verdict,
            via: "ssh",
        });
    }
    // The remote shell parses the arguments joined by spaces.
    let words: Vec<&str> = command.iter().map(|a| a.as_str()).collect();
    Verdict::Wrap(Wrap {
        inner: Inner::Script(words.join(" ")),
        bound: Bound::None,
        interactive: tty_verdict,
        via: "ssh",
    })
}

fn ssh_option_is_safe(option: &str) -> bool {
    let key = option
        .split(['=', ' '])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    matches!(
        key.as_str(),
        "connecttimeout"
            | "batchmode"
            | "stricthostkeychecking"
            | "userknownhostsfile"
            | "port"
            | "user"
            | "identityfile"
            | "identitiesonly"
            | "loglevel"
            | "serveraliveinterval"
            | "serveralivecountmax"
            | "connectionattempts"
            | "compression"
            | "hostkeyalgorithms"
            | "pubkeyacceptedkeytypes"
            | "pubkeyacceptedalgorithms"
            | "passwordauthentication"
            | "preferredauthentications"
            | "addressfamily"
            | "checkhostip"
            | "numberofpasswordprompts"
            | "kbdinteractiveauthentication"
            | "hashknownhosts"
            | "globalknownhostsfile"
            | "updatehostkeys"
    )
}

fn nsenter(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "tSGw",
        long_with_value: &["--target", "--setuid", "--setgid", "--wdns"],
    };
    match first_operand(inv, spec) {
        Some(start) => Verdict::wrap_argv("nsenter", start),
        None => Verdict::Wrap(Wrap {
            inner: Inner::Shell,
            bound: Bound::None,
            interactive: None,
            via: "nsenter",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for d in ["5", "5s", "2.5", "1m", "1h"] {
            assert!(duration_is_positive(d), "{d}");
        }
        for d in ["0", "0s", "", "x", "-1"] {
            assert!(!duration_is_positive(d), "{d}");
        }
    }
}
