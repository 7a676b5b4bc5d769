//! Baseline, more: system services (D-Bus, time, sysctl), packages, network
//! services and tunnels, and cloud CLIs, as allowlists of read-only
//! subcommands.

use super::super::Rule;
use super::super::common::always_read;
use super::storage::{mode_flags, sub_in};
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("busctl", busctl),
    ("coredumpctl", coredumpctl),
    ("networkctl", networkctl),
    ("chronyc", chronyc),
    ("ntpq", always_read),
    ("sysctl", sysctl),
    ("getconf", always_read),
    ("ulimit", ulimit),
    ("pstree", always_read),
    ("pmap", always_read),
    ("pwdx", always_read),
    ("lsipc", always_read),
    ("needrestart", needrestart),
    ("apt-mark", apt_mark),
    ("rpm", rpm),
    ("yum", yum_dnf),
    ("dnf", yum_dnf),
    ("apk", apk),
    ("snap", snap),
    ("pip", pip),
    ("pip3", pip),
    ("npm", npm),
    ("update-alternatives", update_alternatives),
    ("bridge", show_subcommand),
    ("brctl", brctl),
    ("conntrack", conntrack),
    ("firewall-cmd", firewall_cmd),
    ("wg", wg),
    ("tailscale", tailscale),
    ("nmcli", nmcli),
    ("iw", iw),
    ("tc", show_subcommand),
    ("ipset", ipset),
    ("drill", always_read),
    ("nmap", nmap),
    ("ssh-keygen", ssh_keygen),
    ("ssh-keyscan", always_read),
    ("lastlog", always_read),
    ("lastb", always_read),
    ("faillog", faillog),
    ("users", always_read),
    ("chage", chage),
    ("aws", aws),
    ("gcloud", gcloud),
    ("az", az),
    ("terraform", terraform),
    ("vault", vault),
];

fn busctl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "list",
            "status",
            "tree",
            "introspect",
            "get-property",
            "help",
        ],
    )
}

fn coredumpctl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('o') || inv.has_long("--output") {
        return Verdict::write(Risk::LowWrite, "writes a core file");
    }
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    sub_in(inv, OptSpec::NONE, &["list", "info"])
}

fn networkctl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    sub_in(inv, OptSpec::NONE, &["list", "status", "lldp", "label"])
}

const CHRONYC_READS: &[&str] = &[
    "tracking",
    "sources",
    "sourcestats",
    "activity",
    "ntpdata",
    "serverstats",
    "clients",
    "selectdata",
    "authdata",
    "rtcdata",
    "waitsync",
];

fn chronyc(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.first_positional(OptSpec::NONE) {
        None => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens an interactive prompt",
        ),
        Some((_, sub)) if CHRONYC_READS.contains(&sub) => Verdict::Read,
        Some((_, sub)) => {
            Verdict::write(Risk::MediumWrite, format!("`{sub}` changes time keeping"))
        }
    }
}

fn sysctl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('w')
        || inv.has_short('p')
        || inv.has_long("--write")
        || inv.has_long_abbrev("--load")
        || inv.has_long("--system")
        || inv.args.iter().any(|a| a.as_str().contains('='))
    {
        return Verdict::write(Risk::MediumWrite, "sets kernel parameters");
    }
    Verdict::Read
}

fn ulimit(inv: &Invocation<'_, '_>) -> Verdict {
    let _ = inv;
    // Only changes the limits of the shell running the line.
    Verdict::Read
}

fn needrestart(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('b') || inv.has_short('k') && inv.has_short('l') {
        return Verdict::Read;
    }
    Verdict::unknown("may restart services")
}

fn apt_mark(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "showhold",
            "showauto",
            "showmanual",
            "showinstall",
            "showremove",
            "showpurge",
        ],
    )
}

fn rpm(inv: &Invocation<'_, '_>) -> Verdict {
    let first = inv.arg(0).unwrap_or_default();
    let query = first.starts_with("-q")
        || first == "--query"
        || first.starts_with("-V")
        || first == "--verify"
        || first == "--version";
    if query
        && !inv.args.iter().any(|a| {
            matches!(
                a.as_str(),
                "-e" | "--erase"
                    | "-i"
                    | "--install"
                    | "-U"
                    | "--upgrade"
                    | "-F"
                    | "--freshen"
                    | "--import"
                    | "--rebuilddb"
                    | "--setperms"
                    | "--setugids"
            )
        })
    {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "installs, removes or changes packages")
    }
}

fn yum_dnf(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "cdex",
        long_with_value: &["--enablerepo", "--disablerepo", "--repo", "--releasever"],
    };
    match inv.first_positional(spec) {
        Some((
            _,
            "list" | "info" | "search" | "provides" | "whatprovides" | "repolist" | "repoinfo"
            | "deplist" | "repoquery" | "check-update" | "history" | "updateinfo" | "help"
            | "version",
        )) => Verdict::Read,
        Some((_, sub)) => Verdict::write(Risk::MediumWrite, format!("`{sub}` changes packages")),
        None => Verdict::unknown("no subcommand"),
    }
}

fn apk(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "info", "list", "search", "policy", "stats", "dot", "version", "audit",
        ],
    )
}

fn snap(inv: &Invocation<'_, '_>) -> Verdict {
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

fn pip(inv: &Invocation<'_, '_>) -> Verdict {
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

fn npm(inv: &Invocation<'_, '_>) -> Verdict {
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

fn update_alternatives(inv: &Invocation<'_, '_>) -> Verdict {
    mode_flags(
        inv,
        &["--display", "--query", "--list", "--get-selections"],
        &[
            "--install",
            "--remove",
            "--remove-all",
            "--set",
            "--auto",
            "--config",
            "--all",
            "--set-selections",
        ],
    )
}

/// iproute2-style `OBJECT [show|list]`.
fn show_subcommand(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        [_] => Verdict::Read,
        [_, "show" | "list" | "ls" | "sh", ..] => Verdict::Read,
        [_, "monitor", ..] | ["monitor", ..] => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`monitor` streams forever",
        ),
        _ => Verdict::unknown("not a read-only action"),
    }
}

fn brctl(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(inv, OptSpec::NONE, &["show", "showmacs", "showstp"])
}

fn conntrack(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('E') || inv.has_long("--event") {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`-E` streams events forever",
        );
    }
    mode_flags(
        inv,
        &[
            "-L", "--dump", "-S", "--stats", "-C", "--count", "-G", "--get",
        ],
        &[
            "-D", "--delete", "-F", "--flush", "-U", "--update", "-I", "--create",
        ],
    )
}

fn firewall_cmd(inv: &Invocation<'_, '_>) -> Verdict {
    let all_queries = inv.args.iter().all(|a| {
        let t = a.as_str();
        t.starts_with("--list")
            || t.starts_with("--get")
            || t.starts_with("--query")
            || t == "--state"
            || t.starts_with("--zone")
            || t == "--permanent"
            || t.starts_with("--info")
    });
    if all_queries && !inv.args.is_empty() {
        Verdict::Read
    } else {
        Verdict::write(Risk::HighWrite, "changes firewall rules")
    }
}

fn wg(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() {
        return Verdict::Read;
    }
    sub_in(
        inv,
        OptSpec::NONE,
        &["show", "showconf", "genkey", "genpsk", "pubkey"],
    )
}

fn tailscale(inv: &Invocation<'_, '_>) -> Verdict {
    unless_setter(
        sub_in(
            inv,
            OptSpec::NONE,
            &[
                "status",
                "ip",
                "netcheck",
                "version",
                "whois",
                "dns",
                "exit-node",
            ],
        ),
        inv,
    )
}

fn nmcli(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        []
        | [
            "general" | "g" | "networking" | "n" | "radio" | "r" | "device" | "d" | "connection"
            | "c" | "con",
        ] => Verdict::Read,
        [
            "general" | "g",
            "status" | "hostname" | "permissions" | "logging",
        ] => Verdict::Read,
        [
            "device" | "d" | "dev",
            "status" | "show" | "wifi" | "lldp",
            ..,
        ] if !words.contains(&"connect") && !words.contains(&"rescan") => Verdict::Read,
        ["connection" | "c" | "con", "show" | "s", ..] => Verdict::Read,
        ["monitor", ..] | [_, "monitor", ..] => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`monitor` streams forever",
        ),
        _ => Verdict::write(Risk::MediumWrite, "changes network configuration"),
    }
}

fn iw(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["set", "del", "add", "connect", "disconnect", "scan"]) {
        return Verdict::write(Risk::MediumWrite, "changes wireless settings");
    }
    if inv.has_word(&["event"]) {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`event` streams forever",
        );
    }
    Verdict::Read
}

fn ipset(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &["list", "test", "-L", "-T", "version", "help"],
    )
}

fn nmap(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.option_args().any(|a| {
        a.as_str().starts_with("-o")
            || a.as_str().starts_with("--script")
            || a.as_str() == "--resume"
            || a.as_str().starts_with("--stylesheet")
    }) {
        return Verdict::unknown("writes output files or runs scripts");
    }
    Verdict::Read
}

fn ssh_keygen(inv: &Invocation<'_, '_>) -> Verdict {
    let reads = inv.has_short('l')
        || inv.has_short('F')
        || inv.has_short('B')
        || inv.has_short('y') && !inv.has_short('f')
        || inv.has_short('Q');
    let writes = inv.has_short('R')
        || inv.has_short('t')
        || inv.has_short('p')
        || inv.has_short('c')
        || inv.has_short('s')
        || inv.has_short('H')
        || inv.has_short('A')
        || inv.has_short('N');
    if reads && !writes {
        Verdict::Read
    } else {
        Verdict::write(
            Risk::MediumWrite,
            "generates or changes keys or known_hosts",
        )
    }
}

fn faillog(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('r')
        || inv.has_short('l')
        || inv.has_short('m')
        || inv.has_long("--reset")
        || inv.has_long("--lock-secs")
        || inv.has_long("--maximum")
    {
        return Verdict::write(Risk::MediumWrite, "resets or changes login failure limits");
    }
    Verdict::Read
}

fn chage(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('l') || inv.has_long("--list") {
        Verdict::Read
    } else {
        Verdict::write(Risk::MediumWrite, "changes password ageing")
    }
}

/// `aws SERVICE OPERATION`: describe-/list-/get- operations read; `s3 ls` reads.
fn aws(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "",
        long_with_value: &[
            "--region",
            "--profile",
            "--output",
            "--query",
            "--endpoint-url",
            "--color",
            "--cli-read-timeout",
            "--cli-connect-timeout",
            "--ca-bundle",
        ],
    };
    let words: Vec<&str> = inv.positionals(spec).map(|(_, w)| w).collect();
    if inv
        .option_args()
        .any(|a| a.as_str() == "--cli-input-json" || a.as_str().starts_with("--cli-input"))
    {
        return Verdict::unknown("reads its arguments from a file");
    }
    match words.as_slice() {
        ["s3", "ls", ..]
        | ["configure", "list" | "get", ..]
        | ["sts", "get-caller-identity", ..] => Verdict::Read,
        [service, operation, ..]
            if service
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') =>
        {
            let reads = [
                "describe-",
                "list-",
                "get-",
                "head-",
                "lookup-",
                "search-",
                "scan",
            ]
            .iter()
            .any(|p| operation.starts_with(p));
            let credentials = operation.contains("credential")
                || operation.contains("password")
                || operation.contains("token");
            if reads
                && !credentials
                && operation
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-')
            {
                Verdict::Read
            } else {
                Verdict::unknown(format!("`{service} {operation}` is not a read operation"))
            }
        }
        _ => Verdict::unknown("no service and operation"),
    }
}

fn gcloud(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv
        .positionals(OptSpec {
            short_with_value: "",
            long_with_value: &[
                "--project",
                "--zone",
                "--region",
                "--format",
                "--filter",
                "--limit",
            ],
        })
        .map(|(_, w)| w)
        .collect();
    match words.last() {
        Some(&"list" | &"describe" | &"info" | &"version")
            if !words.contains(&"get-credentials") =>
        {
            Verdict::Read
        }
        _ if words.first() == Some(&"config") && words.get(1) == Some(&"list") => Verdict::Read,
        _ => Verdict::unknown("not a read-only gcloud command"),
    }
}

/// `az GROUP [SUBGROUP…] COMMAND --options`: the command words come before
/// the first option; `list`, `show`, `list-*`, `show-*` and most `get-*` read.
fn az(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv
        .args
        .iter()
        .map(|a| a.as_str())
        .take_while(|w| !w.starts_with('-'))
        .collect();
    if inv.args.iter().take(words.len()).any(|a| a.is_variable()) {
        return Verdict::unknown("the command comes from an expansion");
    }
    let Some(last) = words.last() else {
        return Verdict::unknown("no command");
    };
    if words
        .iter()
        .any(|w| w.bytes().any(|b| b.is_ascii_uppercase()))
    {
        return Verdict::unknown("az command groups are lower-case");
    }
    let sensitive = words.iter().any(|w| {
        matches!(
            *w,
            "get-credentials" | "get-shared-keys" | "run-command" | "login" | "logout" | "set"
        ) || w.contains("keys")
    });
    let reads = matches!(
        *last,
        "list" | "show" | "exists" | "help" | "check-name" | "version"
    ) || last.starts_with("list-")
        || last.starts_with("show-")
        || last.starts_with("get-");
    if reads && !sensitive {
        Verdict::Read
    } else {
        Verdict::unknown(format!("`az … {last}` is not a read command"))
    }
}

fn terraform(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        [
            "show" | "version" | "validate" | "output" | "providers" | "graph",
            ..,
        ]
        | ["state", "list" | "show" | "pull", ..] => Verdict::Read,
        ["fmt", ..]
            if inv.has_long("-check") || inv.has_long("--check") || inv.has_word(&["-check"]) =>
        {
            Verdict::Read
        }
        ["apply" | "destroy" | "import" | "taint" | "untaint", ..]
        | ["state", "rm" | "mv" | "push" | "replace-provider", ..] => {
            Verdict::write(Risk::HighWrite, "changes infrastructure or its state")
        }
        _ => Verdict::unknown("not a read-only terraform command"),
    }
}

fn vault(inv: &Invocation<'_, '_>) -> Verdict {
    let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
    match words.as_slice() {
        ["status" | "read" | "list" | "version", ..]
        | ["kv", "get" | "list" | "metadata", ..]
        | ["token", "lookup", ..]
        | ["secrets" | "auth" | "policy", "list", ..] => {
            if words.get(1) == Some(&"metadata") && words.get(2) != Some(&"get") {
                return Verdict::unknown("`kv metadata` can change metadata");
            }
            Verdict::Read
        }
        _ => Verdict::unknown("not a read-only vault command"),
    }
}
