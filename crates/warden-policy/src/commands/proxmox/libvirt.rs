//! libvirt, plain LXC and QEMU image tools.
use crate::commands::common::sub_in;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

use super::subcommand_in;

pub(super) fn virsh(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.is_empty() || inv.arg(0) == Some("console") {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens an interactive console",
        );
    }
    subcommand_in(
        inv,
        &[
            "list",
            "dominfo",
            "domstate",
            "domblklist",
            "domiflist",
            "dumpxml",
            "net-list",
            "net-info",
            "pool-list",
            "vol-list",
            "nodeinfo",
            "capabilities",
            "version",
            "snapshot-list",
            "domstats",
            "domifaddr",
            "vcpuinfo",
            "dommemstat",
            "domblkinfo",
            "nodememstats",
            "nodecpustats",
            "hostname",
            "uri",
            "help",
        ],
    )
}

pub(super) fn qemu_img(inv: &Invocation<'_, '_>) -> Verdict {
    sub_in(
        inv,
        OptSpec::NONE,
        &[
            "info",
            "check",
            "compare",
            "map",
            "measure",
            "--version",
            "--help",
        ],
    )
}
