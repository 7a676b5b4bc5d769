//! GPU tools: `nvidia-smi`, `rocm-smi`, `amd-smi`, `intel_gpu_top`,
//! `gpustat`. They read by default; their setters (power limits, clocks,
//! persistence and compute modes, resets) write; loops and monitors stream
//! unless a count bounds them.

use crate::commands::common::stream;
use crate::invocation::Invocation;
use crate::verdict::*;

/// nvidia-smi options that only select or format what is printed (with
/// their value, given as `--opt=v` or as the next word).
const NVIDIA_READ: &[&str] = &[
    "-h",
    "--help",
    "-L",
    "--list-gpus",
    "-B",
    "--list-excluded-gpus",
    "-q",
    "--query",
    "-x",
    "--xml-format",
    "--dtd",
    "-u",
    "--unit",
    "-v",
    "--version",
];
const NVIDIA_READ_VALUES: &[&str] = &[
    "-d",
    "--display",
    "-i",
    "--id",
    "--query-gpu",
    "--query-supported-clocks",
    "--query-compute-apps",
    "--query-accounted-apps",
    "--query-retired-pages",
    "--query-remapped-rows",
    "--format",
];
/// Subcommands that only report.
const NVIDIA_READ_SUBS: &[&str] = &["topo", "encodersessions", "nvlink", "clocks"];

pub(super) fn nvidia_smi(inv: &Invocation<'_, '_>) -> Verdict {
    let args = inv.args;
    if let Some(sub) = args.first().filter(|a| !a.as_str().starts_with('-')) {
        return nvidia_sub(sub.as_str(), &args[1..]);
    }
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.is_literal() {
            return Verdict::unknown(format!("`{}` comes from an expansion", arg.raw));
        }
        let text = arg.as_str();
        let head = text.split_once('=').map_or(text, |(h, _)| h);
        if NVIDIA_READ.contains(&text) {
            i += 1;
        } else if NVIDIA_READ_VALUES.contains(&head) {
            i += if text.contains('=') { 1 } else { 2 };
        } else if matches!(head, "-l" | "--loop" | "-lms" | "--loop-ms") {
            return stream("`--loop` prints until interrupted");
        } else if matches!(head, "-f" | "--filename") {
            return Verdict::write(Risk::LowWrite, "`-f` logs to a file");
        } else {
            return Verdict::unknown(format!(
                "`{head}` is not a known read-only option (setters change the GPU)"
            ));
        }
    }
    Verdict::Read
}

fn nvidia_sub(sub: &str, rest: &[crate::invocation::Arg<'_>]) -> Verdict {
    let words: Vec<&str> = rest.iter().map(|a| a.as_str()).collect();
    if rest.iter().any(|a| !a.is_literal()) {
        return Verdict::unknown("an argument comes from an expansion");
    }
    match sub {
        "dmon" | "pmon" => {
            if words.iter().any(|w| matches!(*w, "-f" | "--filename")) {
                return Verdict::write(Risk::LowWrite, "`-f` logs to a file");
            }
            if words.iter().any(|w| matches!(*w, "-c" | "--count")) {
                Verdict::Read
            } else {
                stream("monitors until interrupted; add `-c N`")
            }
        }
        // `nvlink -r` resets counters; `topo`, `clocks` report.
        "nvlink"
            if words
                .iter()
                .any(|w| w.starts_with("-r") || w.starts_with("--reset")) =>
        {
            Verdict::write(Risk::LowWrite, "resets NVLink counters")
        }
        "clocks"
            if words
                .iter()
                .any(|w| !matches!(*w, "--query" | "-q" | "-i" | "--id") && w.starts_with('-')) =>
        {
            Verdict::unknown("`clocks` options can change clocks")
        }
        s if NVIDIA_READ_SUBS.contains(&s) => Verdict::Read,
        other => Verdict::write(Risk::MediumWrite, format!("`{other}` changes GPU settings")),
    }
}

/// rocm-smi: the `--show*` options and the short ones that alias them read.
pub(super) fn rocm_smi(inv: &Invocation<'_, '_>) -> Verdict {
    const READ_SHORT: &[&str] = &[
        "-a", "-b", "-c", "-f", "-g", "-i", "-l", "-m", "-M", "-p", "-P", "-s", "-S", "-t", "-u",
        "-v", "-h", "-V",
    ];
    const READ_LONG: &[&str] = &[
        "--json",
        "--csv",
        "--alldevices",
        "--help",
        "--version",
        "--showallinfo",
    ];
    let mut i = 0;
    while let Some(arg) = inv.args.get(i) {
        let text = arg.as_str();
        i += 1;
        if !arg.is_literal() {
            return Verdict::unknown(format!("`{}` comes from an expansion", arg.raw));
        }
        if text.starts_with("--show") || READ_SHORT.contains(&text) || READ_LONG.contains(&text) {
            continue;
        }
        if matches!(text, "-d" | "--device" | "--loglevel") {
            // Device numbers follow.
            while inv.args.get(i).is_some_and(|a| {
                a.as_str().bytes().all(|b| b.is_ascii_digit())
                    || text == "--loglevel" && !a.as_str().starts_with('-')
            }) {
                i += 1;
            }
            continue;
        }
        return Verdict::unknown(format!(
            "`{text}` is not a known read-only option (setters change the GPU)"
        ));
    }
    Verdict::Read
}

/// amd-smi: reporting subcommands read; `monitor` and `event` stream unless
/// bounded; `set`/`reset` write.
pub(super) fn amd_smi(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        None
        | Some(
            "list" | "static" | "firmware" | "bad-pages" | "metric" | "process" | "topology"
            | "version" | "xgmi" | "partition" | "--help" | "-h",
        ) => {
            if inv.has_word(&["-w", "--watch"]) {
                stream("`--watch` repeats until interrupted")
            } else {
                Verdict::Read
            }
        }
        Some("monitor")
            if inv.has_word(&["-w", "--watch"])
                && !inv.has_word(&["-W", "--watch_time", "-i", "--iterations"]) =>
        {
            stream("`--watch` repeats until interrupted")
        }
        Some("monitor") => Verdict::Read,
        Some("event") => stream("`event` waits for events until interrupted"),
        Some(other) => Verdict::write(Risk::MediumWrite, format!("`{other}` changes GPU settings")),
    }
}

/// intel_gpu_top: `-L` lists; otherwise it samples until interrupted.
pub(super) fn intel_gpu_top(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["-L", "-h", "--help"]) {
        return Verdict::Read;
    }
    if inv.has_short('o') {
        return Verdict::write(Risk::LowWrite, "`-o` writes samples to a file");
    }
    stream("samples until interrupted")
}

/// gpustat: one snapshot; `-i`/`--watch` repeat.
pub(super) fn gpustat(inv: &Invocation<'_, '_>) -> Verdict {
    for arg in inv.args {
        let text = arg.as_str();
        if text == "-i" || text.starts_with("--interval") || text == "--watch" {
            return stream("`--interval` repeats until interrupted");
        }
        let known = matches!(
            text,
            "-c" | "--color"
                | "--no-color"
                | "-u"
                | "--show-user"
                | "-p"
                | "--show-pid"
                | "-F"
                | "--show-fan-speed"
                | "-e"
                | "--show-codec"
                | "-P"
                | "--show-power"
                | "-a"
                | "--show-all"
                | "--json"
                | "--no-header"
                | "--no-processes"
                | "-v"
                | "--version"
                | "-h"
                | "--help"
                | "--debug"
        );
        if !known {
            return Verdict::unknown(format!("unknown option `{text}`"));
        }
    }
    Verdict::Read
}
