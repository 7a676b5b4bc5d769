//! Probes and raw clients: ping and friends, mtr, packet capture, netcat,
//! socat, telnet/ftp/sftp, nmap, nslookup.

use super::{is_sink, variable_option};
use crate::commands::common::stream;
use crate::commands::common::{bad, first_bad};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

const PING: Options = Options {
    short_flags: "46aAbBdDfLnOqRUvVHC",
    short_values: "ciIlmMpQsStTwWFeNrhP",
    long_values: &[
        "--count",
        "--deadline",
        "--timeout",
        "--interval",
        "--linger",
        "--size",
        "--ttl",
        "--pattern",
    ],
    long_flags: &[
        "--help",
        "--version",
        "--numeric",
        "--quiet",
        "--verbose",
        "--flood",
    ],
    ..Options::GNU
};

/// `ping`: sends until interrupted unless `-c COUNT` or `-w DEADLINE`.
pub(super) fn ping(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(word) = first_bad(&PING, inv.args) {
        return bad(word);
    }
    let bounded = PING.walk(inv.args).any(|t| {
        matches!(
            t,
            Tok::Short {
                flag: 'c' | 'w' | 'V',
                ..
            } | Tok::Long {
                name: "--count" | "--deadline" | "--timeout" | "--help" | "--version",
                ..
            }
        )
    }) || inv.has_word(&["-h", "--help"]);
    if bounded {
        Verdict::Read
    } else {
        stream("pings until interrupted; add `-c 4`")
    }
}

const ARPING: Options = Options {
    short_flags: "AbDfhqUVBeu0",
    short_values: "cwIsiCStTQWg",
    long_values: &[],
    long_flags: &[],
    ..Options::GNU
};

pub(super) fn arping(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(word) = first_bad(&ARPING, inv.args) {
        return bad(word);
    }
    let mut bounded = false;
    for tok in ARPING.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: c @ ('U' | 'A'),
                ..
            } => {
                return Verdict::write(
                    Risk::MediumWrite,
                    format!("`-{c}` announces an address to the neighbours' ARP caches"),
                );
            }
            Tok::Short {
                flag: 'c' | 'w' | 'C' | 'h' | 'V',
                ..
            } => bounded = true,
            _ => {}
        }
    }
    if bounded {
        Verdict::Read
    } else {
        stream("sends until interrupted; add `-c 3`")
    }
}

/// `fping` stops after its targets answer unless `-l` loops.
pub(super) fn fping(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('f') || inv.has_long("--file") {
        return Verdict::unknown(
            "`-f` reads targets from a file: its contents would be sent as names to look up",
        );
    }
    if inv.has_short('l') || inv.has_long("--loop") {
        return stream("`-l` pings until interrupted");
    }
    let mut target = false;
    let mut args = inv.args.iter().map(|a| a.as_str());
    while let Some(text) = args.next() {
        match text.strip_prefix('-') {
            // Options that take a value as the next word.
            Some(flags) if !flags.starts_with('-') && flags.len() == 1 => {
                if "bBcCHiIOpQrStTxX".contains(flags) {
                    args.next();
                }
            }
            Some(_) => {}
            None => target = true,
        }
    }
    if !target && !inv.has_short('g') && !inv.has_word(&["-h", "--help", "-v", "--version"]) {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "reads targets from standard input: what it is fed would be sent as names",
        );
    }
    Verdict::Read
}

const MTR: Options = Options {
    short_flags: "hvrwjCxpltngbzu46TSeE",
    short_values: "FcsBiafmUQPLZGMIyod",
    long_values: &[
        "--filename",
        "--report-cycles",
        "--psize",
        "--bitpattern",
        "--interval",
        "--address",
        "--first-ttl",
        "--max-ttl",
        "--max-unknown",
        "--tos",
        "--port",
        "--localport",
        "--timeout",
        "--gracetime",
        "--mark",
        "--interface",
        "--ipinfo",
        "--order",
        "--displaymode",
    ],
    long_flags: &[
        "--report",
        "--report-wide",
        "--json",
        "--csv",
        "--xml",
        "--raw",
        "--split",
        "--curses",
        "--gtk",
        "--version",
        "--help",
        "--no-dns",
        "--show-ips",
        "--aslookup",
        "--udp",
        "--tcp",
        "--sctp",
        "--mpls",
        "--inet",
        "--inet6",
    ],
    ..Options::GNU
};

/// `mtr` is a full-screen display unless a report mode or a cycle count ends it.
pub(super) fn mtr(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(word) = first_bad(&MTR, inv.args) {
        return bad(word);
    }
    let mut bounded = false;
    for tok in MTR.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: 't' | 'g', ..
            }
            | Tok::Long {
                name: "--curses" | "--gtk",
                ..
            } => return stream("`--curses` is a full-screen display"),
            Tok::Short {
                flag: 'r' | 'w' | 'c' | 'j' | 'C' | 'x' | 'l' | 'v' | 'h',
                ..
            }
            | Tok::Long {
                name:
                    "--report" | "--report-wide" | "--report-cycles" | "--json" | "--csv" | "--xml"
                    | "--raw" | "--version" | "--help",
                ..
            } => bounded = true,
            _ => {}
        }
    }
    if bounded {
        Verdict::Read
    } else {
        stream("a full-screen trace that runs until interrupted; add `-r -c 10`")
    }
}

const TCPDUMP: Options = Options {
    short_flags: "AbdDefhHIJKlLnNOpqStuUvxX#",
    short_values: "BcCEFGiMmrsTVwWyzZQj",
    long_values: &[
        "--buffer-size",
        "--interface",
        "--snapshot-length",
        "--time-stamp-type",
        "--time-stamp-precision",
        "--direction",
        "--relinquish-privileges",
        "--print-sampling",
        "--skip",
    ],
    long_flags: &[
        "--list-interfaces",
        "--help",
        "--monitor-mode",
        "--immediate-mode",
        "--number",
        "--list-time-stamp-types",
        "--nano",
        "--micro",
        "--version",
        "--count",
        "--print",
        "--lengths",
    ],
    ..Options::GNU
};

pub(super) fn tcpdump(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(word) = first_bad(&TCPDUMP, inv.args) {
        return bad(word);
    }
    if let Some(v) = variable_option(inv) {
        return v;
    }
    let mut bounded = false;
    for tok in TCPDUMP.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'z', .. } => {
                return Verdict::unknown("`-z` runs a program on each capture file");
            }
            Tok::Short {
                flag: 'w', value, ..
            } if !is_sink(value) => {
                return Verdict::write(Risk::LowWrite, "`-w` writes a capture file");
            }
            Tok::Short {
                flag: 'c' | 'r' | 'V' | 'D' | 'L' | 'J' | 'd' | 'h',
                ..
            }
            | Tok::Long {
                name: "--list-interfaces" | "--list-time-stamp-types" | "--help" | "--version",
                ..
            } => bounded = true,
            _ => {}
        }
    }
    if bounded {
        Verdict::Read
    } else {
        stream("captures until interrupted; add `-c 100`")
    }
}

const TSHARK: Options = Options {
    short_flags: "2DhIlLnpPqQvVx",
    short_values: "abBcCdeEfFHiJjKmNoOrRsStTuwWXYzG",
    long_values: &[
        "--export-objects",
        "--log-file",
        "--export-tls-session-keys",
        "--capture-comment",
        "--interface",
        "--autostop",
        "--ring-buffer",
        "--read-filter",
        "--display-filter",
        "--color",
    ],
    long_flags: &["--help", "--version", "--list-interfaces"],
    ..Options::GNU
};

pub(super) fn tshark(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(word) = first_bad(&TSHARK, inv.args) {
        return bad(word);
    }
    if let Some(v) = variable_option(inv) {
        return v;
    }
    let mut bounded = false;
    for tok in TSHARK.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'X', .. } => {
                return Verdict::unknown("`-X` loads an extension such as a Lua script");
            }
            Tok::Short { flag: 'o', .. } => {
                return Verdict::unknown("`-o` sets preferences, some of which write files");
            }
            Tok::Short {
                flag: 'w', value, ..
            } if !is_sink(value) => {
                return Verdict::write(Risk::LowWrite, "`-w` writes a capture file");
            }
            Tok::Long {
                name: name @ ("--export-objects" | "--log-file" | "--export-tls-session-keys"),
                ..
            } => {
                return Verdict::write(Risk::LowWrite, format!("`{name}` writes files"));
            }
            Tok::Short {
                flag: 'c' | 'a' | 'r' | 'D' | 'L' | 'G' | 'h' | 'v',
                ..
            }
            | Tok::Long {
                name: "--autostop" | "--help" | "--version" | "--list-interfaces",
                ..
            } => bounded = true,
            _ => {}
        }
    }
    if bounded {
        Verdict::Read
    } else {
        stream("captures until interrupted; add `-c 100` or `-a duration:10`")
    }
}

pub(super) fn dumpcap(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&[
        "-D",
        "-L",
        "-h",
        "-v",
        "--help",
        "--version",
        "--list-interfaces",
    ]) {
        return Verdict::Read;
    }
    Verdict::write(Risk::LowWrite, "writes a capture file")
}

pub(super) fn netcat(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = variable_option(inv) {
        return v;
    }
    if inv.has_short('e')
        || inv.has_short('c')
        || inv.has_long("--exec")
        || inv.has_long("--sh-exec")
        || inv.has_long("--lua-exec")
    {
        return Verdict::unknown("`-e`/`-c` runs a program for the connection");
    }
    if inv.has_short('o')
        || inv.has_short('x')
        || inv.has_long("--output")
        || inv.has_long("--hex-dump")
        || inv.has_long("--append-output")
    {
        return Verdict::write(Risk::LowWrite, "writes the session into a file");
    }
    if inv.has_short('l') || inv.has_long("--listen") {
        return stream("`-l` listens until interrupted");
    }
    if inv.has_short('z') || inv.has_word(&["-h", "--help", "--version"]) {
        return Verdict::Read;
    }
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "sends standard input to the connection; use `-z` to test a port",
    )
}

pub(super) fn socat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.len() == 1 && inv.has_word(&["-V", "-h", "-hh", "-hhh"]) {
        return Verdict::Read;
    }
    Verdict::unknown("relays between addresses that can run programs or write files")
}

/// telnet, ftp, tftp: interactive clients that can also change remote state.
pub(super) fn remote_shell(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "an interactive client that waits for commands",
    )
}

pub(super) fn sftp(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('b') {
        return Verdict::unknown("`-b` runs a batch of transfer commands");
    }
    if inv
        .args
        .iter()
        .any(|a| !a.as_str().starts_with('-') && a.as_str().contains(':'))
    {
        return Verdict::write(Risk::LowWrite, "`host:path` downloads a file");
    }
    remote_shell(inv)
}

pub(super) fn lftp(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('c') || inv.has_short('e') || inv.has_short('f') {
        return Verdict::unknown("runs transfer commands");
    }
    remote_shell(inv)
}

pub(super) fn nmap(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = variable_option(inv) {
        return v;
    }
    let mut args = inv.args.iter().map(|a| a.as_str());
    while let Some(text) = args.next() {
        if !text.starts_with('-') {
            continue;
        }
        let long = text.trim_start_matches('-');
        let head = long.split_once('=').map_or(long, |(h, _)| h);
        // nmap reads long options with one dash too (`-script`).
        if text.starts_with("-iL") {
            return Verdict::unknown(
                "`-iL` reads targets from a file: its contents would be sent as names to look up",
            );
        }
        if text == "-iR" {
            return Verdict::unknown("`-iR` scans random hosts on the internet");
        }
        if head.starts_with("script") || head == "interactive" || head.starts_with("resume") {
            return Verdict::unknown(format!("`{text}` runs scripts or other programs"));
        }
        if text == "-A" || (text.starts_with("-s") && text[2..].contains('C')) {
            return Verdict::unknown(format!("`{text}` runs the default scripts"));
        }
        if let Some(rest) = text.strip_prefix("-o") {
            let mut chars = rest.chars();
            if chars.next().is_some_and(|c| "NXGASMH".contains(c)) {
                let glued = chars.as_str();
                let target = if glued.is_empty() {
                    args.next()
                } else {
                    Some(glued)
                };
                if !is_sink(target) {
                    return Verdict::write(Risk::LowWrite, "`-o` writes scan results to a file");
                }
            }
        }
    }
    Verdict::Read
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_interactive, is_read, is_write};

    #[test]
    fn probes() {
        for line in [
            "ping -c 4 example.com",
            "ping -c4 10.0.0.1",
            "ping -nc4 10.0.0.1",
            "ping -qc 3 host",
            "ping -w 5 host",
            "ping -W 1 -c 1 host",
            "ping --count=3 host",
            "ping6 -c 2 ::1",
            "ping -V",
            "arping -c 3 -I eth0 10.0.0.1",
            "arping -w 2 10.0.0.1",
            "fping 10.0.0.1 10.0.0.2",
            "fping -c 3 -q host",
            "fping -g 10.0.0.0/24",
            "traceroute example.com",
            "tracepath -n host",
            "mtr -r host",
            "mtr --report -c 5 host",
            "mtr -rwc 10 host",
            "mtr -rn host",
            "mtr -c 5 host",
            "mtr --json host",
            "tcpdump -c 100 -i eth0",
            "tcpdump -nni eth0 -c 100 port 80",
            "tcpdump -c100 -i any",
            "tcpdump -r capture.pcap",
            "tcpdump -D",
            "tcpdump --list-interfaces",
            "tcpdump -i eth0 -c 10 -w -",
            "tshark -c 10 -i eth0",
            "tshark -a duration:10 -i eth0",
            "tshark -r file.pcap -Y http",
            "tshark -D",
            "nc -zv host 22",
            "nc -w 3 -zv example.com 22",
            "nc -vz host 80 443",
            "nmap -sV host",
            "nmap -p 22,80 -Pn 10.0.0.0/24",
            "nmap -sS -O host",
            "nmap -oX - host",
            "nslookup example.com",
            "nslookup -type=mx example.com",
            "nslookup example.com 8.8.8.8",
            "dig +short example.com",
            "host example.com",
            "whois example.com",
            "getent hosts example.com",
            "socat -V",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "arping -U -I eth0 10.0.0.1",
            "arping -A -c 1 10.0.0.1",
            "tcpdump -w /tmp/cap.pcap -c 10",
            "tcpdump -i eth0 -w out.pcap",
            "tcpdump -nw out.pcap",
            "tcpdump -c 1 -z gzip -w x",
            "tcpdump -c 1 -zgzip",
            "tshark -w out.pcap -c 10",
            "tshark -c 1 -X lua_script:evil.lua",
            "tshark -r in.pcap --export-objects http,/tmp/out",
            "dumpcap -i eth0",
            "nc -e /bin/sh host 4444",
            "nc -c 'cat /etc/passwd' host 1",
            "ncat --exec /bin/sh host 1",
            "ncat --sh-exec id -l 1",
            "ncat -zv -o log host 22",
            "socat TCP-LISTEN:80 EXEC:/bin/sh",
            "socat - TCP:host:80",
            "sftp -b cmds host",
            "sftp host:/etc/passwd",
            "lftp -c 'mirror -R x'",
            "nmap -oN out.txt host",
            "nmap -oXscan.xml host",
            "nmap -oA base host",
            "nmap --script vuln host",
            "nmap --script=http-title host",
            "nmap -script=x host",
            "nmap -sC host",
            "nmap -sVC host",
            "nmap -A host",
        ] {
            assert!(is_write(line), "{line}");
        }
        for line in [
            "ping host",
            "ping -i 1 host",
            "ping6 ::1",
            "arping 10.0.0.1",
            "fping -l host",
            "mtr host",
            "mtr -t -r host",
            "tcpdump -i eth0",
            "tcpdump -nn port 53",
            "tshark -i eth0",
            "nc host 80",
            "nc -l -p 9000",
            "nc -lk 8080",
            "telnet host 23",
            "ftp host",
            "sftp user@host",
            "nslookup",
            "nslookup - 8.8.8.8",
        ] {
            assert!(is_interactive(line), "{line}");
        }
    }
}
