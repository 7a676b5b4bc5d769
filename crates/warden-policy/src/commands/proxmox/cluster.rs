//! The Proxmox node and cluster: `pvesh`, `pvesm`, `pvecm`, `ha-manager`,
//! `pvenode`, `pveum`, `pveam`, `pvesubscription`, `pve-firewall`,
//! `pveversion`, `pvereport`.
use super::{PveRead, pve, pve_cli};
use crate::commands::common::{Globs, bad, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

/// API paths whose GET handler does more than read: a websocket to a
/// console, a request to any URL.
const PVESH_NOT_READ: &[&str] = &[
    "vncwebsocket",
    "query-url-metadata",
    "termproxy",
    "vncproxy",
];

/// `pvesh get|ls|usage PATH [--param value]…`: a GET of the API. Its
/// parameters are the path's, so any `--name value` is taken; the path
/// must be literal and not one of [`PVESH_NOT_READ`].
pub(super) fn pvesh(inv: &Invocation<'_, '_>) -> Verdict {
    let Some(sub) = inv.args.first().filter(|a| a.is_literal()) else {
        return Verdict::unknown("no subcommand");
    };
    match sub.as_str() {
        "get" | "ls" | "usage" => {}
        "help" => return Verdict::Read,
        other => return Verdict::unknown(format!("`pvesh {other}` is not known to be read-only")),
    }
    // pvesh's own options only format the output; the others are the
    // path's parameters. The path is the first operand.
    if let Some(arg) = inv.args.iter().find(|a| !a.is_literal()) {
        return bad(arg.raw);
    }
    let path = inv.args[1..]
        .iter()
        .map(|a| a.as_str())
        .find(|t| !t.starts_with('-'));
    match path {
        Some(path)
            if path
                .split('/')
                .any(|segment| PVESH_NOT_READ.contains(&segment)) =>
        {
            Verdict::unknown(format!("`{path}` is not a read-only API path"))
        }
        Some(_) => Verdict::Read,
        None => Verdict::unknown("no API path"),
    }
}

pub(super) fn pvesm(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pve!(["status"], values: ["--content", "--storage", "--target", "--format"], flags: ["--enabled"]),
        pve!(["list"], values: ["--content", "--vmid"], flags: []),
        pve!(["path"]),
        pve!(["extractconfig"]),
        pve!(["apiinfo"]),
        pve!(["scan"], values: ["--username", "--password", "--domain", "--fingerprint", "--port", "--smbversion", "--vg"], flags: []),
    ];
    pve_cli(inv, "pvesm", READS)
}

/// `pveceph`: the cluster's Ceph as Proxmox manages it; only its listings
/// read (`init`, `install`, `createosd`, `pool create` … change it).
pub(super) fn pveceph(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pve!(["status"]),
        pve!(["pool", "ls"]),
        pve!(["pool", "list"]),
        pve!(["pool", "get"], values: [], flags: ["--verbose"]),
        pve!(["lspools"]),
        pve!(["fs", "ls"]),
        pve!(["fs", "list"]),
    ];
    pve_cli(inv, "pveceph", READS)
}

pub(super) fn pvecm(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[pve!(["status"]), pve!(["nodes"])];
    pve_cli(inv, "pvecm", READS)
}

pub(super) fn ha_manager(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pve!(["status"], values: [], flags: ["--verbose"]),
        pve!(["config"], values: ["--type"], flags: []),
        pve!(["groupconfig"]),
        pve!(["rules", "config"], values: ["--type", "--resource"], flags: []),
    ];
    pve_cli(inv, "ha-manager", READS)
}

pub(super) fn pvenode(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pve!(["config", "get"], values: ["--property"], flags: []),
        pve!(["cert", "info"]),
        pve!(
            ["task", "list"],
            values: ["--limit", "--since", "--source", "--start", "--typefilter", "--until", "--userfilter", "--vmid", "--statusfilter"],
            flags: ["--errors"]
        ),
        pve!(["task", "log"], values: ["--start"], flags: []),
        pve!(["task", "status"]),
        pve!(["acme", "account", "list"]),
        pve!(["acme", "plugin", "list"], values: ["--type"], flags: []),
    ];
    pve_cli(inv, "pvenode", READS)
}

pub(super) fn pveum(inv: &Invocation<'_, '_>) -> Verdict {
    const LIST: &[&str] = &["--enabled", "--full"];
    const READS: &[PveRead] = &[
        PveRead {
            words: &["user", "list"],
            params: Options {
                long_optional: LIST,
                ..Options::GNU
            },
        },
        pve!(["user", "permissions"], values: ["--path"], flags: []),
        pve!(["user", "token", "list"]),
        pve!(["user", "token", "permissions"], values: ["--path"], flags: []),
        pve!(["user", "tfa", "list"]),
        pve!(["group", "list"]),
        pve!(["role", "list"]),
        pve!(["acl", "list"]),
        pve!(["realm", "list"]),
        pve!(["pool", "list"], values: ["--poolid", "--type"], flags: []),
    ];
    pve_cli(inv, "pveum", READS)
}

pub(super) fn pveam(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pve!(["available"], values: ["--section"], flags: []),
        pve!(["list"]),
    ];
    pve_cli(inv, "pveam", READS)
}

pub(super) fn pvesubscription(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[pve!(["get"])];
    pve_cli(inv, "pvesubscription", READS)
}

pub(super) fn pve_firewall(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[PveRead] = &[
        pve!(["status"]),
        pve!(["compile"]),
        pve!(["localnet"]),
        pve!(
            ["simulate"],
            values: ["--from", "--to", "--dest", "--dport", "--protocol", "--source", "--sport"],
            flags: ["--verbose"]
        ),
    ];
    pve_cli(inv, "pve-firewall", READS)
}

/// `pveversion [-v]`.
pub(super) fn pveversion(inv: &Invocation<'_, '_>) -> Verdict {
    const PVEVERSION: Options = Options {
        short_flags: "vh",
        long_flags: &["--verbose", "--help"],
        ..Options::GNU
    };
    walk_checked(inv, &[&PVEVERSION], Globs::Refused, |_| None)
}

/// `pvereport` prints a report of the node; it takes no arguments.
pub(super) fn pvereport(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&Options::GNU], Globs::Refused, |tok| {
        matches!(tok, Tok::Operand { .. }).then(|| Verdict::unknown("unexpected operand"))
    })
}
