//! iproute2: `ip`, `bridge` and `tc`.
//!
//! iproute2 matches options, objects and actions by prefix, in the order its
//! source lists them (`ip a s` is `address show`, `ip l s` is `link set`).
//! The tables below keep that order; an object without an action shows.

use super::resolve;
use crate::invocation::Invocation;
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// What an action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    Read,
    Write(Risk),
    Unknown,
    /// Prints events until interrupted.
    Stream,
    /// Runs a command (`ip netns exec NS CMD`).
    Exec,
}

use Act::{Read as R, Stream as S, Unknown as U};
const M: Act = Act::Write(Risk::MediumWrite);
const H: Act = Act::Write(Risk::HighWrite);
const L: Act = Act::Write(Risk::LowWrite);

/// How an object reads its remaining words.
#[derive(Debug, Clone, Copy)]
enum Obj {
    /// `OBJECT [ACTION …]`, no action meaning show.
    Table(&'static [(&'static str, Act)]),
    /// `OBJECT SUBOBJECT [ACTION …]` (`ip mptcp endpoint show`).
    Nested(&'static [(&'static str, Act)]),
    Netns,
    Vrf,
    Xfrm,
    /// The whole object is one action (`ip monitor`, `ip help`).
    Whole(Act),
}

const ADDR: &[(&str, Act)] = &[
    ("add", M),
    ("change", M),
    ("chg", M),
    ("replace", M),
    ("delete", H),
    ("list", R),
    ("show", R),
    ("lst", R),
    ("flush", H),
    ("save", U),
    ("showdump", R),
    ("restore", M),
    ("help", R),
];
const ROUTE: &[(&str, Act)] = &[
    ("add", M),
    ("change", M),
    ("chg", M),
    ("replace", M),
    ("prepend", M),
    ("append", M),
    ("test", U),
    ("delete", H),
    ("list", R),
    ("show", R),
    ("lst", R),
    ("get", R),
    ("flush", H),
    ("save", U),
    ("restore", M),
    ("showdump", R),
    ("help", R),
];
const RULE: &[(&str, Act)] = &[
    ("list", R),
    ("lst", R),
    ("show", R),
    ("save", U),
    ("restore", M),
    ("showdump", R),
    ("add", M),
    ("delete", H),
    ("flush", H),
    ("help", R),
];
const NEIGH: &[(&str, Act)] = &[
    ("add", M),
    ("change", M),
    ("chg", M),
    ("replace", M),
    ("delete", M),
    ("get", R),
    ("show", R),
    ("lst", R),
    ("list", R),
    ("flush", M),
    ("help", R),
];
const LINK: &[(&str, Act)] = &[
    ("add", M),
    ("set", M),
    ("change", M),
    ("replace", M),
    ("delete", H),
    ("show", R),
    ("lst", R),
    ("list", R),
    ("xstats", R),
    ("afstats", R),
    ("property", M),
    ("help", R),
];
const SHOW_ONLY: &[(&str, Act)] = &[("show", R), ("list", R), ("lst", R), ("help", R)];
/// Objects with the usual verbs: maddress, tunnel, tuntap, l2tp, fou, …
const GENERIC: &[(&str, Act)] = &[
    ("add", M),
    ("change", M),
    ("chg", M),
    ("replace", M),
    ("set", M),
    ("delete", H),
    ("del", H),
    ("show", R),
    ("list", R),
    ("lst", R),
    ("get", R),
    ("flush", H),
    ("help", R),
];
const TUNNEL: &[(&str, Act)] = &[
    ("add", M),
    ("change", M),
    ("chg", M),
    ("delete", H),
    ("show", R),
    ("list", R),
    ("lst", R),
    ("prl", M),
    ("6rd", M),
    ("help", R),
];
const ADDRLABEL: &[(&str, Act)] = &[
    ("list", R),
    ("add", M),
    ("delete", M),
    ("flush", M),
    ("help", R),
];
const NTABLE: &[(&str, Act)] = &[
    ("change", M),
    ("show", R),
    ("list", R),
    ("lst", R),
    ("help", R),
];
const TCP_METRICS: &[(&str, Act)] = &[
    ("show", R),
    ("list", R),
    ("lst", R),
    ("delete", M),
    ("flush", M),
    ("help", R),
];
const TOKEN: &[(&str, Act)] = &[
    ("list", R),
    ("lst", R),
    ("set", M),
    ("get", R),
    ("del", M),
    ("help", R),
];
const NEXTHOP: &[(&str, Act)] = &[
    ("add", M),
    ("replace", M),
    ("delete", H),
    ("show", R),
    ("list", R),
    ("lst", R),
    ("flush", H),
    ("get", R),
    ("bucket", U),
    ("help", R),
];
const STATS: &[(&str, Act)] = &[("show", R), ("set", M), ("help", R)];
const NESTED: &[(&str, Act)] = &[
    ("add", M),
    ("set", M),
    ("change", M),
    ("delete", H),
    ("del", H),
    ("flush", H),
    ("show", R),
    ("list", R),
    ("get", R),
    ("help", R),
];
const NETNS: &[(&str, Act)] = &[
    ("list", R),
    ("show", R),
    ("lst", R),
    ("list-id", R),
    ("help", R),
    ("add", L),
    ("set", M),
    ("delete", H),
    ("identify", R),
    ("pids", R),
    ("exec", Act::Exec),
    ("monitor", S),
    ("attach", M),
];
const VRF: &[(&str, Act)] = &[
    ("show", R),
    ("exec", Act::Exec),
    ("identify", R),
    ("pids", R),
    ("help", R),
];
const XFRM: &[(&str, Act)] = &[
    ("add", M),
    ("update", M),
    ("allocspi", M),
    ("delete", H),
    ("deleteall", H),
    ("get", R),
    ("getdefault", R),
    ("list", R),
    ("flush", H),
    ("count", R),
    ("set", M),
    ("setdefault", M),
    ("help", R),
];

/// `ip` objects in the order of iproute2's `ip.c`.
const IP_OBJECTS: &[(&str, Obj)] = &[
    ("address", Obj::Table(ADDR)),
    ("addrlabel", Obj::Table(ADDRLABEL)),
    ("maddress", Obj::Table(GENERIC)),
    ("route", Obj::Table(ROUTE)),
    ("rule", Obj::Table(RULE)),
    ("neighbor", Obj::Table(NEIGH)),
    ("neighbour", Obj::Table(NEIGH)),
    ("ntable", Obj::Table(NTABLE)),
    ("ntbl", Obj::Table(NTABLE)),
    ("link", Obj::Table(LINK)),
    ("l2tp", Obj::Table(GENERIC)),
    ("fou", Obj::Table(GENERIC)),
    ("ila", Obj::Table(GENERIC)),
    ("macsec", Obj::Table(GENERIC)),
    ("tunnel", Obj::Table(TUNNEL)),
    ("tunl", Obj::Table(TUNNEL)),
    ("tuntap", Obj::Table(GENERIC)),
    ("tap", Obj::Table(GENERIC)),
    ("token", Obj::Table(TOKEN)),
    ("tcpmetrics", Obj::Table(TCP_METRICS)),
    ("tcp_metrics", Obj::Table(TCP_METRICS)),
    ("monitor", Obj::Whole(S)),
    ("xfrm", Obj::Xfrm),
    ("mroute", Obj::Table(SHOW_ONLY)),
    ("mrule", Obj::Table(RULE)),
    ("netns", Obj::Netns),
    ("netconf", Obj::Table(SHOW_ONLY)),
    ("vrf", Obj::Vrf),
    ("sr", Obj::Nested(NESTED)),
    ("nexthop", Obj::Table(NEXTHOP)),
    ("mptcp", Obj::Nested(NESTED)),
    ("ioam", Obj::Nested(NESTED)),
    ("stats", Obj::Table(STATS)),
    ("help", Obj::Whole(R)),
];

/// What a global option is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Flag,
    /// Takes the next word.
    Value,
    /// Reads commands from a file (`-batch`).
    Batch,
}

/// `ip` options in the order `ip.c` tries them.
const IP_OPTIONS: &[(&str, Opt)] = &[
    ("-loops", Opt::Value),
    ("-family", Opt::Value),
    ("-4", Opt::Flag),
    ("-6", Opt::Flag),
    ("-0", Opt::Flag),
    ("-M", Opt::Flag),
    ("-B", Opt::Flag),
    ("-human-readable", Opt::Flag),
    ("-iec", Opt::Flag),
    ("-stats", Opt::Flag),
    ("-statistics", Opt::Flag),
    ("-details", Opt::Flag),
    ("-resolve", Opt::Flag),
    ("-oneline", Opt::Flag),
    ("-timestamp", Opt::Flag),
    ("-tshort", Opt::Flag),
    ("-Version", Opt::Flag),
    ("-force", Opt::Flag),
    ("-batch", Opt::Batch),
    ("-brief", Opt::Flag),
    ("-json", Opt::Flag),
    ("-pretty", Opt::Flag),
    ("-rcvbuf", Opt::Value),
    ("-color", Opt::Flag),
    ("-help", Opt::Flag),
    ("-netns", Opt::Value),
    ("-Numeric", Opt::Flag),
    ("-all", Opt::Flag),
    ("-echo", Opt::Flag),
];

const BRIDGE_OPTIONS: &[(&str, Opt)] = &[
    ("-help", Opt::Flag),
    ("-Version", Opt::Flag),
    ("-stats", Opt::Flag),
    ("-statistics", Opt::Flag),
    ("-details", Opt::Flag),
    ("-timestamp", Opt::Flag),
    ("-tshort", Opt::Flag),
    ("-family", Opt::Value),
    ("-4", Opt::Flag),
    ("-6", Opt::Flag),
    ("-netns", Opt::Value),
    ("-compressvlans", Opt::Flag),
    ("-force", Opt::Flag),
    ("-json", Opt::Flag),
    ("-pretty", Opt::Flag),
    ("-batch", Opt::Batch),
    ("-color", Opt::Flag),
    ("-oneline", Opt::Flag),
    ("-Numeric", Opt::Flag),
];

const TC_OPTIONS: &[(&str, Opt)] = &[
    ("-stats", Opt::Flag),
    ("-statistics", Opt::Flag),
    ("-details", Opt::Flag),
    ("-raw", Opt::Flag),
    ("-pretty", Opt::Flag),
    ("-Version", Opt::Flag),
    ("-iec", Opt::Flag),
    ("-help", Opt::Flag),
    ("-graph", Opt::Flag),
    ("-batch", Opt::Batch),
    ("-force", Opt::Flag),
    ("-OK", Opt::Flag),
    ("-netns", Opt::Value),
    ("-names", Opt::Flag),
    ("-nm", Opt::Flag),
    ("-cf", Opt::Value),
    ("-conf", Opt::Value),
    ("-timestamp", Opt::Flag),
    ("-tshort", Opt::Flag),
    ("-json", Opt::Flag),
    ("-color", Opt::Flag),
    ("-Numeric", Opt::Flag),
    ("-echo", Opt::Flag),
];

const BRIDGE_LINK: &[(&str, Act)] = &[
    ("set", M),
    ("change", M),
    ("show", R),
    ("lst", R),
    ("list", R),
    ("help", R),
];
const FDB: &[(&str, Act)] = &[
    ("add", M),
    ("append", M),
    ("delete", M),
    ("replace", M),
    ("show", R),
    ("lst", R),
    ("list", R),
    ("get", R),
    ("flush", H),
    ("help", R),
];
const VLAN: &[(&str, Act)] = &[
    ("add", M),
    ("delete", M),
    ("set", M),
    ("show", R),
    ("lst", R),
    ("list", R),
    ("tunnelshow", R),
    ("global", U),
    ("help", R),
];
const BRIDGE_OBJECTS: &[(&str, Obj)] = &[
    ("link", Obj::Table(BRIDGE_LINK)),
    ("fdb", Obj::Table(FDB)),
    ("mdb", Obj::Table(FDB)),
    ("vlan", Obj::Table(VLAN)),
    ("monitor", Obj::Whole(S)),
    ("vni", Obj::Table(GENERIC)),
    ("help", Obj::Whole(R)),
];

const QDISC: &[(&str, Act)] = &[
    ("add", M),
    ("change", M),
    ("chg", M),
    ("replace", M),
    ("link", M),
    ("delete", M),
    ("show", R),
    ("list", R),
    ("lst", R),
    ("get", R),
    ("help", R),
];
const TC_ACTIONS: &[(&str, Act)] = &[
    ("add", M),
    ("change", M),
    ("replace", M),
    ("delete", M),
    ("get", R),
    ("list", R),
    ("ls", R),
    ("show", R),
    ("flush", H),
    ("help", R),
];
const TC_OBJECTS: &[(&str, Obj)] = &[
    ("qdisc", Obj::Table(QDISC)),
    ("class", Obj::Table(QDISC)),
    ("filter", Obj::Table(QDISC)),
    ("chain", Obj::Table(QDISC)),
    ("actions", Obj::Table(TC_ACTIONS)),
    ("monitor", Obj::Whole(S)),
    ("exec", Obj::Whole(U)),
    ("help", Obj::Whole(R)),
];

/// Skips the global options: the index of the object word and whether
/// `-all` was given, or the verdict for an unknown option or a batch file.
fn skip_options(
    inv: &Invocation<'_, '_>,
    options: &[(&'static str, Opt)],
) -> Result<(usize, bool), Box<Verdict>> {
    let mut i = 0;
    let mut all = false;
    while let Some(text) = inv.arg(i) {
        if text == "--" {
            return Ok((i + 1, all));
        }
        if !text.starts_with('-') {
            break;
        }
        // iproute2 takes `--json` like `-json`, and `-color=auto`.
        let opt = text
            .strip_prefix('-')
            .filter(|o| o.starts_with('-'))
            .unwrap_or(text);
        let head = opt.split_once('=').map_or(opt, |(h, _)| h);
        if head.len() < 2 {
            return Err(Box::new(Verdict::unknown(format!(
                "unknown option `{text}`"
            ))));
        }
        match resolve(head, options) {
            Some(Opt::Flag) => all |= "-all".starts_with(head),
            Some(Opt::Value) => i += 1,
            Some(Opt::Batch) => {
                return Err(Box::new(Verdict::unknown(
                    "`-batch` runs commands from a file",
                )));
            }
            None => {
                return Err(Box::new(Verdict::unknown(format!(
                    "unknown option `{text}`"
                ))));
            }
        }
        i += 1;
    }
    Ok((i, all))
}

fn act_verdict(act: Act, word: &str) -> Verdict {
    match act {
        Act::Read => Verdict::Read,
        Act::Write(risk) => Verdict::write(risk, format!("action `{word}` changes the network")),
        Act::Unknown | Act::Exec => {
            Verdict::unknown(format!("action `{word}` is not known to be read-only"))
        }
        Act::Stream => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            format!("`{word}` prints events until interrupted"),
        ),
    }
}

/// Resolves `inv.arg(at)` as an action of `table`; none means show.
fn table_action(inv: &Invocation<'_, '_>, at: usize, table: &[(&'static str, Act)]) -> Verdict {
    match inv.arg(at) {
        None => Verdict::Read,
        Some(word) => match resolve(word, table) {
            Some(act) => act_verdict(act, word),
            None => Verdict::unknown(format!("unknown action `{word}`")),
        },
    }
}

fn objects(
    inv: &Invocation<'_, '_>,
    options: &[(&'static str, Opt)],
    objects: &[(&'static str, Obj)],
) -> Verdict {
    let (start, all) = match skip_options(inv, options) {
        Ok(found) => found,
        Err(verdict) => return *verdict,
    };
    let Some(word) = inv.arg(start) else {
        // No object: prints usage (or the version with `-V`).
        return Verdict::Read;
    };
    let Some(obj) = resolve(word, objects) else {
        return Verdict::unknown(format!("unknown object `{word}`"));
    };
    let at = start + 1;
    match obj {
        Obj::Table(table) => table_action(inv, at, table),
        Obj::Whole(act) => act_verdict(act, word),
        Obj::Nested(table) => match inv.arg(at) {
            None => Verdict::Read,
            Some(sub) if sub.len() >= 2 && "monitor".starts_with(sub) => act_verdict(S, sub),
            Some(sub) if "help".starts_with(sub) => Verdict::Read,
            Some(_) => table_action(inv, at + 1, table),
        },
        Obj::Xfrm => {
            const SUB: &[(&str, u8)] = &[("state", 0), ("policy", 0), ("monitor", 1), ("help", 2)];
            match inv.arg(at).map(|w| (w, resolve(w, SUB))) {
                None => Verdict::Read,
                Some((_, Some(0))) => table_action(inv, at + 1, XFRM),
                Some((w, Some(1))) => act_verdict(S, w),
                Some((_, Some(_))) => Verdict::Read,
                Some((w, None)) => Verdict::unknown(format!("unknown xfrm object `{w}`")),
            }
        }
        Obj::Netns | Obj::Vrf => {
            let (table, via) = if matches!(obj, Obj::Netns) {
                (NETNS, "ip netns exec")
            } else {
                (VRF, "ip vrf exec")
            };
            let Some(action) = inv.arg(at) else {
                return Verdict::Read;
            };
            match resolve(action, table) {
                // `ip netns exec NS CMD…`; with `-all`, no NS.
                Some(Act::Exec) => {
                    let inner = if all && matches!(obj, Obj::Netns) {
                        at + 1
                    } else {
                        at + 2
                    };
                    if inv.arg(inner).is_some() {
                        Verdict::wrap_argv(via, inner)
                    } else {
                        Verdict::unknown("`exec` without a command")
                    }
                }
                Some(act) => act_verdict(act, action),
                None => Verdict::unknown(format!("unknown action `{action}`")),
            }
        }
    }
}

pub(super) fn ip(inv: &Invocation<'_, '_>) -> Verdict {
    objects(inv, IP_OPTIONS, IP_OBJECTS)
}

pub(super) fn bridge(inv: &Invocation<'_, '_>) -> Verdict {
    objects(inv, BRIDGE_OPTIONS, BRIDGE_OBJECTS)
}

pub(super) fn tc(inv: &Invocation<'_, '_>) -> Verdict {
    objects(inv, TC_OPTIONS, TC_OBJECTS)
}
