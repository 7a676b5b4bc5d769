//! Process and system monitors: full-screen tools, `top`-likes that exit
//! in batch mode with a count, and samplers (`vmstat 1 5`) that need a count
//! to stop.

use crate::commands::common::{bad, first_bad, help_only, read_if_known};
use crate::invocation::Invocation;
use crate::options::{Options, Style, Tok};
use crate::verdict::*;

pub(super) fn monitor(what: &'static str) -> Verdict {
    Verdict::interactive(InteractiveCategory::UnboundedStream, what)
}

const FULL_SCREEN: &str = "a full-screen monitor that never exits";

/// Full-screen monitors without a batch mode.
pub(super) fn full_screen(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) || matches!(inv.args, [a] if a.as_str() == "-V" || a.as_str() == "-v") {
        return Verdict::Read;
    }
    monitor(FULL_SCREEN)
}

const TOP: Options = Options {
    short_flags: "bcHiOSs1hvCF",
    short_values: "dEenopuUlmX",
    short_optional: "w",
    long_flags: &[
        "--batch",
        "--cmdline-toggle",
        "--threads-show",
        "--idle-toggle",
        "--list-fields",
        "--accum-time-toggle",
        "--secure-mode",
        "--single-cpu-toggle",
        "--help",
        "--version",
    ],
    long_values: &[
        "--delay",
        "--scale-summary-mem",
        "--scale-task-mem",
        "--iterations",
        "--sort-override",
        "--pid",
        "--filter-only-euser",
        "--filter-any-user",
    ],
    long_optional: &["--width"],
    style: Style::Gnu,
};

/// `top -b -n N` is a bounded report (`-l N` on BSD); anything else is the
/// full-screen monitor.
pub(super) fn top(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut batch, mut iterations, mut info) = (false, false, false);
    for tok in TOP.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'b', .. }
            | Tok::Long {
                name: "--batch", ..
            } => batch = true,
            Tok::Short {
                flag: 'n' | 'l',
                value: Some(_),
                ..
            }
            | Tok::Long {
                name: "--iterations",
                value: Some(_),
                ..
            } => {
                iterations = true;
            }
            Tok::Short {
                flag: 'h' | 'v', ..
            }
            | Tok::Long {
                name: "--help" | "--version",
                ..
            } => info = true,
            _ => {}
        }
    }
    if info || iterations && (batch || inv.args.iter().any(|a| a.as_str().starts_with("-l"))) {
        return Verdict::Read;
    }
    monitor("runs until stopped without `-b -n COUNT`")
}

const IOTOP: Options = Options {
    short_flags: "obPaktqhV",
    short_values: "ndpu",
    short_optional: "",
    long_flags: &[
        "--only",
        "--batch",
        "--processes",
        "--accumulated",
        "--kilobytes",
        "--time",
        "--quiet",
        "--help",
        "--version",
    ],
    long_values: &["--iter", "--delay", "--pid", "--user"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn iotop(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut batch, mut iterations) = (false, false);
    for tok in IOTOP.walk(inv.args) {
        match tok {
            Tok::Short { flag: 'b', .. }
            | Tok::Long {
                name: "--batch", ..
            } => batch = true,
            Tok::Short {
                flag: 'n',
                value: Some(_),
                ..
            }
            | Tok::Long {
                name: "--iter",
                value: Some(_),
                ..
            } => iterations = true,
            Tok::Short {
                flag: 'h' | 'V', ..
            }
            | Tok::Long {
                name: "--help" | "--version",
                ..
            } => {
                return Verdict::Read;
            }
            _ => {}
        }
    }
    if batch && iterations {
        return Verdict::Read;
    }
    monitor("runs until stopped without `-b -n COUNT`")
}

pub(super) fn atop(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.option_args().any(|a| a.as_str().starts_with("-w")) {
        return Verdict::write(Risk::LowWrite, "`-w` writes samples to a raw file");
    }
    full_screen(inv)
}

pub(super) fn nmon(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('f') || inv.has_short('F') {
        return Verdict::write(Risk::LowWrite, "`-f` records samples to a file");
    }
    full_screen(inv)
}

pub(super) fn glances(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .option_args()
        .any(|a| a.as_str().starts_with("--export"))
    {
        return Verdict::write(Risk::LowWrite, "`--export` writes samples out");
    }
    full_screen(inv)
}

pub(super) fn slabtop(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('o') || inv.has_long_abbrev("--once") || help_only(inv) {
        return Verdict::Read;
    }
    monitor("refreshes until stopped without `-o`")
}

pub(super) fn powertop(inv: &Invocation<'_, '_>) -> Verdict {
    if help_only(inv) {
        return Verdict::Read;
    }
    if inv.option_args().any(|a| {
        let t = a.as_str();
        [
            "--html",
            "--csv",
            "--auto-tune",
            "--calibrate",
            "--workload",
        ]
        .iter()
        .any(|l| t.starts_with(l))
    }) {
        return Verdict::write(Risk::LowWrite, "writes a report or tunes devices");
    }
    monitor(FULL_SCREEN)
}

/// `PROGRAM [interval [count]]`: one number repeats forever.
fn sampler(inv: &Invocation<'_, '_>, spec: &'static Options, bare_bounded: bool) -> Verdict {
    if let Some(word) = first_bad(spec, inv.args) {
        return bad(word);
    }
    let mut numbers = spec.walk(inv.args).filter_map(|t| match t {
        Tok::Operand { text, .. } if text.parse::<f64>().is_ok() => Some(text),
        _ => None,
    });
    match (numbers.next(), numbers.next()) {
        (None, _) if bare_bounded => Verdict::Read,
        (Some(_), Some(count)) if count.parse::<f64>().is_ok_and(|c| c > 0.0) => Verdict::Read,
        _ => monitor("an interval without a count repeats forever"),
    }
}

const VMSTAT: Options = Options {
    short_flags: "afmnsdDtwyhV",
    short_values: "pSc",
    short_optional: "",
    long_flags: &[
        "--active",
        "--forks",
        "--slabs",
        "--one-header",
        "--stats",
        "--disk",
        "--disk-sum",
        "--timestamp",
        "--wide",
        "--no-first",
        "--help",
        "--version",
    ],
    long_values: &["--partition", "--unit"],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn vmstat(inv: &Invocation<'_, '_>) -> Verdict {
    sampler(inv, &VMSTAT, true)
}

const IOSTAT: Options = Options {
    short_flags: "cdhkmNstVxyzH",
    short_values: "gjof",
    short_optional: "p",
    long_flags: &["--human", "--pretty", "--compact", "--debuginfo", "--help"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn iostat(inv: &Invocation<'_, '_>) -> Verdict {
    sampler(inv, &IOSTAT, true)
}

const MPSTAT: Options = Options {
    short_flags: "AhnTuVH",
    short_values: "INPo",
    short_optional: "",
    long_flags: &["--help"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn mpstat(inv: &Invocation<'_, '_>) -> Verdict {
    sampler(inv, &MPSTAT, true)
}

const PIDSTAT: Options = Options {
    short_flags: "dHhIlRrsUuVvwt",
    short_values: "CGpT",
    short_optional: "",
    long_flags: &["--human", "--help"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn pidstat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('e') {
        return Verdict::unknown("`-e` runs a program");
    }
    sampler(inv, &PIDSTAT, true)
}

const SAR: Options = Options {
    short_flags: "ABbdHhpqSvWwyzturFxV",
    short_values: "nIPmsefij",
    short_optional: "o",
    long_flags: &["--human", "--pretty", "--help", "--sadc"],
    long_values: &[],
    long_optional: &["--dec"],
    style: Style::Gnu,
};

pub(super) fn sar(inv: &Invocation<'_, '_>) -> Verdict {
    if SAR
        .walk(inv.args)
        .any(|t| matches!(t, Tok::Short { flag: 'o', .. }))
    {
        return Verdict::write(Risk::LowWrite, "`-o` saves samples to a data file");
    }
    if SAR.walk(inv.args).any(|t| {
        matches!(
            t,
            Tok::Short {
                flag: 'f',
                value: Some(_),
                ..
            }
        )
    }) {
        return read_if_known(&SAR, inv);
    }
    sampler(inv, &SAR, true)
}

const DSTAT: Options = Options {
    short_flags: "acdfgilmnprstTvyV",
    short_values: "CDINS",
    short_optional: "",
    long_flags: &[
        "--all",
        "--cpu",
        "--disk",
        "--full",
        "--integer",
        "--load",
        "--mem",
        "--net",
        "--page",
        "--proc",
        "--swap",
        "--time",
        "--vmstat",
        "--version",
        "--nocolor",
        "--noheaders",
        "--noupdate",
        "--bw",
        "--float",
        "--top-cpu",
        "--top-io",
        "--top-mem",
        "--top-bio",
        "--tcp",
        "--udp",
        "--unix",
        "--raw",
        "--socket",
        "--fs",
        "--ipc",
        "--lock",
        "--aio",
        "--help",
    ],
    long_values: &[],
    long_optional: &[],
    style: Style::Gnu,
};

pub(super) fn dstat(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long_abbrev("--output") {
        return Verdict::write(Risk::LowWrite, "`--output` writes a CSV file");
    }
    sampler(inv, &DSTAT, false)
}

const FREE: Options = Options {
    short_flags: "bkmghltvwLV",
    short_values: "sc",
    short_optional: "",
    long_flags: &[
        "--bytes",
        "--kilo",
        "--mega",
        "--giga",
        "--tera",
        "--peta",
        "--kibi",
        "--mebi",
        "--gibi",
        "--tebi",
        "--pebi",
        "--human",
        "--si",
        "--lohi",
        "--line",
        "--total",
        "--committed",
        "--wide",
        "--help",
        "--version",
    ],
    long_values: &["--seconds", "--count"],
    long_optional: &[],
    style: Style::Gnu,
};

/// `-s N` repeats forever unless `-c COUNT` bounds it.
pub(super) fn free(inv: &Invocation<'_, '_>) -> Verdict {
    let (mut delay, mut count) = (false, false);
    for tok in FREE.walk(inv.args) {
        match tok {
            Tok::Short { flag: 's', .. }
            | Tok::Long {
                name: "--seconds", ..
            } => delay = true,
            Tok::Short { flag: 'c', .. }
            | Tok::Long {
                name: "--count", ..
            } => count = true,
            _ => {}
        }
    }
    if delay && !count {
        return monitor("`-s` repeats forever without `-c`");
    }
    Verdict::Read
}
