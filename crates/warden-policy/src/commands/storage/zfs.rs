//! ZFS: `zpool`, `zfs`, and the ARC tools.
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

use super::subcommand_in;

pub(super) fn zpool(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        Some("iostat") => {
            let numbers = inv
                .args
                .iter()
                .filter(|a| a.as_str().parse::<u32>().is_ok())
                .count();
            if numbers == 1 {
                Verdict::interactive(
                    InteractiveCategory::UnboundedStream,
                    "an interval without a count repeats forever",
                )
            } else {
                Verdict::Read
            }
        }
        Some("events") if inv.has_short('f') => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`events -f` follows forever",
        ),
        Some("events") if inv.has_short('c') => {
            Verdict::write(Risk::LowWrite, "`-c` clears the event log")
        }
        _ => subcommand_in(
            inv,
            &[
                "list", "status", "get", "history", "version", "help", "events",
            ],
        ),
    }
}

pub(super) fn zfs(inv: &Invocation<'_, '_>) -> Verdict {
    subcommand_in(
        inv,
        &[
            "list",
            "get",
            "holds",
            "userspace",
            "groupspace",
            "projectspace",
            "diff",
            "version",
            "help",
        ],
    )
}

/// `arcstat 1` repeats forever; `arcstat 1 5` stops.
pub(super) fn interval_count(inv: &Invocation<'_, '_>) -> Verdict {
    let numbers = inv
        .positionals(OptSpec::NONE)
        .filter(|(_, w)| w.parse::<f64>().is_ok())
        .count();
    if numbers == 1 {
        Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "an interval without a count repeats forever",
        )
    } else {
        Verdict::Read
    }
}
