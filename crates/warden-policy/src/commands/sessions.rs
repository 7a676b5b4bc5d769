//! Interactive programs that are otherwise unknown: terminal multiplexers,
//! full-screen tools, network and database clients that wait for input,
//! message subscribers. They are writes (what they do is not inspected),
//! and the executor must know they never end on their own.

use super::Rule;
use crate::invocation::Invocation;
use crate::verdict::{InteractiveCategory, Verdict};

pub(crate) const RULES: &[(&str, Rule)] = &[
    // terminal sessions and multiplexers
    ("tmux", session),
    ("screen", session),
    ("byobu", session),
    ("zellij", session),
    ("minicom", session),
    ("picocom", session),
    ("cu", session),
    ("login", session),
    // full-screen tools
    ("radeontop", full_screen),
    ("ncdu", full_screen),
    ("ranger", full_screen),
    ("nnn", full_screen),
    ("vifm", full_screen),
    ("tig", full_screen),
    ("lazygit", full_screen),
    ("alsamixer", full_screen),
    ("cfdisk", full_screen),
    ("cgdisk", full_screen),
    ("gdisk", full_screen),
    ("w3m", full_screen),
    ("lynx", full_screen),
    ("links", full_screen),
    ("mutt", full_screen),
    ("neomutt", full_screen),
    ("irssi", full_screen),
    ("weechat", full_screen),
    ("evtest", full_screen),
    // editors under another name
    ("sudoedit", editor),
    ("editor", editor),
    ("sensible-editor", editor),
    ("select-editor", editor),
    // clients that read commands from the terminal
    ("smbclient", client),
    ("cqlsh", client),
    ("influx", client),
    ("clickhouse-client", client),
    ("bconsole", client),
    ("kadmin", client),
    ("ipython", client),
    // network test tools: a server runs until stopped, a client loads the network
    ("iperf3", iperf),
    ("iperf", iperf),
    // subscribers that print messages until interrupted
    ("mosquitto_sub", subscriber),
    ("kafka-console-consumer", subscriber),
    ("kafka-console-consumer.sh", subscriber),
    ("kcat", subscriber),
    ("kafkacat", subscriber),
    ("nats", subscriber),
    ("rostopic", subscriber),
];

fn session(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "opens an interactive terminal session",
    )
}

fn full_screen(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::UnboundedStream,
        "a full-screen program that runs until quit",
    )
}

fn editor(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(InteractiveCategory::Pager, "opens an editor")
}

fn client(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "a client that reads commands from the terminal",
    )
}

fn iperf(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('s') || inv.has_long("--server") {
        return Verdict::interactive_writer(
            InteractiveCategory::UnboundedStream,
            "runs a server until stopped",
        );
    }
    Verdict::write(
        crate::verdict::Risk::LowWrite,
        "loads the network and the other host",
    )
}

fn subscriber(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::UnboundedStream,
        "prints messages until interrupted",
    )
}
