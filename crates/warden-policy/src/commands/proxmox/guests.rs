//! Proxmox guests: `qm` (QEMU VMs) and `pct` (LXC containers).
use super::{PveRead, pve, pve_cli};
use crate::invocation::Invocation;
use crate::verdict::*;

/// Guest agent commands that only read.
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
    let words: Vec<&str> = inv.args.iter().map(|a| a.as_str()).collect();
    match words.as_slice() {
        ["guest", "cmd", _, command] | ["agent", _, command]
            if QM_GUEST_READS.contains(command) && inv.args.iter().all(|a| a.is_literal()) =>
        {
            return Verdict::Read;
        }
        ["guest", "exec-status", _, _] if inv.args.iter().all(|a| a.is_literal()) => {
            return Verdict::Read;
        }
        ["guest" | "agent", ..] => {
            return Verdict::unknown("guest agent command may change the guest");
        }
        ["terminal" | "monitor" | "vncproxy", ..] => {
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "opens the VM's console or monitor",
            );
        }
        _ => {}
    }
    const READS: &[PveRead] = &[
        pve!(["list"], values: [], flags: ["--full"]),
        pve!(["config"], values: ["--snapshot"], flags: ["--current"]),
        pve!(["pending"]),
        pve!(["showcmd"], values: ["--snapshot"], flags: ["--pretty"]),
        pve!(["status"], values: [], flags: ["--verbose"]),
        pve!(["listsnapshot"]),
        pve!(["cloudinit", "dump"]),
        pve!(["cloudinit", "pending"]),
    ];
    pve_cli(inv, "qm", READS)
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
    const READS: &[PveRead] = &[
        pve!(["list"]),
        pve!(["config"], values: ["--snapshot"], flags: ["--current"]),
        pve!(["pending"]),
        pve!(["status"], values: [], flags: ["--verbose"]),
        pve!(["listsnapshot"]),
        pve!(["df"]),
        pve!(["cpusets"]),
    ];
    pve_cli(inv, "pct", READS)
}
