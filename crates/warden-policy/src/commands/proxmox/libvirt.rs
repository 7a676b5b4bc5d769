//! libvirt, plain LXC and QEMU image tools.
use crate::commands::common::{Globs, bad, first_pos, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

/// virsh's own options (before the command). `-l FILE` logs to a file and
/// is not here.
const VIRSH: Options = Options {
    short_flags: "rqthvV",
    short_values: "cdkK",
    long_flags: &["--readonly", "--quiet", "--timing", "--help", "--version"],
    long_values: &[
        "--connect",
        "--debug",
        "--keepalive-interval",
        "--keepalive-count",
    ],
    long_optional: &["--version"],
    style: Style::GnuStopAtOperand,
    ..Options::GNU
};

const VIRSH_READS: &[&str] = &[
    "list",
    "dominfo",
    "domstate",
    "domblklist",
    "domiflist",
    "dumpxml",
    "net-list",
    "net-info",
    "net-dumpxml",
    "net-dhcp-leases",
    "pool-list",
    "pool-info",
    "pool-dumpxml",
    "vol-list",
    "vol-info",
    "nodeinfo",
    "capabilities",
    "version",
    "snapshot-list",
    "snapshot-info",
    "domstats",
    "domifaddr",
    "vcpuinfo",
    "dommemstat",
    "domblkinfo",
    "domblkstat",
    "domifstat",
    "nodememstats",
    "nodecpustats",
    "hostname",
    "uri",
    "sysinfo",
    "iface-list",
    "nwfilter-list",
    "secret-list",
    "help",
];

/// `virsh [options] COMMAND [ARGS]`: the read-only commands. Their own
/// options only select what to show; an argument with `;` or a newline
/// would start another command, so it is refused.
pub(super) fn virsh(inv: &Invocation<'_, '_>) -> Verdict {
    let Some((index, sub)) = first_pos(&VIRSH, inv.args) else {
        if inv.args.is_empty() {
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "opens the virsh shell",
            );
        }
        return walk_checked(inv, &[&VIRSH], Globs::Refused, |_| None);
    };
    let globals = Invocation::new(inv.name, &inv.args[..index]);
    let global = walk_checked(&globals, &[&VIRSH], Globs::Refused, |_| None);
    if global != Verdict::Read {
        return global;
    }
    if sub == "console" {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens an interactive console",
        );
    }
    if !VIRSH_READS.contains(&sub) {
        return Verdict::unknown(format!("`virsh {sub}` is not known to be read-only"));
    }
    match inv.args[index..]
        .iter()
        .find(|a| !a.is_literal() || a.as_str().contains([';', '\n']))
    {
        Some(arg) => bad(arg.raw),
        None => Verdict::Read,
    }
}

const QEMU_IMG: Options = Options {
    short_flags: "qUpsh",
    short_values: "fFTlO",
    long_flags: &[
        "--image-opts",
        "--force-share",
        "--backing-chain",
        "--help",
        "--version",
        "--limits",
    ],
    long_values: &[
        "--output",
        "--start-offset",
        "--max-length",
        "--size",
        "--snapshot",
    ],
    ..Options::GNU
};

/// `qemu-img info|check|compare|map|measure` on image files. `check -r`
/// repairs, `--object` creates objects; an image name with `:` may be a
/// network protocol (`nbd://`, `ssh://`) or JSON options.
pub(super) fn qemu_img(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &["info", "check", "compare", "map", "measure"];
    let Some(sub) = inv.args.first() else {
        return Verdict::unknown("no command");
    };
    if matches!(sub.as_str(), "--version" | "--help" | "-h" | "-V") && inv.args.len() == 1 {
        return Verdict::Read;
    }
    if !sub.is_literal() || !READS.contains(&sub.as_str()) {
        return Verdict::unknown(format!(
            "`qemu-img {}` is not known to be read-only",
            sub.raw
        ));
    }
    walk_checked(
        &inv.from(1),
        &[&QEMU_IMG],
        Globs::Refused,
        |tok| match tok {
            Tok::Operand { text, .. } if text.contains(':') => Some(Verdict::unknown(format!(
                "`{text}` may name a network image"
            ))),
            _ => None,
        },
    )
}

/// `lxc-ls`: listing options; `-o FILE` logs to a file and is not here.
pub(super) fn lxc_ls(inv: &Invocation<'_, '_>) -> Verdict {
    const LXC_LS: Options = Options {
        short_flags: "1fqh",
        short_values: "FPgl",
        long_flags: &[
            "--fancy",
            "--active",
            "--frozen",
            "--running",
            "--stopped",
            "--defined",
            "--quiet",
            "--help",
            "--version",
        ],
        long_values: &[
            "--fancy-format",
            "--lxcpath",
            "--groups",
            "--filter",
            "--logpriority",
        ],
        long_optional: &["--nesting"],
        ..Options::GNU
    };
    walk_checked(inv, &[&LXC_LS], Globs::Refused, |_| None)
}

/// `lxc-info -n NAME`: state, pid, addresses, statistics.
pub(super) fn lxc_info(inv: &Invocation<'_, '_>) -> Verdict {
    const LXC_INFO: Options = Options {
        short_flags: "spiSHqh",
        short_values: "ncPl",
        long_flags: &[
            "--state",
            "--pid",
            "--ips",
            "--stats",
            "--no-humanize",
            "--quiet",
            "--help",
            "--version",
        ],
        long_values: &["--name", "--config", "--lxcpath", "--logpriority"],
        ..Options::GNU
    };
    walk_checked(inv, &[&LXC_INFO], Globs::Refused, |_| None)
}
