//! NetworkManager's `nmcli`: global options, then object and command
//! tables; a command it does not know is unknown, not a read.

use super::resolve;
use crate::commands::common::stream;
use crate::invocation::Invocation;
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// What an nmcli command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nm {
    Read,
    /// Reads without arguments, sets with them (`general hostname NAME`).
    ReadBare,
    Write(Risk),
    Stream,
    Editor,
    /// A nested object (`device wifi`, `device lldp`).
    Wifi,
    Lldp,
    Export,
}

const NM_GENERAL: &[(&str, Nm)] = &[
    ("status", Nm::Read),
    ("hostname", Nm::ReadBare),
    ("permissions", Nm::Read),
    ("logging", Nm::ReadBare),
    ("reload", Nm::Write(Risk::MediumWrite)),
    ("help", Nm::Read),
];
const NM_NETWORKING: &[(&str, Nm)] = &[
    ("on", Nm::Write(Risk::HighWrite)),
    ("off", Nm::Write(Risk::HighWrite)),
    ("connectivity", Nm::Read),
    ("help", Nm::Read),
];
const NM_RADIO: &[(&str, Nm)] = &[
    ("all", Nm::ReadBare),
    ("wifi", Nm::ReadBare),
    ("wwan", Nm::ReadBare),
    ("help", Nm::Read),
];
const NM_CONNECTION: &[(&str, Nm)] = &[
    ("show", Nm::Read),
    ("up", Nm::Write(Risk::MediumWrite)),
    ("down", Nm::Write(Risk::HighWrite)),
    ("add", Nm::Write(Risk::MediumWrite)),
    ("edit", Nm::Editor),
    ("delete", Nm::Write(Risk::HighWrite)),
    ("reload", Nm::Write(Risk::MediumWrite)),
    ("load", Nm::Write(Risk::MediumWrite)),
    ("modify", Nm::Write(Risk::MediumWrite)),
    ("monitor", Nm::Stream),
    ("clone", Nm::Write(Risk::MediumWrite)),
    ("import", Nm::Write(Risk::MediumWrite)),
    ("export", Nm::Export),
    ("migrate", Nm::Write(Risk::MediumWrite)),
    ("help", Nm::Read),
];
const NM_DEVICE: &[(&str, Nm)] = &[
    ("status", Nm::Read),
    ("show", Nm::Read),
    ("connect", Nm::Write(Risk::MediumWrite)),
    ("reapply", Nm::Write(Risk::MediumWrite)),
    ("modify", Nm::Write(Risk::MediumWrite)),
    ("disconnect", Nm::Write(Risk::HighWrite)),
    ("delete", Nm::Write(Risk::HighWrite)),
    ("set", Nm::Write(Risk::MediumWrite)),
    ("monitor", Nm::Stream),
    ("wifi", Nm::Wifi),
    ("lldp", Nm::Lldp),
    ("up", Nm::Write(Risk::MediumWrite)),
    ("down", Nm::Write(Risk::HighWrite)),
    ("checkpoint", Nm::Write(Risk::MediumWrite)),
    ("help", Nm::Read),
];
const NM_WIFI: &[(&str, Nm)] = &[
    ("list", Nm::Read),
    ("connect", Nm::Write(Risk::MediumWrite)),
    ("hotspot", Nm::Write(Risk::MediumWrite)),
    ("rescan", Nm::Write(Risk::LowWrite)),
    ("show-password", Nm::Read),
    ("help", Nm::Read),
];

/// `nmcli` options by prefix, in the order nmcli tries them; `true` takes a value.
const NM_OPTIONS: &[(&str, bool)] = &[
    ("terse", false),
    ("pretty", false),
    ("mode", true),
    ("colors", true),
    ("escape", true),
    ("fields", true),
    ("get-values", true),
    ("nocheck", false),
    ("ask", false),
    ("show-secrets", false),
    ("wait", true),
    ("version", false),
    ("help", false),
    ("offline", false),
];

pub(super) fn nmcli(inv: &Invocation<'_, '_>) -> Verdict {
    let mut i = 0;
    while let Some(text) = inv.arg(i) {
        let Some(opt) = text.strip_prefix("--").or_else(|| text.strip_prefix('-')) else {
            break;
        };
        match resolve(opt, NM_OPTIONS) {
            Some(true) => i += 2,
            Some(false) => i += 1,
            None => return Verdict::unknown(format!("unknown option `{text}`")),
        }
    }
    let Some(object) = inv.arg(i) else {
        return Verdict::Read;
    };
    #[derive(Clone, Copy)]
    enum Object {
        Table(&'static [(&'static str, Nm)]),
        Radio,
        Monitor,
        Agent,
        Help,
    }
    const OBJECTS: &[(&str, Object)] = &[
        ("general", Object::Table(NM_GENERAL)),
        ("monitor", Object::Monitor),
        ("networking", Object::Table(NM_NETWORKING)),
        ("radio", Object::Radio),
        ("connection", Object::Table(NM_CONNECTION)),
        ("device", Object::Table(NM_DEVICE)),
        ("agent", Object::Agent),
        ("help", Object::Help),
    ];
    let table = match resolve(object, OBJECTS) {
        Some(Object::Table(table)) => table,
        Some(Object::Radio) => NM_RADIO,
        Some(Object::Monitor) => return stream("`monitor` prints changes until interrupted"),
        Some(Object::Agent) => {
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "`agent` waits to answer secret requests",
            );
        }
        Some(Object::Help) => return Verdict::Read,
        None => return Verdict::unknown(format!("unknown object `{object}`")),
    };
    nm_command(inv, i + 1, table)
}

fn nm_command(inv: &Invocation<'_, '_>, at: usize, table: &[(&'static str, Nm)]) -> Verdict {
    let Some(word) = inv.arg(at) else {
        return Verdict::Read;
    };
    let rest = inv.args.len().saturating_sub(at + 1);
    match resolve(word, table) {
        Some(Nm::Read) => {
            if inv.has_word(&["--rescan"]) && !inv.has_word(&["no", "auto"]) {
                return Verdict::write(Risk::LowWrite, "`--rescan` starts a scan");
            }
            Verdict::Read
        }
        Some(Nm::ReadBare) if rest == 0 => Verdict::Read,
        Some(Nm::ReadBare) => {
            Verdict::write(Risk::MediumWrite, format!("`{word}` changes a setting"))
        }
        Some(Nm::Write(risk)) => {
            Verdict::write(risk, format!("`{word}` changes the network configuration"))
        }
        Some(Nm::Stream) => stream("`monitor` prints changes until interrupted"),
        Some(Nm::Editor) => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "`edit` opens an interactive editor",
        ),
        Some(Nm::Wifi) => nm_command(inv, at + 1, NM_WIFI),
        Some(Nm::Lldp) => match inv.arg(at + 1) {
            None | Some("list" | "help") => Verdict::Read,
            Some(other) => Verdict::unknown(format!("unknown command `{other}`")),
        },
        // `connection export ID` prints; `export ID FILE` writes the file.
        Some(Nm::Export) if rest <= 1 => Verdict::Read,
        Some(Nm::Export) => Verdict::write(Risk::LowWrite, "`export` writes a file"),
        None => Verdict::unknown(format!("unknown command `{word}`")),
    }
}
