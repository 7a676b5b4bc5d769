//! Maintenance tools with a mode that only prints: `ldconfig -p` prints the
//! library cache, `logrotate -d` says what it would rotate. Without that
//! mode they rebuild or rotate.

use crate::commands::common::{Globs, help_only, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const LDCONFIG: Options = Options {
    short_flags: "pvNX",
    short_values: "Cr",
    long_flags: &[
        "--print-cache",
        "--verbose",
        "--help",
        "--usage",
        "--version",
    ],
    ..Options::GNU
};

/// `ldconfig -p` (`--print-cache`) prints the cache and exits before
/// anything is rebuilt; otherwise it rebuilds the cache and the links.
pub(super) fn ldconfig(inv: &Invocation<'_, '_>) -> Verdict {
    let mut prints = false;
    let verdict = walk_checked(inv, &[&LDCONFIG], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'p', .. }
        | Tok::Long {
            name: "--print-cache",
            ..
        } => {
            prints = true;
            None
        }
        Tok::Operand { .. } => Some(Verdict::write(
            Risk::LowWrite,
            "links the libraries of the directories it names",
        )),
        _ => None,
    });
    match verdict {
        Verdict::Read if prints || help_only(inv) => Verdict::Read,
        Verdict::Read => Verdict::write(Risk::LowWrite, "rebuilds the library cache"),
        other => other,
    }
}

/// `-s` (another state file), `-l` (a log file) and `-m` (a mail program)
/// are left out: they name files to write or programs to run.
const LOGROTATE: Options = Options {
    short_flags: "dfv?",
    long_flags: &[
        "--debug",
        "--force",
        "--verbose",
        "--help",
        "--usage",
        "--version",
    ],
    ..Options::GNU
};

/// `logrotate -d CONFIG…` (`--debug`) reads the configuration and says what
/// it would do, without rotating, running scripts or writing its state;
/// otherwise it rotates.
pub(super) fn logrotate(inv: &Invocation<'_, '_>) -> Verdict {
    let mut debug = false;
    let verdict = walk_checked(inv, &[&LOGROTATE], Globs::Harmless, |tok| {
        debug |= matches!(
            tok,
            Tok::Short { flag: 'd', .. }
                | Tok::Long {
                    name: "--debug",
                    ..
                }
        );
        None
    });
    let info_only = inv
        .args
        .iter()
        .all(|a| matches!(a.as_str(), "--help" | "--usage" | "--version" | "-?"));
    match verdict {
        Verdict::Read if debug || (info_only && !inv.args.is_empty()) => Verdict::Read,
        Verdict::Read => Verdict::write(Risk::MediumWrite, "rotates logs and runs their scripts"),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_read, is_write};

    #[test]
    fn print_modes_read() {
        for line in [
            "ldconfig -p",
            "ldconfig --print-cache",
            "ldconfig --print-cach",
            "ldconfig -p -C /etc/ld.so.cache",
            "ldconfig -pv",
            "ldconfig --help",
            "logrotate -d /etc/logrotate.conf",
            "logrotate --debug /etc/logrotate.d/nginx",
            "logrotate -dv /etc/logrotate.conf",
            "logrotate -d -f /etc/logrotate.d/nginx",
            "logrotate --debu /etc/logrotate.conf",
            "logrotate --version",
        ] {
            assert!(is_read(line), "{line}");
        }
    }

    #[test]
    fn everything_else_rebuilds_or_rotates() {
        for line in [
            "ldconfig",
            "ldconfig -v",
            "ldconfig /usr/local/lib",
            "ldconfig -p /usr/local/lib",
            "ldconfig -l /usr/lib/libx.so.1",
            "ldconfig -f /tmp/conf -p",
            "logrotate /etc/logrotate.conf",
            "logrotate -f /etc/logrotate.d/nginx",
            "logrotate -v /etc/logrotate.conf",
            "logrotate -d -s /tmp/state /etc/logrotate.conf",
            "logrotate -d -l /tmp/log /etc/logrotate.conf",
            "logrotate -d -m /tmp/mailer /etc/logrotate.conf",
            "logrotate -d --state=/tmp/state /etc/logrotate.conf",
        ] {
            assert!(is_write(line), "{line}");
        }
    }
}
