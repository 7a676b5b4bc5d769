//! `ssh host CMD…`: the remote command is parsed and classified (as bash
//! and as sh: the remote login shell could be either). ssh's own options
//! are an allowlist: the ones that forward ports, run local commands
//! (`ProxyCommand`, `LocalCommand`, `KnownHostsCommand`), load libraries,
//! log to a file (`-E`), write known_hosts (`StrictHostKeyChecking=no`,
//! `UserKnownHostsFile=FILE`) or read a config file (`-F`) are refused.

use super::bad;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const SSH: Options = Options {
    short_flags: "46aCgKknqTtvxGV",
    short_values: "BbcDEeFIiJLlmOopQRSWw",
    ..Options::POSIX
};

/// `-o` options that only tune the connection.
const SAFE_OPTIONS: &[&str] = &[
    "connecttimeout",
    "connectionattempts",
    "batchmode",
    "port",
    "user",
    "identityfile",
    "identitiesonly",
    "certificatefile",
    "loglevel",
    "serveraliveinterval",
    "serveralivecountmax",
    "tcpkeepalive",
    "compression",
    "hostkeyalgorithms",
    "pubkeyacceptedkeytypes",
    "pubkeyacceptedalgorithms",
    "passwordauthentication",
    "pubkeyauthentication",
    "kbdinteractiveauthentication",
    "challengeresponseauthentication",
    "preferredauthentications",
    "gssapiauthentication",
    "addressfamily",
    "checkhostip",
    "numberofpasswordprompts",
    "hashknownhosts",
    "hostkeyalias",
    "hostname",
    "ciphers",
    "macs",
    "kexalgorithms",
    "rekeylimit",
    "requesttty",
    "forwardx11",
    "forwardagent",
    "clearallforwardings",
    "exitonforwardfailure",
    "visualhostkey",
    "fingerprinthash",
    "stricthostkeychecking",
    "userknownhostsfile",
    "globalknownhostsfile",
    "updatehostkeys",
];

/// How `-o KEY=VALUE` options, taken together, affect known_hosts and the
/// terminal.
#[derive(Default)]
struct SshOptions {
    /// A setting that adds host keys (`StrictHostKeyChecking=no`,
    /// `UpdateHostKeys=yes`).
    adds_keys: bool,
    /// known_hosts goes to `/dev/null`.
    null_known_hosts: bool,
    /// A known_hosts file other than `/dev/null`.
    other_known_hosts: bool,
    tty: bool,
}

fn key_value(option: &str) -> (String, &str) {
    let (key, value) = option
        .split_once(['=', ' '])
        .map_or((option, ""), |(k, v)| (k, v.trim()));
    (key.trim().to_ascii_lowercase(), value)
}

pub(super) fn ssh(inv: &Invocation<'_, '_>) -> Verdict {
    let mut options = SshOptions::default();
    let mut host = None;
    for tok in SSH.walk(inv.args) {
        match tok {
            Tok::Operand { index, .. } => {
                host = Some(index);
                break;
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args.get(index).map_or("$…", |a| a.raw)),
            Tok::Long { .. } => {}
            Tok::Short { flag, value, .. } => match flag {
                't' => options.tty = true,
                'G' | 'V' | 'Q' => return Verdict::Read,
                'E' => return Verdict::write(Risk::LowWrite, "`-E` writes a log file"),
                'F' if value != Some("/dev/null") => {
                    return Verdict::unknown(
                        "`-F` reads a config file that can run local commands",
                    );
                }
                'L' | 'R' | 'D' | 'W' | 'w' | 'O' | 'S' | 'I' => {
                    return Verdict::unknown(format!(
                        "`-{flag}` forwards ports, controls a master connection or loads a library"
                    ));
                }
                'o' => {
                    let (key, v) = key_value(value.unwrap_or_default());
                    if !SAFE_OPTIONS.contains(&key.as_str()) {
                        return Verdict::unknown(format!(
                            "`-o {key}` can run local commands, forward or change files"
                        ));
                    }
                    let v = v.to_ascii_lowercase();
                    match key.as_str() {
                        "stricthostkeychecking"
                            if matches!(v.as_str(), "no" | "off" | "accept-new") =>
                        {
                            options.adds_keys = true;
                        }
                        "updatehostkeys" if matches!(v.as_str(), "yes" | "ask") => {
                            options.adds_keys = true
                        }
                        "userknownhostsfile" | "globalknownhostsfile" => {
                            if v == "/dev/null" {
                                options.null_known_hosts = true;
                            } else {
                                options.other_known_hosts = true;
                            }
                        }
                        "requesttty" if matches!(v.as_str(), "yes" | "force") => options.tty = true,
                        "forwardagent" | "forwardx11" if !matches!(v.as_str(), "no" | "off") => {
                            return Verdict::unknown(format!(
                                "`-o {key}` forwards to the remote host"
                            ));
                        }
                        _ => {}
                    }
                }
                _ => {}
            },
        }
    }
    if options.other_known_hosts || (options.adds_keys && !options.null_known_hosts) {
        return Verdict::write(Risk::LowWrite, "adds host keys to a known_hosts file");
    }
    let Some(host) = host else {
        return Verdict::unknown("no host");
    };
    if inv.args.get(host).is_some_and(|a| a.is_variable()) {
        return Verdict::unknown("the host comes from an expansion");
    }
    let command = &inv.args[host + 1..];
    let tty_verdict = options.tty.then(|| InteractiveVerdict {
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
