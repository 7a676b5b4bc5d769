//! Baseline: addresses, routes, sockets, DNS, HTTP clients, firewalls, packet capture.
//! Family tables registered later refine these entries.

use super::super::Rule;
use super::super::common::always_read;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("ss", always_read),
    ("netstat", always_read),
    ("dig", always_read),
    ("host", always_read),
    ("ip", ip),
    ("ping", ping),
    ("ping6", ping),
    ("curl", curl),
    ("wget", wget),
    ("openssl", openssl),
    ("telnet", repl_client),
    ("ftp", repl_client),
    ("sftp", repl_client),
    ("ethtool", ethtool),
    ("whois", always_read),
    ("traceroute", always_read),
    ("tracepath", always_read),
    ("nslookup", nslookup),
    ("arp", arp),
    ("nc", netcat),
    ("ncat", netcat),
    ("netcat", netcat),
    ("iptables", iptables),
    ("ip6tables", iptables),
    ("iptables-save", iptables_save),
    ("ip6tables-save", iptables_save),
    ("nft", nft),
    ("ufw", ufw),
    ("mtr", mtr),
    ("tcpdump", tcpdump),
];

fn ethtool(inv: &Invocation<'_, '_>) -> Verdict {
    const SETTERS: &[char] = &[
        's', 'K', 'A', 'G', 'C', 'E', 'f', 'p', 'L', 'X', 'N', 'U', 'W', 'r',
    ];
    if SETTERS.iter().any(|&c| inv.has_short(c))
        || inv.option_args().any(|a| {
            a.as_str().starts_with("--")
                && (a.as_str().starts_with("--set")
                    || a.as_str().starts_with("--change")
                    || a.as_str() == "--reset"
                    || a.as_str() == "--flash"
                    || a.as_str() == "--identify")
        })
    {
        return Verdict::write(Risk::MediumWrite, "changes or resets the network interface");
    }
    Verdict::Read
}

fn repl_client(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "an interactive client that waits for commands",
    )
}

fn nslookup(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.first_positional(OptSpec::NONE) {
        Some(_) => Verdict::Read,
        None => Verdict::interactive(
            InteractiveCategory::InteractiveRepl,
            "waits for queries on standard input",
        ),
    }
}

fn arp(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('s')
        || inv.has_short('d')
        || inv.has_short('f')
        || inv.has_long("--set")
        || inv.has_long("--delete")
        || inv.has_long("--file")
    {
        return Verdict::write(Risk::MediumWrite, "changes the ARP cache");
    }
    Verdict::Read
}

fn netcat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('e')
        || inv.has_short('c')
        || inv.has_long("--exec")
        || inv.has_long("--sh-exec")
        || inv.has_long("--lua-exec")
    {
        return Verdict::unknown("`-e`/`-c` runs a program for the connection");
    }
    if inv.has_short('l') || inv.has_long("--listen") {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`-l` listens until interrupted",
        );
    }
    if inv.has_short('z') {
        return Verdict::Read;
    }
    Verdict::interactive(
        InteractiveCategory::InteractiveRepl,
        "sends standard input to the connection",
    )
}

fn iptables(inv: &Invocation<'_, '_>) -> Verdict {
    let lists = inv.has_short('L')
        || inv.has_short('S')
        || inv.has_long("--list")
        || inv.has_long("--list-rules")
        || inv.has_short('C')
        || inv.has_long("--check");
    let writes = ['A', 'I', 'D', 'R', 'F', 'X', 'P', 'N', 'E', 'Z']
        .iter()
        .any(|&c| inv.has_short(c))
        || [
            "--append",
            "--insert",
            "--delete",
            "--replace",
            "--flush",
            "--delete-chain",
            "--policy",
            "--new-chain",
            "--rename-chain",
            "--zero",
        ]
        .iter()
        .any(|l| inv.has_long(l));
    if lists && !writes {
        Verdict::Read
    } else {
        Verdict::write(Risk::HighWrite, "changes firewall rules")
    }
}

fn iptables_save(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('f') || inv.has_long("--file") {
        return Verdict::write(Risk::LowWrite, "`-f` writes the rules to a file");
    }
    Verdict::Read
}

fn nft(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('f')
        || inv.has_long("--file")
        || inv.has_short('i')
        || inv.has_long("--interactive")
    {
        return Verdict::unknown("runs rules from a file or interactively");
    }
    match inv.first_positional(OptSpec::NONE) {
        Some((_, "list")) => Verdict::Read,
        Some((_, "monitor")) => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`monitor` streams forever",
        ),
        _ => Verdict::write(Risk::HighWrite, "changes firewall rules"),
    }
}

fn ufw(inv: &Invocation<'_, '_>) -> Verdict {
    match (inv.arg(0), inv.arg(1)) {
        (Some("status" | "show" | "version"), _) | (Some("app"), Some("list" | "info")) => {
            Verdict::Read
        }
        _ => Verdict::write(Risk::HighWrite, "changes firewall rules"),
    }
}

fn mtr(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('r')
        || inv.has_long("--report")
        || inv.has_short('c')
        || inv.has_long("--report-cycles")
        || inv.has_short('w')
        || inv.has_long("--report-wide")
        || inv.has_short('j')
        || inv.has_long("--json")
    {
        return Verdict::Read;
    }
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "a full-screen trace that never exits without `-r`",
    )
}

fn tcpdump(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('w') || inv.has_short('z') || inv.has_short('Z') {
        return Verdict::write(
            Risk::LowWrite,
            "writes a capture file or runs a program on it",
        );
    }
    if inv.has_short('D')
        || inv.has_long("--list-interfaces")
        || inv.has_short('r')
        || inv.has_short('c')
    {
        return Verdict::Read;
    }
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "captures forever without `-c`",
    )
}

fn ip(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "fbn",
        long_with_value: &["-family", "-batch", "-netns"],
    };
    let mut pos = inv.positionals(spec);
    let Some((_, _object)) = pos.next() else {
        return Verdict::unknown("no object");
    };
    match pos.next() {
        None => Verdict::Read,
        Some((_, "show" | "list" | "lst" | "sh" | "ls" | "s" | "l" | "get" | "help")) => {
            Verdict::Read
        }
        Some((_, action))
            if [
                "add", "del", "delete", "change", "replace", "set", "flush", "append", "prepend",
                "exec", "monitor", "save", "restore",
            ]
            .iter()
            .any(|w| w.starts_with(action)) =>
        {
            Verdict::write(
                Risk::MediumWrite,
                format!("action `{action}` changes the network"),
            )
        }
        Some(_) => Verdict::Read,
    }
}

fn ping(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('c') || inv.has_short('w') || inv.has_long("--count") {
        return Verdict::Read;
    }
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "pings forever without `-c`",
    )
}

fn is_sink(target: Option<&str>) -> bool {
    matches!(
        target,
        Some("/dev/null" | "-" | "/dev/stdout" | "/dev/stderr")
    )
}

const CURL_SHORT_VALUES: &str = "AbcCdDeEFHKmoPQrtTuUwxXyYz";

fn curl(inv: &Invocation<'_, '_>) -> Verdict {
    const SENDS: &[&str] = &[
        "--data",
        "--data-binary",
        "--data-raw",
        "--data-urlencode",
        "--data-ascii",
        "--json",
        "--form",
        "--form-string",
        "--upload-file",
        "--quote",
        "--mail-rcpt",
        "--mail-from",
    ];
    const WRITES_VALUE: &[&str] = &[
        "--output",
        "--dump-header",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--libcurl",
        "--etag-save",
        "--hsts",
        "--alt-svc",
    ];
    const WRITES: &[&str] = &[
        "--remote-name",
        "--remote-name-all",
        "--create-dirs",
        "--output-dir",
        "--remote-header-name",
    ];
    let args = inv.args;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.as_str();
        let next = args.get(i + 1).map(|a| a.as_str());
        i += 1;
        // `$OPTS` or `-$X` could become `-o FILE`; `http://$HOST/` cannot.
        if arg.is_variable()
            && (text.starts_with('-') || text.starts_with('$') || text.starts_with('*'))
        {
            return Verdict::unknown("an option could come from an expansion");
        }
        if let Some(long) = text.strip_prefix("--") {
            let (head, inline) = match long.split_once('=') {
                Some((h, v)) => (h, Some(v)),
                None => (long, None),
            };
            let head = &text[..head.len() + 2];
            let value = inline.or(next);
            if SENDS.contains(&head) || head.starts_with("--data") || head.starts_with("--form") {
                return Verdict::write(Risk::MediumWrite, format!("`{head}` sends data"));
            }
            if head == "--request" {
                if !matches!(value, Some("GET" | "HEAD")) {
                    return Verdict::write(
                        Risk::MediumWrite,
                        "`--request` sends a method other than GET or HEAD",
                    );
                }
            } else if WRITES_VALUE.contains(&head) {
                if !is_sink(value) {
                    return Verdict::write(Risk::MediumWrite, format!("`{head}` writes a file"));
                }
            } else if WRITES.contains(&head) {
                return Verdict::write(Risk::MediumWrite, format!("`{head}` writes files"));
            } else if head == "--config" {
                return Verdict::unknown("`--config` reads options that cannot be inspected");
            }
            if inline.is_none()
                && matches!(
                    head,
                    "--request"
                        | "--output"
                        | "--dump-header"
                        | "--cookie-jar"
                        | "--trace"
                        | "--trace-ascii"
                        | "--stderr"
                        | "--libcurl"
                        | "--etag-save"
                        | "--hsts"
                        | "--alt-svc"
                        | "--header"
                        | "--user"
                        | "--user-agent"
                        | "--referer"
                        | "--cookie"
                        | "--max-time"
                        | "--connect-timeout"
                        | "--retry"
                        | "--proxy"
                        | "--resolve"
                        | "--cacert"
                        | "--cert"
                        | "--key"
                        | "--write-out"
                        | "--unix-socket"
                        | "--interface"
                        | "--range"
                )
            {
                i += 1;
            }
            continue;
        }
        if !crate::invocation::is_short_cluster(text) {
            continue;
        }
        for (pos, c) in text[1..].char_indices() {
            let rest = &text[1 + pos + c.len_utf8()..];
            let value = if rest.is_empty() { next } else { Some(rest) };
            match c {
                'd' | 'F' | 'T' | 'Q' => {
                    return Verdict::write(Risk::MediumWrite, format!("`-{c}` sends data"));
                }
                'O' | 'J' => {
                    return Verdict::write(Risk::MediumWrite, format!("`-{c}` writes a file"));
                }
                'K' => return Verdict::unknown("`-K` reads options that cannot be inspected"),
                'o' | 'D' | 'c' if !is_sink(value) => {
                    return Verdict::write(Risk::MediumWrite, format!("`-{c}` writes a file"));
                }
                'X' if !matches!(value, Some("GET" | "HEAD")) => {
                    return Verdict::write(
                        Risk::MediumWrite,
                        "`-X` sends a method other than GET or HEAD",
                    );
                }
                _ => {}
            }
            if CURL_SHORT_VALUES.contains(c) {
                if rest.is_empty() {
                    i += 1;
                }
                break;
            }
        }
    }
    Verdict::Read
}

fn wget(inv: &Invocation<'_, '_>) -> Verdict {
    let spider = inv.has_long("--spider");
    let document = wget_document(inv);
    let to_stdout = document == Some("-");
    let bad = inv.has_short('o')
        || inv.has_short('a')
        || inv.has_long_abbrev("--output-file")
        || inv.has_long_abbrev("--post-data")
        || inv.has_long_abbrev("--post-file")
        || inv.has_long_abbrev("--method")
        || inv.has_long_abbrev("--body-data")
        || inv.has_long_abbrev("--body-file")
        || inv.has_short('P')
        || inv.has_short('r')
        || inv.has_short('i')
        || inv.has_long_abbrev("--execute")
        || inv.has_short('e');
    let writes_doc = document.is_some_and(|v| v != "-");
    if bad || writes_doc {
        return Verdict::write(Risk::MediumWrite, "writes files or sends data");
    }
    if spider || to_stdout {
        return Verdict::Read;
    }
    Verdict::write(Risk::LowWrite, "downloads into a file")
}

fn wget_document<'i>(inv: &Invocation<'i, '_>) -> Option<&'i str> {
    if let Some(value) = inv.option_value(None, Some("--output-document")) {
        return Some(value);
    }
    let mut args = inv.option_args();
    while let Some(arg) = args.next() {
        let text = arg.as_str();
        if crate::invocation::is_short_cluster(text) {
            if let Some(at) = text.find('O') {
                let rest = &text[at + 1..];
                return if rest.is_empty() {
                    args.next().map(|a| a.as_str())
                } else {
                    Some(rest)
                };
            }
        }
    }
    None
}

fn openssl(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        Some("s_client") => Verdict::interactive(
            InteractiveCategory::InteractiveRepl,
            "waits on standard input; add </dev/null",
        ),
        Some("version" | "ciphers" | "x509" | "verify" | "crl" | "asn1parse" | "list")
            if !inv.has_word(&["-out"])
                && !inv.args.iter().any(|a| a.as_str().starts_with("-out")) =>
        {
            Verdict::Read
        }
        _ => Verdict::unknown("openssl subcommand may write keys or files"),
    }
}
