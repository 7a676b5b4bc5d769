//! Sockets, interfaces, routes, ARP, wireless, NetworkManager's full-screen
//! editor, bridges, WireGuard and the interface monitors (`nmcli` is in
//! its own file).

use crate::commands::common::bad;
use crate::commands::common::stream;
use crate::invocation::{Invocation, OptSpec};
use crate::options::{Options, Tok};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

pub(super) fn ss(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('K') || inv.has_long_abbrev("--kill") {
        return Verdict::write(Risk::HighWrite, "`-K` kills the matching sockets");
    }
    if inv.has_short('D') || inv.has_long_abbrev("--diag") {
        return Verdict::write(Risk::LowWrite, "`-D` dumps socket data into a file");
    }
    if inv.has_short('E') || inv.has_long_abbrev("--events") {
        return stream("`-E` prints socket events until interrupted");
    }
    Verdict::Read
}

pub(super) fn netstat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('c') || inv.has_long_abbrev("--continuous") {
        return stream("`-c` repeats forever");
    }
    // `netstat -i 2`: a trailing delay repeats forever.
    let spec = OptSpec {
        short_with_value: "A",
        long_with_value: &["--protocol"],
    };
    if inv
        .positionals(spec)
        .any(|(_, w)| w.bytes().all(|b| b.is_ascii_digit()))
    {
        return stream("a delay argument repeats forever");
    }
    Verdict::Read
}

/// `ifconfig`, `iwconfig`: options, then an interface alone shows it;
/// anything after the interface sets it.
fn show_or_set(inv: &Invocation<'_, '_>, options: &[&str]) -> Verdict {
    let mut iface = false;
    for arg in inv.args {
        let text = arg.as_str();
        if iface {
            return Verdict::write(Risk::MediumWrite, format!("`{text}` changes the interface"));
        }
        if text.starts_with('-') {
            if !options.contains(&text) {
                return Verdict::unknown(format!("unknown option `{text}`"));
            }
        } else {
            iface = true;
        }
    }
    Verdict::Read
}

pub(super) fn ifconfig(inv: &Invocation<'_, '_>) -> Verdict {
    show_or_set(
        inv,
        &[
            "-a", "-s", "-v", "-l", "-u", "-d", "-m", "-L", "-C", "-h", "--help",
        ],
    )
}

pub(super) fn iwconfig(inv: &Invocation<'_, '_>) -> Verdict {
    show_or_set(inv, &["-v", "--version", "-h", "--help"])
}

pub(super) fn route(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "A",
        long_with_value: &[],
    };
    match inv.first_positional(spec) {
        None => Verdict::Read,
        Some((_, "get" | "show")) => Verdict::Read,
        Some((_, "monitor")) => stream("`monitor` prints routing messages until interrupted"),
        Some((_, "flush")) => Verdict::write(Risk::HighWrite, "`flush` removes routes"),
        Some((_, sub @ ("add" | "del" | "delete" | "change"))) => Verdict::write(
            Risk::MediumWrite,
            format!("`{sub}` changes the routing table"),
        ),
        Some((_, sub)) => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

const ARP: Options = Options {
    short_flags: "vnaeDhVsdfS",
    short_values: "HitA",
    long_values: &["--hw-type", "--device", "--protocol"],
    long_flags: &[
        "--verbose",
        "--numeric",
        "--all",
        "--display",
        "--set",
        "--delete",
        "--file",
        "--use-device",
        "--help",
        "--version",
    ],
    ..Options::GNU
};

pub(super) fn arp(inv: &Invocation<'_, '_>) -> Verdict {
    for tok in ARP.walk(inv.args) {
        match tok {
            Tok::Short {
                flag: c @ ('s' | 'd' | 'f' | 'S'),
                ..
            } => {
                return Verdict::write(Risk::MediumWrite, format!("`-{c}` changes the ARP cache"));
            }
            Tok::Long {
                name: name @ ("--set" | "--delete" | "--file"),
                ..
            } => {
                return Verdict::write(
                    Risk::MediumWrite,
                    format!("`{name}` changes the ARP cache"),
                );
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args[index].raw),
            Tok::Short { flag, .. } if !"vnHitAaeDhV".contains(flag) => {
                return Verdict::unknown(format!("unknown option `-{flag}`"));
            }
            Tok::Long { name, .. }
                if !ARP.long_flags.contains(&name) && !ARP.long_values.contains(&name) =>
            {
                return Verdict::unknown(format!("unknown option `{name}`"));
            }
            _ => {}
        }
    }
    Verdict::Read
}

pub(super) fn iw(inv: &Invocation<'_, '_>) -> Verdict {
    let mut words = Vec::with_capacity(inv.args.len());
    for arg in inv.args {
        let text = arg.as_str();
        if words.is_empty() && text.starts_with('-') {
            if !matches!(text, "--debug" | "--version" | "-h" | "--help") {
                return Verdict::unknown(format!("unknown option `{text}`"));
            }
            continue;
        }
        words.push(text);
    }
    let rest = match words.as_slice() {
        [] | ["dev" | "phy" | "wdev"] => return Verdict::Read,
        ["dev" | "phy" | "wdev", _, rest @ ..] => rest,
        rest => rest,
    };
    const TWO_LEVEL: &[&str] = &[
        "station", "survey", "mpath", "mpp", "reg", "wowlan", "coalesce", "mesh", "ftm",
    ];
    match rest {
        [] => Verdict::Read,
        [
            "info" | "link" | "list" | "help" | "commands" | "features" | "channels" | "get",
            ..,
        ] => Verdict::Read,
        ["scan", "dump", ..] => Verdict::Read,
        ["scan", ..] => Verdict::write(
            Risk::LowWrite,
            "`scan` makes the radio scan (`scan dump` shows the last results)",
        ),
        ["event", ..] => stream("`event` prints events until interrupted"),
        [group, "dump" | "get" | "list" | "show", ..] if TWO_LEVEL.contains(group) => Verdict::Read,
        [verb, ..] => Verdict::write(
            Risk::MediumWrite,
            format!("`{verb}` changes the wireless device"),
        ),
    }
}

/// ethtool modes that only query, by their short and long spellings.
const ETHTOOL_READS: &[&str] = &[
    "-a",
    "--show-pause",
    "-c",
    "--show-coalesce",
    "-g",
    "--show-ring",
    "-k",
    "--show-features",
    "--show-offload",
    "-i",
    "--driver",
    "-d",
    "--register-dump",
    "-e",
    "--eeprom-dump",
    "-S",
    "--statistics",
    "-T",
    "--show-time-stamping",
    "-l",
    "--show-channels",
    "-m",
    "--dump-module-eeprom",
    "--module-info",
    "-n",
    "-u",
    "--show-nfc",
    "--show-ntuple",
    "-x",
    "--show-rxfh-indir",
    "--show-rxfh",
    "-P",
    "--show-permaddr",
    "--show-eee",
    "--show-fec",
    "--show-priv-flags",
    "--phy-statistics",
    "--show-tunnels",
    "--show-module",
    "--show-mm",
    "--show-pse",
    "--show-plca-cfg",
    "--get-plca-cfg",
    "--get-plca-status",
    "--show-hwtstamp-cfg",
    "-w",
    "--get-dump",
    "-h",
    "--help",
    "--version",
];

pub(super) fn ethtool(inv: &Invocation<'_, '_>) -> Verdict {
    let mut i = 0;
    // Global options come before the mode.
    while let Some(text) = inv.arg(i) {
        match text {
            "--json" | "-j" | "-I" | "--include-statistics" => i += 1,
            "--debug" => i += 2,
            _ => break,
        }
    }
    let Some(mode) = inv.arg(i) else {
        return Verdict::Read;
    };
    if !mode.starts_with('-') {
        // `ethtool DEV` shows its settings.
        return match inv.arg(i + 1) {
            None => Verdict::Read,
            Some(extra) => Verdict::unknown(format!("unexpected argument `{extra}`")),
        };
    }
    if ETHTOOL_READS.contains(&mode) {
        if matches!(mode, "-w" | "--get-dump") && inv.has_word(&["data"]) {
            return Verdict::write(Risk::LowWrite, "`data` writes the dump into a file");
        }
        return Verdict::Read;
    }
    let risk = match mode {
        "-p" | "--identify" => Risk::LowWrite,
        "-f" | "--flash" | "-E" | "--change-eeprom" | "--reset" => Risk::HighWrite,
        _ => Risk::MediumWrite,
    };
    Verdict::write(risk, format!("`{mode}` changes or tests the interface"))
}

const MII_TOOL: Options = Options {
    short_flags: "vVrRwlh",
    short_values: "FAp",
    long_values: &["--force", "--advertise", "--phy"],
    long_flags: &[
        "--verbose",
        "--version",
        "--reset",
        "--restart",
        "--watch",
        "--log",
        "--help",
    ],
    ..Options::GNU
};

pub(super) fn mii_tool(inv: &Invocation<'_, '_>) -> Verdict {
    let mut watch = false;
    for tok in MII_TOOL.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'w', .. }
            | Tok::Long {
                name: "--watch", ..
            } => watch = true,
            Tok::Short {
                flag: 'v' | 'V' | 'p' | 'l' | 'h',
                ..
            }
            | Tok::Long {
                name: "--verbose" | "--version" | "--phy" | "--log" | "--help",
                ..
            }
            | Tok::Operand { .. } => {}
            Tok::Short {
                flag: c @ ('r' | 'R' | 'F' | 'A'),
                ..
            } => {
                return Verdict::write(Risk::MediumWrite, format!("`-{c}` changes the link"));
            }
            Tok::Short { flag, .. } => {
                return Verdict::unknown(format!("unknown option `-{flag}`"));
            }
            Tok::Long { name, .. } => {
                return Verdict::write(Risk::MediumWrite, format!("`{name}` changes the link"));
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args[index].raw),
        }
    }
    if watch {
        return stream("`-w` watches the link until interrupted");
    }
    Verdict::Read
}

pub(super) fn nmtui(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "a full-screen program that edits connections",
    )
}

pub(super) fn brctl(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        None | Some("show" | "showmacs" | "showstp" | "-h" | "--help" | "-V" | "--version") => {
            Verdict::Read
        }
        Some(
            sub @ ("addbr" | "delbr" | "addif" | "delif" | "setageing" | "setgcint" | "setfd"
            | "sethello" | "setmaxage" | "setpathcost" | "setportprio" | "setbridgeprio"
            | "stp" | "hairpin"),
        ) => Verdict::write(Risk::MediumWrite, format!("`{sub}` changes a bridge")),
        Some(sub) => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

pub(super) fn wg(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        None
        | Some(
            "show" | "showconf" | "genkey" | "genpsk" | "pubkey" | "help" | "--help" | "-h"
            | "--version",
        ) => Verdict::Read,
        Some(sub @ ("set" | "setconf" | "addconf" | "syncconf")) => Verdict::write(
            Risk::MediumWrite,
            format!("`{sub}` changes a WireGuard interface"),
        ),
        Some(sub) => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

pub(super) fn wg_quick(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        None | Some("strip" | "-h" | "--help" | "help") => Verdict::Read,
        Some("down") => Verdict::write(Risk::HighWrite, "`down` takes the tunnel down"),
        Some(sub @ ("up" | "save")) => Verdict::write(
            Risk::MediumWrite,
            format!("`{sub}` changes a WireGuard tunnel"),
        ),
        Some(sub) => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

/// `iftop -t -s N` prints N seconds of text and exits; otherwise full screen.
pub(super) fn iftop(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('t') && inv.has_short('s') {
        return Verdict::Read;
    }
    stream("a full-screen monitor; `-t -s N` prints N seconds and exits")
}

/// `nethogs -t -c N` prints N refreshes and exits; otherwise full screen.
pub(super) fn nethogs(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('t') && inv.has_short('c') {
        return Verdict::Read;
    }
    stream("a full-screen monitor; `-t -c N` prints N refreshes and exits")
}

pub(super) fn full_screen(_: &Invocation<'_, '_>) -> Verdict {
    stream("a full-screen monitor that runs until interrupted")
}

pub(super) fn vnstat(inv: &Invocation<'_, '_>) -> Verdict {
    const WRITES: &[&str] = &[
        "--add",
        "--remove",
        "--rename",
        "--setalias",
        "--update",
        "--reset",
        "--create",
        "--delete",
        "--sync",
        "--enable",
        "--disable",
        "--cleartop",
        "--rebuildtotal",
        "--importdb",
        "--force",
    ];
    if let Some(w) = WRITES.iter().find(|w| inv.has_long(w)) {
        return Verdict::write(Risk::MediumWrite, format!("`{w}` changes the database"));
    }
    if inv.has_word(&["-u", "-r"]) {
        return Verdict::write(Risk::MediumWrite, "changes the database");
    }
    if inv.has_word(&["-l", "--live"]) {
        return stream("`--live` runs until interrupted");
    }
    Verdict::Read
}

/// `lldpctl [-f FORMAT] [-d] [INTERFACE…]` shows LLDP neighbours.
pub(super) fn lldpctl(inv: &Invocation<'_, '_>) -> Verdict {
    let mut args = inv.args.iter().map(|a| (a.is_literal(), a.as_str()));
    while let Some((literal, text)) = args.next() {
        match text {
            _ if !literal => return Verdict::unknown("an argument comes from an expansion"),
            "-f" | "-u" => {
                args.next();
            }
            "-d" | "-v" | "-h" => {}
            _ if text.starts_with('-') => {
                return Verdict::unknown(format!("unknown option `{text}`"));
            }
            _ => {}
        }
    }
    Verdict::Read
}
