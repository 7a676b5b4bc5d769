//! systemd clients for logins, time, host names, locales, DNS and
//! networks.

use crate::commands::common::{
    Subs, bad, first_bad, first_pos, operands_after, subcommand_tool, variable_guard,
};
use crate::invocation::Invocation;
use crate::options::{Options, Style};
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;
const H: Risk = Risk::HighWrite;

/// Shown with at most `max` operands after the subcommand, set with more
/// (`resolvectl dns eth0` shows, `resolvectl dns eth0 1.1.1.1` sets).
pub(super) fn getter(
    inv: &Invocation<'_, '_>,
    spec: &'static Options,
    names: &[&str],
    max: usize,
) -> Option<Verdict> {
    let (index, sub) = first_pos(spec, inv.args)?;
    if !names.contains(&sub) {
        return None;
    }
    if operands_after(spec, inv.args, index).count() > max {
        return Some(Verdict::write(
            M,
            format!("`{sub}` with a value changes it"),
        ));
    }
    Some(match first_bad(spec, inv.args) {
        Some(word) => bad(word),
        None => variable_guard(inv).unwrap_or(Verdict::Read),
    })
}

const LOGINCTL: Options = Options {
    short_flags: "hjal",
    short_values: "pPsnoHM",
    short_optional: "",
    long_flags: &[
        "--help",
        "--version",
        "--no-pager",
        "--no-legend",
        "--no-ask-password",
        "--value",
        "--all",
        "--full",
    ],
    long_values: &[
        "--property",
        "--kill-whom",
        "--signal",
        "--lines",
        "--output",
        "--host",
        "--machine",
        "--json",
    ],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn loginctl(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_tool(
        inv,
        &LOGINCTL,
        &Subs {
            reads: &[
                "list-sessions",
                "session-status",
                "show-session",
                "list-users",
                "user-status",
                "show-user",
                "list-seats",
                "seat-status",
                "show-seat",
            ],
            writes: &[
                ("activate", M),
                ("lock-session", M),
                ("unlock-session", M),
                ("lock-sessions", M),
                ("unlock-sessions", M),
                ("terminate-session", H),
                ("kill-session", H),
                ("enable-linger", M),
                ("disable-linger", M),
                ("terminate-user", H),
                ("kill-user", H),
                ("attach", M),
                ("flush-devices", M),
                ("terminate-seat", H),
            ],
            what: "changes sessions or users",
            bare_read: true,
        },
    )
}

const TIMEDATECTL: Options = Options {
    short_flags: "ha",
    short_values: "pPHM",
    short_optional: "",
    long_flags: &[
        "--help",
        "--version",
        "--no-pager",
        "--no-ask-password",
        "--adjust-system-clock",
        "--monitor",
        "--all",
        "--value",
    ],
    long_values: &["--host", "--machine", "--property"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn timedatectl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long_abbrev("--monitor") {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`--monitor` follows the time sync status",
        );
    }
    subcommand_tool(
        inv,
        &TIMEDATECTL,
        &Subs {
            reads: &[
                "status",
                "show",
                "list-timezones",
                "timesync-status",
                "show-timesync",
            ],
            writes: &[
                ("set-time", M),
                ("set-timezone", M),
                ("set-local-rtc", M),
                ("set-ntp", M),
                ("ntp-servers", M),
                ("revert", M),
            ],
            what: "changes the clock or time settings",
            bare_read: true,
        },
    )
}

const HOSTNAMECTL: Options = Options {
    short_flags: "h",
    short_values: "HM",
    short_optional: "",
    long_flags: &[
        "--help",
        "--version",
        "--no-ask-password",
        "--transient",
        "--static",
        "--pretty",
    ],
    long_values: &["--host", "--machine", "--json"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn hostnamectl(inv: &Invocation<'_, '_>) -> Verdict {
    let getters = &["hostname", "icon-name", "chassis", "deployment", "location"];
    if let Some(v) = getter(inv, &HOSTNAMECTL, getters, 0) {
        return v;
    }
    subcommand_tool(
        inv,
        &HOSTNAMECTL,
        &Subs {
            reads: &["status"],
            writes: &[
                ("set-hostname", M),
                ("set-icon-name", M),
                ("set-chassis", M),
                ("set-deployment", M),
                ("set-location", M),
            ],
            what: "changes the host name",
            bare_read: true,
        },
    )
}

const LOCALECTL: Options = Options {
    short_flags: "h",
    short_values: "HM",
    short_optional: "",
    long_flags: &[
        "--help",
        "--version",
        "--no-ask-password",
        "--no-pager",
        "--no-convert",
    ],
    long_values: &["--host", "--machine"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn localectl(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_tool(
        inv,
        &LOCALECTL,
        &Subs {
            reads: &[
                "status",
                "list-locales",
                "list-keymaps",
                "list-x11-keymap-models",
                "list-x11-keymap-layouts",
                "list-x11-keymap-variants",
                "list-x11-keymap-options",
            ],
            writes: &[("set-locale", M), ("set-keymap", M), ("set-x11-keymap", M)],
            what: "changes the locale or keyboard",
            bare_read: true,
        },
    )
}

const RESOLVECTL: Options = Options {
    short_flags: "46hj",
    short_values: "iptc",
    short_optional: "",
    long_flags: &["--help", "--version", "--no-pager"],
    long_values: &[
        "--interface",
        "--protocol",
        "--type",
        "--class",
        "--service-address",
        "--service-txt",
        "--cname",
        "--validate",
        "--synthesize",
        "--cache",
        "--zone",
        "--trust-anchor",
        "--network",
        "--search",
        "--stale-data",
        "--relax-single-label",
        "--legend",
        "--json",
    ],
    long_optional: &["--raw"],
    style: Style::Gnu,
};

pub(super) fn resolvectl(inv: &Invocation<'_, '_>) -> Verdict {
    let link_settings = &[
        "dns",
        "domain",
        "default-route",
        "llmnr",
        "mdns",
        "dnsovertls",
        "dnssec",
        "nta",
    ];
    if let Some(v) = getter(inv, &RESOLVECTL, link_settings, 1) {
        return v;
    }
    if let Some(v) = getter(inv, &RESOLVECTL, &["log-level"], 0) {
        return v;
    }
    if matches!(first_pos(&RESOLVECTL, inv.args), Some((_, "monitor"))) {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`monitor` streams lookups forever",
        );
    }
    subcommand_tool(
        inv,
        &RESOLVECTL,
        &Subs {
            reads: &[
                "status",
                "query",
                "service",
                "openpgp",
                "tlsa",
                "statistics",
                "show-cache",
                "show-server-state",
            ],
            writes: &[
                ("flush-caches", Risk::LowWrite),
                ("reset-statistics", Risk::LowWrite),
                ("reset-server-features", Risk::LowWrite),
                ("revert", M),
            ],
            what: "changes the resolver state",
            bare_read: true,
        },
    )
}

/// The old `systemd-resolve` spells its actions as options.
pub(super) fn systemd_resolve(inv: &Invocation<'_, '_>) -> Verdict {
    const READ: &[&str] = &[
        "--status",
        "--statistics",
        "--help",
        "--version",
        "--no-pager",
        "--legend",
        "--service",
        "--openpgp",
        "--tlsa",
        "--raw",
        "--cname",
        "--search",
        "--cache",
        "--service-address",
        "--service-txt",
        "--interface",
        "--protocol",
        "--type",
        "--class",
        "-4",
        "-6",
        "-i",
        "-p",
        "-t",
        "-c",
        "-h",
    ];
    for arg in inv.option_args() {
        let t = arg.as_str();
        if !t.starts_with('-') {
            continue;
        }
        let head = t.split_once('=').map_or(t, |(h, _)| h);
        if head.starts_with("--set-")
            || matches!(
                head,
                "--flush-caches" | "--reset-statistics" | "--reset-server-features" | "--revert"
            )
        {
            return Verdict::write(Risk::LowWrite, format!("`{head}` changes the resolver"));
        }
        if !READ.contains(&head) {
            return bad(t);
        }
    }
    variable_guard(inv).unwrap_or(Verdict::Read)
}

const NETWORKCTL: Options = Options {
    short_flags: "aslh",
    short_values: "n",
    short_optional: "",
    long_flags: &[
        "--all",
        "--stats",
        "--full",
        "--help",
        "--version",
        "--no-pager",
        "--no-legend",
        "--no-reload",
        "--runtime",
    ],
    long_values: &["--lines", "--json", "--drop-in"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn networkctl(inv: &Invocation<'_, '_>) -> Verdict {
    if matches!(first_pos(&NETWORKCTL, inv.args), Some((_, "edit"))) {
        return Verdict::interactive_writer(InteractiveCategory::Pager, "`edit` opens an editor");
    }
    subcommand_tool(
        inv,
        &NETWORKCTL,
        &Subs {
            reads: &["list", "status", "lldp", "label", "cat"],
            writes: &[
                ("delete", H),
                ("up", M),
                ("down", H),
                ("renew", M),
                ("forcerenew", M),
                ("reconfigure", M),
                ("reload", M),
                ("persistent-storage", M),
                ("mask", M),
                ("unmask", M),
            ],
            what: "changes network links",
            bare_read: true,
        },
    )
}
