//! Networking and cloud CLIs: addresses, routes, links, firewalls, probes,
//! packet capture, DNS, HTTP clients, TLS tools, and the cloud and DevOps
//! command lines.
//!
//! The rules prefer allowlists: a subcommand or option that is not known to
//! be read-only makes the command unknown. [`Getopt`] walks arguments the way
//! getopt_long does (clusters, glued values, unambiguous long prefixes), and
//! [`resolve`] resolves iproute2-style abbreviations in the program's order.

#[cfg(test)]
mod cases;
mod cloud;
mod devops;
mod fetch;
mod firewall;
mod http;
mod iproute;
mod links;
mod probe;
mod tls;

use super::Rule;
use super::common::always_read;
use crate::invocation::{Arg, ArgShape, Invocation, is_short_cluster};
use crate::verdict::Verdict;

pub(crate) const RULES: &[(&str, Rule)] = &[
    // iproute2
    ("ip", iproute::ip),
    ("bridge", iproute::bridge),
    ("tc", iproute::tc),
    // links, addresses, wireless, tunnels
    ("ss", links::ss),
    ("netstat", links::netstat),
    ("ifconfig", links::ifconfig),
    ("route", links::route),
    ("arp", links::arp),
    ("iw", links::iw),
    ("iwconfig", links::iwconfig),
    ("ethtool", links::ethtool),
    ("mii-tool", links::mii_tool),
    ("nmcli", links::nmcli),
    ("nmtui", links::nmtui),
    ("brctl", links::brctl),
    ("wg", links::wg),
    ("wg-quick", links::wg_quick),
    ("iftop", links::iftop),
    ("nethogs", links::nethogs),
    ("nload", links::full_screen),
    ("bmon", links::full_screen),
    ("iptraf-ng", links::full_screen),
    ("vnstat", links::vnstat),
    // firewalls and connection tracking
    ("iptables", firewall::iptables),
    ("ip6tables", firewall::iptables),
    ("iptables-legacy", firewall::iptables),
    ("ip6tables-legacy", firewall::iptables),
    ("iptables-nft", firewall::iptables),
    ("ip6tables-nft", firewall::iptables),
    ("arptables", firewall::iptables),
    ("ebtables", firewall::iptables),
    ("iptables-save", firewall::iptables_save),
    ("ip6tables-save", firewall::iptables_save),
    ("iptables-legacy-save", firewall::iptables_save),
    ("ip6tables-legacy-save", firewall::iptables_save),
    ("iptables-nft-save", firewall::iptables_save),
    ("ip6tables-nft-save", firewall::iptables_save),
    ("iptables-restore", firewall::iptables_restore),
    ("ip6tables-restore", firewall::iptables_restore),
    ("iptables-legacy-restore", firewall::iptables_restore),
    ("ip6tables-legacy-restore", firewall::iptables_restore),
    ("iptables-nft-restore", firewall::iptables_restore),
    ("ip6tables-nft-restore", firewall::iptables_restore),
    ("iptables-apply", super::common::high_write),
    ("nft", firewall::nft),
    ("ufw", firewall::ufw),
    ("firewall-cmd", firewall::firewall_cmd),
    ("conntrack", firewall::conntrack),
    ("ipset", firewall::ipset),
    // probes, capture, raw sockets, DNS
    ("ping", probe::ping),
    ("ping6", probe::ping),
    ("arping", probe::arping),
    ("fping", probe::fping),
    ("fping6", probe::fping),
    ("traceroute", always_read),
    ("traceroute6", always_read),
    ("tracepath", always_read),
    ("tracepath6", always_read),
    ("tcptraceroute", always_read),
    ("mtr", probe::mtr),
    ("tcpdump", probe::tcpdump),
    ("tshark", probe::tshark),
    ("dumpcap", probe::dumpcap),
    ("nc", probe::netcat),
    ("ncat", probe::netcat),
    ("netcat", probe::netcat),
    ("socat", probe::socat),
    ("telnet", probe::remote_shell),
    ("ftp", probe::remote_shell),
    ("tftp", probe::remote_shell),
    ("sftp", probe::sftp),
    ("lftp", probe::lftp),
    ("nmap", probe::nmap),
    ("dig", always_read),
    ("host", always_read),
    ("drill", always_read),
    ("delv", always_read),
    ("kdig", always_read),
    ("nslookup", probe::nslookup),
    ("getent", always_read),
    ("whois", always_read),
    // HTTP clients
    ("curl", http::curl),
    ("wget", fetch::wget),
    ("wget2", fetch::wget),
    ("http", fetch::httpie),
    ("https", fetch::httpie),
    ("xh", fetch::httpie),
    ("xhs", fetch::httpie),
    // TLS and SSH keys
    ("openssl", tls::openssl),
    ("ssh-keygen", tls::ssh_keygen),
    ("ssh-keyscan", always_read),
    ("sshpass", tls::sshpass),
    // cloud CLIs
    ("aws", cloud::aws),
    ("az", cloud::az),
    ("gcloud", cloud::gcloud),
    ("doctl", cloud::doctl),
    ("hcloud", cloud::hcloud),
    // DevOps tools
    ("terraform", devops::terraform),
    ("tofu", devops::terraform),
    ("vault", devops::vault),
    ("consul", devops::consul),
    ("nomad", devops::nomad),
    ("packer", devops::packer),
    ("ansible", devops::ansible),
    ("ansible-playbook", devops::ansible_playbook),
    ("ansible-inventory", devops::ansible_inventory),
    ("ansible-doc", always_read),
    ("ansible-config", devops::ansible_config),
    ("ansible-galaxy", devops::ansible_galaxy),
    ("ansible-vault", devops::ansible_vault),
    ("ansible-console", devops::repl_writer),
    ("tailscale", devops::tailscale),
    ("cloudflared", devops::cloudflared),
];

/// How a getopt_long program reads its options.
pub(super) struct Getopt {
    /// Short options that take a value (`-c 5`, `-c5`, or the rest of a cluster).
    pub short_value: &'static str,
    /// Long options (with `--`) that take a value (`--count 5`, `--count=5`).
    pub long_value: &'static [&'static str],
    /// Long options without a value; with `long_value`, for abbreviations.
    pub long_flag: &'static [&'static str],
}

/// One option or operand as a getopt_long parser sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tok<'i> {
    /// One flag of a short cluster; `value` is set for flags that take one.
    Short { flag: char, value: Option<&'i str> },
    /// A long option, resolved to its full name when it is an unambiguous
    /// abbreviation of a known one, otherwise as written (without `=value`).
    Long {
        name: &'i str,
        value: Option<&'i str>,
    },
    /// An operand; everything after `--` is one.
    Pos { index: usize, text: &'i str },
}

impl Getopt {
    pub fn walk<'i, 'a>(&'static self, args: &'i [Arg<'a>]) -> Toks<'i, 'a> {
        Toks {
            args,
            spec: self,
            next: 0,
            cluster: None,
            ended: false,
        }
    }

    /// The full name of a long option, also from an unambiguous prefix.
    fn resolve_long<'i>(&self, head: &'i str) -> &'i str {
        let all = self.long_value.iter().chain(self.long_flag);
        if let Some(exact) = all.clone().find(|n| **n == head) {
            return exact;
        }
        let mut found = None;
        for name in all {
            if name.starts_with(head) {
                if found.is_some() {
                    return head;
                }
                found = Some(*name);
            }
        }
        found.unwrap_or(head)
    }
}

/// Iterator over [`Tok`]s, see [`Getopt::walk`].
pub(super) struct Toks<'i, 'a> {
    args: &'i [Arg<'a>],
    spec: &'static Getopt,
    next: usize,
    cluster: Option<(usize, usize)>,
    ended: bool,
}

impl<'i> Toks<'i, '_> {
    fn take_value(&mut self) -> Option<&'i str> {
        let args = self.args;
        let value = args.get(self.next).map(|a| &*a.text);
        if value.is_some() {
            self.next += 1;
        }
        value
    }
}

impl<'i> Iterator for Toks<'i, '_> {
    type Item = Tok<'i>;

    fn next(&mut self) -> Option<Tok<'i>> {
        let args = self.args;
        loop {
            if let Some((index, offset)) = self.cluster {
                let text: &'i str = args.get(index).map_or("", |a| &*a.text);
                let Some(flag) = text.get(offset..).and_then(|r| r.chars().next()) else {
                    self.cluster = None;
                    continue;
                };
                let after = offset + flag.len_utf8();
                if self.spec.short_value.contains(flag) {
                    self.cluster = None;
                    let glued = text.get(after..).unwrap_or_default();
                    let value = if glued.is_empty() {
                        self.take_value()
                    } else {
                        Some(glued)
                    };
                    return Some(Tok::Short { flag, value });
                }
                self.cluster = (after < text.len()).then_some((index, after));
                return Some(Tok::Short { flag, value: None });
            }
            let index = self.next;
            let text: &'i str = &args.get(index)?.text;
            self.next += 1;
            if self.ended {
                return Some(Tok::Pos { index, text });
            }
            if text == "--" {
                self.ended = true;
                continue;
            }
            if text.starts_with("--") {
                let (head, inline) = match text.split_once('=') {
                    Some((h, v)) => (h, Some(v)),
                    None => (text, None),
                };
                let name = self.spec.resolve_long(head);
                let value = match inline {
                    Some(v) => Some(v),
                    None if self.spec.long_value.contains(&name) => self.take_value(),
                    None => None,
                };
                return Some(Tok::Long { name, value });
            }
            if is_short_cluster(text) {
                self.cluster = Some((index, 1));
                continue;
            }
            return Some(Tok::Pos { index, text });
        }
    }
}

/// The first entry of `table` whose name starts with `word`, the way
/// iproute2, nmcli and ipset match abbreviated keywords: in table order.
pub(super) fn resolve<T: Copy>(word: &str, table: &[(&'static str, T)]) -> Option<T> {
    if word.is_empty() {
        return None;
    }
    table
        .iter()
        .find(|(name, _)| name.starts_with(word))
        .map(|&(_, t)| t)
}

/// Can this word only ever be one operand that is not an option? Literal
/// words can; a glob or a fully double-quoted expansion can when it starts
/// with a literal character other than `-` (`http://$HOST/x` unquoted can
/// split into `-o FILE`; `"http://$HOST/x"` cannot).
pub(super) fn inert(arg: &Arg<'_>) -> bool {
    let starts_plain = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || "/._:@%+,=".contains(c))
    };
    match arg.shape {
        ArgShape::Literal => true,
        ArgShape::Glob => starts_plain(arg.raw) && !arg.raw.contains(['$', '`']),
        ArgShape::Dynamic => {
            let raw = arg.raw;
            raw.len() >= 2
                && raw.starts_with('"')
                && raw.ends_with('"')
                && !raw[1..raw.len() - 1].contains('"')
                && starts_plain(&raw[1..])
        }
    }
}

/// For commands with options that write or run programs: the verdict when
/// some argument could expand into such an option.
pub(super) fn variable_option(inv: &Invocation<'_, '_>) -> Option<Verdict> {
    inv.args
        .iter()
        .any(|a| !inert(a))
        .then(|| Verdict::unknown("an argument could expand into an option that writes"))
}

/// `-`, `/dev/null`, standard output or error: no file is written.
pub(super) fn is_sink(target: Option<&str>) -> bool {
    matches!(
        target,
        Some("-" | "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/fd/1" | "/dev/fd/2")
    )
}

/// Is every character an ASCII lower-case letter, digit or `-`, as cloud CLI
/// command words are? (`EC2` and `DESCRIBE-INSTANCES` are not.)
pub(super) fn is_command_word(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Getopt = Getopt {
        short_value: "cw",
        long_value: &["--count", "--output"],
        long_flag: &["--verbose", "--output-dir"],
    };

    fn args(words: &[&'static str]) -> Vec<Arg<'static>> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn walks_clusters_values_and_abbreviations() {
        let a = args(&[
            "-nc4", "-w", "3", "--verb", "--count", "2", "--out=x", "h", "--", "-z",
        ]);
        let toks: Vec<_> = SPEC.walk(&a).collect();
        assert_eq!(
            toks,
            vec![
                Tok::Short {
                    flag: 'n',
                    value: None
                },
                Tok::Short {
                    flag: 'c',
                    value: Some("4")
                },
                Tok::Short {
                    flag: 'w',
                    value: Some("3")
                },
                Tok::Long {
                    name: "--verbose",
                    value: None
                },
                Tok::Long {
                    name: "--count",
                    value: Some("2")
                },
                // Ambiguous between --output and --output-dir: left as written.
                Tok::Long {
                    name: "--out",
                    value: Some("x")
                },
                Tok::Pos {
                    index: 7,
                    text: "h"
                },
                Tok::Pos {
                    index: 9,
                    text: "-z"
                },
            ]
        );
    }

    #[test]
    fn resolves_keywords_in_order() {
        let table = [("set", 1), ("show", 2), ("save", 3)];
        assert_eq!(resolve("s", &table), Some(1));
        assert_eq!(resolve("sh", &table), Some(2));
        assert_eq!(resolve("sa", &table), Some(3));
        assert_eq!(resolve("x", &table), None);
        assert_eq!(resolve("", &table), None);
    }

    #[test]
    fn inert_variables() {
        let quoted = Arg {
            text: "http://$HOST/x".into(),
            raw: "\"http://$HOST/x\"",
            shape: ArgShape::Dynamic,
        };
        let bare = Arg {
            text: "http://$HOST/x".into(),
            raw: "http://$HOST/x",
            shape: ArgShape::Dynamic,
        };
        let whole = Arg {
            text: "$URL".into(),
            raw: "\"$URL\"",
            shape: ArgShape::Dynamic,
        };
        let glob = Arg {
            text: "*".into(),
            raw: "*",
            shape: ArgShape::Glob,
        };
        assert!(inert(&quoted));
        assert!(!inert(&bare));
        assert!(!inert(&whole));
        assert!(!inert(&glob));
    }
}
