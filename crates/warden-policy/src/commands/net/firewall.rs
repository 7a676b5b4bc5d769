//! Firewalls and connection tracking: iptables and its variants, nft, ufw,
//! firewall-cmd, conntrack, ipset.

use super::resolve;
use crate::invocation::{Invocation, OptSpec, is_short_cluster};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// iptables short options that take a value (mandatory or optional): in a
/// cluster, the rest of the word is that value (`-tnat`, `-LINPUT`).
const IPT_VALUE: &str = "ACDRILSFZNXEPMopsdjitmcgwWb";
/// Commands that change the rules, with their long names.
const IPT_WRITES: &[(char, &str)] = &[
    ('A', "--append"),
    ('D', "--delete"),
    ('I', "--insert"),
    ('R', "--replace"),
    ('F', "--flush"),
    ('Z', "--zero"),
    ('N', "--new-chain"),
    ('X', "--delete-chain"),
    ('P', "--policy"),
    ('E', "--rename-chain"),
];
const IPT_READS: &[(char, &str)] = &[
    ('L', "--list"),
    ('S', "--list-rules"),
    ('C', "--check"),
    ('h', "--help"),
    ('V', "--version"),
];

pub(super) fn iptables(inv: &Invocation<'_, '_>) -> Verdict {
    let mut write: Option<(char, &str)> = None;
    let mut read = false;
    for arg in inv.option_args() {
        let text = arg.as_str();
        if let Some(long) = text.strip_prefix("--") {
            let head = text.split_once('=').map_or(text, |(h, _)| h);
            if head.starts_with("--modprobe") || long.starts_with("atomic") {
                return Verdict::unknown(format!("`{head}` runs a program or uses a rules file"));
            }
            if long.starts_with("init-table") {
                write = Some(('F', "--init-table"));
            }
            // getopt_long takes unambiguous prefixes: `--fl` is `--flush`.
            if head.len() >= 3 {
                if let Some(&w) = IPT_WRITES.iter().find(|(_, l)| l.starts_with(head)) {
                    write = Some(w);
                }
                read |= IPT_READS.iter().any(|(_, l)| l.starts_with(head));
            }
            continue;
        }
        if !is_short_cluster(text) {
            continue;
        }
        for c in text[1..].chars() {
            if let Some(&w) = IPT_WRITES.iter().find(|(s, _)| *s == c) {
                write = Some(w);
            }
            read |= IPT_READS.iter().any(|(s, _)| *s == c);
            if c == 'M' {
                return Verdict::unknown("`-M` runs a program");
            }
            if IPT_VALUE.contains(c) {
                break;
            }
        }
    }
    match write {
        Some(('Z', _)) => Verdict::write(Risk::MediumWrite, "`-Z` zeroes the rule counters"),
        Some(('N', long)) => Verdict::write(Risk::LowWrite, format!("`{long}` creates a chain")),
        Some((_, long)) => {
            Verdict::write(Risk::HighWrite, format!("`{long}` changes firewall rules"))
        }
        None if read => Verdict::Read,
        None => Verdict::unknown("no listing command (`-L`, `-S`, `-C`)"),
    }
}

pub(super) fn iptables_save(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('M') || inv.has_long_abbrev("--modprobe") {
        return Verdict::unknown("`-M` runs a program");
    }
    if inv.has_short('f') || inv.has_long_abbrev("--file") {
        return Verdict::write(Risk::LowWrite, "`-f` writes the rules to a file");
    }
    Verdict::Read
}

pub(super) fn iptables_restore(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('M') || inv.has_long_abbrev("--modprobe") {
        return Verdict::unknown("`-M` runs a program");
    }
    if inv.has_short('t') || inv.has_long_abbrev("--test") {
        return Verdict::Read;
    }
    if inv.has_word(&["-h", "--help", "-V", "--version"]) {
        return Verdict::Read;
    }
    Verdict::write(Risk::HighWrite, "replaces firewall rules")
}

pub(super) fn nft(inv: &Invocation<'_, '_>) -> Verdict {
    let mut check = false;
    let mut file = false;
    let mut text = String::new();
    let mut args = inv.args.iter();
    let mut ended = false;
    while let Some(arg) = args.next() {
        let a = arg.as_str();
        if !ended && a == "--" {
            ended = true;
            continue;
        }
        if ended || !a.starts_with('-') || a == "-" {
            text.push_str(a);
            text.push(' ');
            continue;
        }
        let head = a.split_once('=').map_or(a, |(h, _)| h);
        let long = |name: &str| head.len() >= 4 && name.starts_with(head);
        if is_short_cluster(a) {
            for c in a[1..].chars() {
                match c {
                    'i' => return repl(),
                    'c' => check = true,
                    'f' => file = true,
                    'v' | 'V' | 'h' => return Verdict::Read,
                    _ => {}
                }
                if "fdID".contains(c) {
                    // The value is the rest of the word or the next word.
                    if a.ends_with(c) {
                        args.next();
                    }
                    break;
                }
            }
        } else if long("--interactive") {
            return repl();
        } else if long("--check") {
            check = true;
        } else if long("--file") {
            file = true;
            if !a.contains('=') {
                args.next();
            }
        } else if long("--version") || long("--help") {
            return Verdict::Read;
        } else if (long("--debug") || long("--includepath") || long("--define")) && !a.contains('=')
        {
            args.next();
        }
    }
    if check {
        return Verdict::Read;
    }
    if file {
        return Verdict::write(Risk::HighWrite, "`-f` applies rules from a file");
    }
    let mut verdict = Verdict::Read;
    for command in text.split([';', '\n']) {
        match command.split_whitespace().next() {
            None | Some("list" | "describe" | "get") => {}
            Some("monitor") => {
                verdict = Verdict::interactive(
                    InteractiveCategory::UnboundedStream,
                    "`monitor` prints events until interrupted",
                );
            }
            Some(word) => {
                return Verdict::write(Risk::HighWrite, format!("`{word}` changes the ruleset"));
            }
        }
    }
    verdict
}

fn repl() -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "`-i` reads commands interactively",
    )
}

pub(super) fn ufw(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long("--dry-run") {
        return Verdict::unknown("`--dry-run` output is not needed to read the state");
    }
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        [] => {
            if inv.has_word(&["--version", "--help", "-h"]) || inv.is_empty() {
                Verdict::Read
            } else {
                Verdict::unknown("unknown options")
            }
        }
        ["status" | "version" | "help", ..] | ["show", ..] | ["app", "list" | "info", ..] => {
            Verdict::Read
        }
        [
            sub @ ("enable" | "disable" | "reload" | "default" | "logging" | "reset" | "allow"
            | "deny" | "reject" | "limit" | "delete" | "insert" | "prepend" | "route"
            | "app"),
            ..,
        ] => Verdict::write(Risk::HighWrite, format!("`{sub}` changes the firewall")),
        [sub, ..] => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

pub(super) fn firewall_cmd(inv: &Invocation<'_, '_>) -> Verdict {
    const QUERY_PREFIXES: &[&str] = &["--list-", "--get-", "--query-", "--info-"];
    const NEUTRAL: &[&str] = &[
        "--state",
        "--version",
        "-V",
        "--help",
        "-h",
        "-q",
        "--quiet",
        "--check-config",
        "--permanent",
        "--zone",
        "--policy",
        "--service",
        "--ipset",
        "--helper",
        "--icmptype",
        "--direct",
    ];
    const WRITE_PREFIXES: &[&str] = &[
        "--add-",
        "--remove-",
        "--set-",
        "--new-",
        "--delete-",
        "--load-",
        "--change-",
        "--reset-",
        "--reload",
        "--complete-reload",
        "--runtime-to-permanent",
        "--panic-",
        "--lockdown-",
        "--passthrough",
    ];
    for arg in inv.args {
        let text = arg.as_str();
        if !text.starts_with('-') {
            continue;
        }
        let head = text.split_once('=').map_or(text, |(h, _)| h);
        if QUERY_PREFIXES.iter().any(|p| head.starts_with(p)) || NEUTRAL.contains(&head) {
            continue;
        }
        if WRITE_PREFIXES.iter().any(|p| head.starts_with(p)) {
            return Verdict::write(Risk::HighWrite, format!("`{head}` changes the firewall"));
        }
        return Verdict::unknown(format!("unknown option `{head}`"));
    }
    Verdict::Read
}

pub(super) fn conntrack(inv: &Invocation<'_, '_>) -> Verdict {
    const WRITES: &[(char, &str)] = &[
        ('D', "--delete"),
        ('I', "--create"),
        ('U', "--update"),
        ('F', "--flush"),
        ('R', "--load-file"),
        ('A', "--add"),
        ('z', "--zero"),
    ];
    for &(short, long) in WRITES {
        if inv.has_short(short) || inv.has_long_abbrev(long) {
            return Verdict::write(
                Risk::MediumWrite,
                format!("`{long}` changes the connection table"),
            );
        }
    }
    if inv.has_short('E') || inv.has_long_abbrev("--event") {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`-E` prints events until interrupted",
        );
    }
    let reads: &[(char, &str)] = &[
        ('L', "--dump"),
        ('G', "--get"),
        ('C', "--count"),
        ('S', "--stats"),
        ('h', "--help"),
        ('V', "--version"),
    ];
    if reads
        .iter()
        .any(|&(s, l)| inv.has_short(s) || inv.has_long_abbrev(l))
    {
        return Verdict::Read;
    }
    Verdict::unknown("no listing command (`-L`, `-G`, `-C`, `-S`)")
}

/// What an ipset command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Set {
    Read,
    Write(Risk),
}

/// ipset commands in the order ipset matches their prefixes.
const IPSET_COMMANDS: &[(&str, Set)] = &[
    ("create", Set::Write(Risk::MediumWrite)),
    ("add", Set::Write(Risk::MediumWrite)),
    ("del", Set::Write(Risk::MediumWrite)),
    ("test", Set::Read),
    ("destroy", Set::Write(Risk::HighWrite)),
    ("list", Set::Read),
    ("save", Set::Read),
    ("restore", Set::Write(Risk::HighWrite)),
    ("flush", Set::Write(Risk::HighWrite)),
    ("rename", Set::Write(Risk::MediumWrite)),
    ("swap", Set::Write(Risk::MediumWrite)),
    ("help", Set::Read),
    ("version", Set::Read),
];

const IPSET_ALIASES: &[(&str, &str)] = &[
    ("-N", "create"),
    ("n", "create"),
    ("-A", "add"),
    ("-D", "del"),
    ("-T", "test"),
    ("-X", "destroy"),
    ("x", "destroy"),
    ("-L", "list"),
    ("-S", "save"),
    ("-R", "restore"),
    ("-F", "flush"),
    ("-E", "rename"),
    ("e", "rename"),
    ("-W", "swap"),
    ("w", "swap"),
    ("-H", "help"),
    ("-V", "version"),
    ("-v", "version"),
];

pub(super) fn ipset(inv: &Invocation<'_, '_>) -> Verdict {
    let mut to_file = false;
    let mut command = None;
    let mut i = 0;
    while let Some(text) = inv.arg(i) {
        i += 1;
        if let Some(&(_, name)) = IPSET_ALIASES.iter().find(|(a, _)| *a == text) {
            command.get_or_insert(name);
            continue;
        }
        if text == "-" {
            return Verdict::unknown("`-` reads commands from standard input");
        }
        if let Some(opt) = text.strip_prefix('-') {
            let opt = opt.strip_prefix('-').unwrap_or(opt);
            match opt {
                "o" | "output" => i += 1,
                "f" | "file" => {
                    to_file = true;
                    i += 1;
                }
                "exist" | "!" | "q" | "quiet" | "r" | "resolve" | "s" | "sorted" | "n" | "name"
                | "t" | "terse" | "h" | "help" => {}
                _ => return Verdict::unknown(format!("unknown option `{text}`")),
            }
            continue;
        }
        if command.is_none() {
            command = Some(text);
        }
    }
    let Some(word) = command else {
        return Verdict::Read;
    };
    match resolve(word, IPSET_COMMANDS) {
        Some(Set::Read) if to_file => {
            Verdict::write(Risk::LowWrite, "`-file` writes the output into a file")
        }
        Some(Set::Read) => Verdict::Read,
        Some(Set::Write(risk)) => Verdict::write(risk, format!("`{word}` changes IP sets")),
        None => Verdict::unknown(format!("unknown command `{word}`")),
    }
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_interactive, is_read, is_write};

    #[test]
    fn iptables() {
        for line in [
            "iptables -L",
            "iptables -L -n -v",
            "iptables -nvL",
            "iptables -vnL INPUT",
            "iptables -L INPUT -n --line-numbers",
            "iptables -t nat -L -n",
            "iptables -tnat -nL",
            "iptables -S",
            "iptables -S INPUT",
            "iptables --list-rules",
            "iptables --list -n",
            "iptables -L -x -v -n -w 5",
            "iptables -C INPUT -p tcp --dport 22 -j ACCEPT",
            "iptables --check INPUT -s 10.0.0.1 -j DROP",
            "ip6tables -L -n",
            "iptables-legacy -L",
            "iptables-nft -S",
            "ebtables -L --Lc",
            "iptables-save",
            "iptables-save -t filter",
            "iptables-save -c",
            "iptables-restore --test rules.v4",
            "iptables-restore -t",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "iptables -A INPUT -p tcp --dport 22 -j ACCEPT",
            "iptables -I INPUT 1 -j DROP",
            "iptables -D INPUT 3",
            "iptables -F",
            "iptables -t nat -F",
            "iptables -X",
            "iptables -P INPUT DROP",
            "iptables -N mychain",
            "iptables -E old new",
            "iptables -R INPUT 1 -j ACCEPT",
            "iptables -Z",
            "iptables -L -Z",
            "iptables -nvL -Z",
            "iptables -L -F",
            "iptables --flush",
            "iptables --fl",
            "iptables --append INPUT -j ACCEPT",
            "iptables --policy FORWARD DROP",
            "iptables -L --modprobe=/tmp/x",
            "iptables -n",
            "iptables",
            "ip6tables -A INPUT -j DROP",
            "iptables-save -f /etc/iptables/rules.v4",
            "iptables-save --file=/tmp/r",
            "iptables-restore rules.v4",
            "iptables-restore",
            "ebtables --atomic-file f -L",
        ] {
            assert!(is_write(line), "{line}");
        }
    }

    #[test]
    fn nft() {
        for line in [
            "nft list ruleset",
            "nft -a list ruleset",
            "nft -j list ruleset",
            "nft --handle list chain inet filter input",
            "nft list tables",
            "nft -nn list table inet filter",
            "nft -c -f /etc/nftables.conf",
            "nft --check --file /etc/nftables.conf",
            "nft describe tcp dport",
            "nft -v",
            "nft get element inet t s { 10.0.0.1 }",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "nft flush ruleset",
            "nft add rule inet filter input tcp dport 22 accept",
            "nft delete table inet filter",
            "nft -f /etc/nftables.conf",
            "nft -f-",
            "nft list ruleset ; flush ruleset",
            "nft list ruleset;flush ruleset",
            "nft reset counters",
            "nft insert rule inet filter input drop",
        ] {
            assert!(is_write(line), "{line}");
        }
        assert!(is_interactive("nft monitor"));
        assert!(is_interactive("nft -i"));
    }

    #[test]
    fn ufw_firewalld_conntrack_ipset() {
        for line in [
            "ufw status",
            "ufw status verbose",
            "ufw status numbered",
            "ufw show added",
            "ufw app list",
            "ufw app info OpenSSH",
            "ufw version",
            "ufw --version",
            "firewall-cmd --state",
            "firewall-cmd --list-all",
            "firewall-cmd --list-all-zones",
            "firewall-cmd --zone=public --list-services",
            "firewall-cmd --permanent --list-ports",
            "firewall-cmd --get-active-zones",
            "firewall-cmd --get-default-zone",
            "firewall-cmd --query-service=ssh",
            "firewall-cmd --info-zone=public",
            "firewall-cmd --direct --get-all-rules",
            "conntrack -L",
            "conntrack -L -p tcp --dport 443",
            "conntrack -L -o extended",
            "conntrack -S",
            "conntrack -C",
            "conntrack --count",
            "conntrack -G -p tcp -s 10.0.0.1 -d 10.0.0.2 --sport 1 --dport 2",
            "ipset list",
            "ipset -L",
            "ipset list -t",
            "ipset -t list myset",
            "ipset save",
            "ipset test myset 10.0.0.1",
            "ipset l",
            "ipset -o xml list",
            "ipset version",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "ufw enable",
            "ufw disable",
            "ufw allow 22/tcp",
            "ufw deny from 10.0.0.1",
            "ufw delete allow 80",
            "ufw reset",
            "ufw --force enable",
            "ufw --dry-run allow 22",
            "ufw reload",
            "ufw default deny incoming",
            "ufw app update OpenSSH",
            "firewall-cmd --reload",
            "firewall-cmd --add-service=http",
            "firewall-cmd --permanent --add-port=80/tcp",
            "firewall-cmd --zone=public --remove-service=ssh",
            "firewall-cmd --set-default-zone=home",
            "firewall-cmd --runtime-to-permanent",
            "firewall-cmd --panic-on",
            "firewall-cmd --frobnicate",
            "conntrack -D -s 10.0.0.1",
            "conntrack -F",
            "conntrack --flush",
            "conntrack -L -z",
            "conntrack -I -p tcp",
            "conntrack",
            "ipset create myset hash:ip",
            "ipset add myset 10.0.0.1",
            "ipset del myset 10.0.0.1",
            "ipset destroy myset",
            "ipset flush",
            "ipset restore",
            "ipset -A myset 10.0.0.1",
            "ipset -X",
            "ipset swap a b",
            "ipset save -f /tmp/sets",
            "ipset list -file /tmp/x",
            "ipset -",
        ] {
            assert!(is_write(line), "{line}");
        }
        assert!(is_interactive("conntrack -E"));
        assert!(is_interactive("conntrack --event -p tcp"));
    }
}
