//! More systemd clients: D-Bus, analysis, cgroups, core dumps, udev,
//! the boot loader, machines, tmpfiles and transient units.

use super::sdtools::getter;
use crate::commands::common::{
    Subs, bad, first_bad, first_pos, help_only, subcommand_tool, variable_guard,
};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

const M: Risk = Risk::MediumWrite;
const H: Risk = Risk::HighWrite;

const BUSCTL: Options = Options {
    short_flags: "qlhj",
    short_values: "HMN",
    short_optional: "",
    long_flags: &[
        "--show-machine",
        "--unique",
        "--acquired",
        "--activatable",
        "--list",
        "--quiet",
        "--verbose",
        "--xml-interface",
        "--user",
        "--system",
        "--full",
        "--no-pager",
        "--no-legend",
        "--help",
        "--version",
    ],
    long_values: &[
        "--host",
        "--machine",
        "--address",
        "--match",
        "--size",
        "--json",
        "--expect-reply",
        "--auto-start",
        "--allow-interactive-authorization",
        "--timeout",
        "--augment-creds",
        "--watch-bind",
        "--destination",
        "--limit-messages",
    ],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn busctl(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some((_, "monitor" | "capture" | "wait")) = first_pos(&BUSCTL, inv.args) {
        let limited = BUSCTL.walk(inv.args).any(|t| {
            matches!(
                t,
                Tok::Short { flag: 'N', .. }
                    | Tok::Long {
                        name: "--limit-messages",
                        ..
                    }
            )
        });
        if !limited {
            return Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "watches the bus until stopped",
            );
        }
        return match first_bad(&BUSCTL, inv.args) {
            Some(word) => bad(word),
            None => Verdict::Read,
        };
    }
    subcommand_tool(
        inv,
        &BUSCTL,
        &Subs {
            reads: &[
                "list",
                "status",
                "tree",
                "introspect",
                "get-property",
                "help",
            ],
            writes: &[("call", M), ("emit", M), ("set-property", M)],
            what: "calls or changes a D-Bus service",
            bare_read: true,
        },
    )
}

const ANALYZE: Options = Options {
    short_flags: "hq",
    short_values: "HM",
    short_optional: "",
    long_flags: &[
        "--system",
        "--user",
        "--global",
        "--order",
        "--require",
        "--table",
        "--no-legend",
        "--no-pager",
        "--quiet",
        "--tldr",
        "--detailed",
        "--help",
        "--version",
    ],
    long_values: &[
        "--from-pattern",
        "--to-pattern",
        "--fuzz",
        "--instance",
        "--root",
        "--image",
        "--image-policy",
        "--iterations",
        "--base-time",
        "--host",
        "--machine",
        "--recursive-errors",
        "--offline",
        "--threshold",
        "--security-policy",
        "--json",
        "--profile",
        "--scale-svg",
        "--unit",
    ],
    long_optional: &["--man", "--generators"],
    style: Style::Gnu,
};

pub(super) fn systemd_analyze(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = getter(
        inv,
        &ANALYZE,
        &["log-level", "log-target", "service-watchdogs"],
        0,
    ) {
        return v;
    }
    subcommand_tool(
        inv,
        &ANALYZE,
        &Subs {
            reads: &[
                "time",
                "blame",
                "critical-chain",
                "dump",
                "plot",
                "dot",
                "unit-paths",
                "exit-status",
                "capability",
                "condition",
                "syscall-filter",
                "filesystems",
                "calendar",
                "timestamp",
                "timespan",
                "security",
                "inspect-elf",
                "fdstore",
                "image-policy",
                "has-tpm2",
                "pcrs",
                "srk",
                "architectures",
                "smbios11",
                "unit-files",
                "cat-config",
                "verify",
                "malloc",
                "compare-versions",
                "get-log-level",
                "get-log-target",
            ],
            writes: &[],
            what: "",
            bare_read: true,
        },
    )
}

/// `systemd-cgtop` refreshes forever unless `-n` bounds it.
pub(super) fn cgtop(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || inv.option_value(Some('n'), Some("--iterations")).is_some() {
        return Verdict::Read;
    }
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "refreshes until stopped without `-n`",
    )
}

const COREDUMPCTL: Options = Options {
    short_flags: "h1rq",
    short_values: "nSUFoDA",
    short_optional: "",
    long_flags: &[
        "--help",
        "--version",
        "--no-pager",
        "--no-legend",
        "--reverse",
        "--all",
        "--quiet",
    ],
    long_values: &[
        "--json",
        "--since",
        "--until",
        "--field",
        "--output",
        "--file",
        "--directory",
        "--root",
        "--image",
        "--debugger",
        "--debugger-arguments",
    ],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn coredumpctl(inv: &Invocation<'_, '_>) -> Verdict {
    for tok in COREDUMPCTL.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'o', .. }
            | Tok::Long {
                name: "--output", ..
            } => {
                return Verdict::write(Risk::LowWrite, "`-o` writes the core to a file");
            }
            Tok::Short { flag: 'A', .. }
            | Tok::Long {
                name: "--debugger" | "--debugger-arguments",
                ..
            } => {
                return Verdict::unknown("runs a debugger of the caller's choosing");
            }
            _ => {}
        }
    }
    if let Some((_, "debug" | "gdb")) = first_pos(&COREDUMPCTL, inv.args) {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens a debugger on the core",
        );
    }
    subcommand_tool(
        inv,
        &COREDUMPCTL,
        &Subs {
            reads: &["list", "info", "dump"],
            writes: &[],
            what: "",
            bare_read: true,
        },
    )
}

/// `udevadm`: `info` (without `--cleanup-db`), `verify` and `cat` read.
pub(super) fn udevadm(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-V") {
        return Verdict::Read;
    }
    let sub = inv
        .args
        .iter()
        .map(|a| a.as_str())
        .find(|t| !t.starts_with('-'));
    match sub {
        Some("info") => {
            if inv.has_short('c') || inv.has_long_abbrev("--cleanup-db") {
                return Verdict::write(
                    Risk::MediumWrite,
                    "`--cleanup-db` clears the udev database",
                );
            }
            variable_guard(inv).unwrap_or(Verdict::Read)
        }
        Some("verify" | "cat") => Verdict::Read,
        Some("monitor") => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`monitor` prints events forever",
        ),
        Some(
            sub @ ("trigger" | "control" | "settle" | "hwdb" | "test" | "test-builtin" | "lock"
            | "wait"),
        ) => Verdict::write(M, format!("subcommand `{sub}` changes or drives devices")),
        Some(sub) => Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only")),
        None => Verdict::unknown("no subcommand"),
    }
}

const BOOTCTL: Options = Options {
    short_flags: "hpxRq",
    short_values: "",
    short_optional: "",
    long_flags: &[
        "--help",
        "--version",
        "--print-esp-path",
        "--print-boot-path",
        "--print-root-device",
        "--print-loader-path",
        "--print-stub-path",
        "--no-variables",
        "--graceful",
        "--quiet",
        "--all-architectures",
        "--dry-run",
        "--no-pager",
    ],
    long_values: &[
        "--esp-path",
        "--boot-path",
        "--root",
        "--image",
        "--image-policy",
        "--install-source",
        "--make-entry-directory",
        "--make-machine-id-directory",
        "--entry-token",
        "--efi-boot-option-description",
        "--json",
        "--variables",
        "--random-seed",
    ],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn bootctl(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = getter(
        inv,
        &BOOTCTL,
        &["reboot-to-firmware", "systemd-efi-options"],
        0,
    ) {
        return v;
    }
    subcommand_tool(
        inv,
        &BOOTCTL,
        &Subs {
            reads: &[
                "status",
                "list",
                "is-installed",
                "kernel-identify",
                "kernel-inspect",
            ],
            writes: &[
                ("install", H),
                ("update", H),
                ("remove", H),
                ("set-default", M),
                ("set-oneshot", M),
                ("set-timeout", M),
                ("set-timeout-oneshot", M),
                ("random-seed", M),
                ("cleanup", M),
                ("unlink", H),
                ("link", M),
            ],
            what: "changes the boot loader",
            bare_read: true,
        },
    )
}

const MACHINECTL: Options = Options {
    short_flags: "hlaq",
    short_values: "pPsEnoHM",
    short_optional: "",
    long_flags: &[
        "--help",
        "--version",
        "--value",
        "--all",
        "--full",
        "--mkdir",
        "--read-only",
        "--force",
        "--quiet",
        "--no-pager",
        "--no-legend",
        "--no-ask-password",
        "--system",
        "--user",
    ],
    long_values: &[
        "--property",
        "--kill-whom",
        "--signal",
        "--uid",
        "--setenv",
        "--lines",
        "--output",
        "--verify",
        "--format",
        "--max-addresses",
        "--host",
        "--machine",
        "--runner",
    ],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn machinectl(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some((_, "shell" | "login")) = first_pos(&MACHINECTL, inv.args) {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens a shell in a container",
        );
    }
    subcommand_tool(
        inv,
        &MACHINECTL,
        &Subs {
            reads: &[
                "list",
                "status",
                "show",
                "list-images",
                "image-status",
                "show-image",
                "list-transfers",
            ],
            writes: &[
                ("start", M),
                ("enable", M),
                ("disable", M),
                ("poweroff", H),
                ("reboot", H),
                ("terminate", H),
                ("kill", H),
                ("bind", M),
                ("copy-to", M),
                ("copy-from", M),
                ("clone", M),
                ("rename", M),
                ("read-only", M),
                ("remove", H),
                ("set-limit", M),
                ("clean", H),
                ("pull-tar", M),
                ("pull-raw", M),
                ("import-tar", M),
                ("import-raw", M),
                ("import-fs", M),
                ("export-tar", M),
                ("export-raw", M),
                ("cancel-transfer", M),
            ],
            what: "changes machines or images",
            bare_read: true,
        },
    )
}

/// `systemd-tmpfiles`, `systemd-sysusers`: only `--cat-config` reads.
pub(super) fn cat_config_only(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || inv.args.iter().any(|a| a.as_str() == "--cat-config") {
        return Verdict::Read;
    }
    Verdict::write(M, "creates, removes or changes files and users")
}

pub(super) fn systemd_inhibit(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "--list") {
        return Verdict::Read;
    }
    Verdict::unknown("holds an inhibitor lock while running a program")
}

/// `inotifywait`: waits for an event (`-m`: for ever); bounded by `-t`.
pub(super) fn inotifywait(inv: &Invocation<'_, '_>) -> Verdict {
    let monitor = inv.has_short('m') || inv.has_long("--monitor");
    let timeout = inv.has_short('t') || inv.has_long("--timeout");
    if inv.has_short('o')
        || inv.has_long("--outfile")
        || inv.has_short('d')
        || inv.has_long("--daemon")
    {
        return Verdict::write(
            Risk::LowWrite,
            "writes events to a file or runs in the background",
        );
    }
    if monitor || !timeout {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "waits for file events",
        );
    }
    Verdict::Read
}
