//! Proxmox guests: `qm` (QEMU VMs) and `pct` (LXC containers).
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

use super::subcommand_in;

const QM_GUEST_READS: &[&str] = &[
    "info",
    "get-fsinfo",
    "get-host-name",
    "get-memory-blocks",
    "get-memory-block-info",
    "get-osinfo",
    "get-time",
    "get-timezone",
    "get-users",
    "get-vcpus",
    "network-get-interfaces",
    "ping",
];

pub(super) fn qm(inv: &Invocation<'_, '_>) -> Verdict {
    // `qm guest exec VMID [--timeout N] [--pass-stdin 1] [--] CMD…` runs CMD
    // in the guest: look through to it.
    if inv.arg(0) == Some("guest") && inv.arg(1) == Some("exec") {
        let start = match inv.args.iter().position(|a| a.as_str() == "--") {
            Some(dashes) => dashes + 1,
            None => {
                let mut i = 3;
                while let Some(a) = inv.args.get(i) {
                    match a.as_str() {
                        "--timeout" | "--pass-stdin" | "--synchronous" => i += 2,
                        _ => break,
                    }
                }
                i
            }
        };
        if inv.args.get(start).is_none() {
            return Verdict::unknown("no command to run in the guest");
        }
        return Verdict::wrap_argv("qm guest exec", start);
    }
    if matches!(inv.arg(0), Some("guest" | "agent")) {
        let words: Vec<&str> = inv.positionals(OptSpec::NONE).map(|(_, w)| w).collect();
        return match words.as_slice() {
            ["guest", "cmd", _, command] | ["agent", _, command]
                if QM_GUEST_READS.contains(command) =>
            {
                Verdict::Read
            }
            ["guest", "exec-status", ..] => Verdict::Read,
            _ => Verdict::unknown("guest agent command may change the guest"),
        };
    }
    if matches!(inv.arg(0), Some("terminal" | "monitor" | "vncproxy")) {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens the VM's console or monitor",
        );
    }
    subcommand_in(
        inv,
        &[
            "list",
            "config",
            "pending",
            "showcmd",
            "status",
            "listsnapshot",
            "help",
        ],
    )
}

pub(super) fn pct(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.arg(0) == Some("exec") {
        return match inv.args.iter().position(|a| a.as_str() == "--") {
            Some(i) => Verdict::wrap_argv("pct exec", i + 1),
            None => Verdict::wrap_argv("pct exec", 2),
        };
    }
    if matches!(inv.arg(0), Some("enter" | "console")) {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens a shell in the container",
        );
    }
    subcommand_in(
        inv,
        &[
            "list",
            "config",
            "pending",
            "status",
            "listsnapshot",
            "df",
            "cpusets",
            "help",
        ],
    )
}
