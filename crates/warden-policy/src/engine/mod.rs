//! The classifier: parses a line the way bash and `/bin/sh` would, walks the
//! syntax trees and combines the verdicts of every part. A compound command
//! is read-only iff every part is, under both shells; the whole line takes
//! the highest risk of its parts and the first interactive finding.

mod acc;
mod args;
mod effects;
mod fed;
mod pipes;
mod text;
mod vars;
mod walk;

use crate::catastrophic;
use crate::shell::ast::Dialect;
use crate::shell::parse_as;
use crate::verdict::{Classification, Intent, Risk};

use acc::Acc;
use walk::Walker;

/// Classify one command line.
pub fn classify(command: &str) -> Classification {
    if command.trim().is_empty() {
        return Classification {
            intent: Intent::WriteOrUnknown,
            risk: Risk::LowWrite,
            interactive: None,
            catastrophic: false,
            understood: false,
            reason: "empty command".to_string(),
        };
    }
    let mut classification = classify_line(command, RewriteCheck::Verify);
    // Fork bombs define functions, which the parser refuses; catch them by text.
    if let Some(reason) = catastrophic::fork_bomb(command) {
        classification.intent = Intent::WriteOrUnknown;
        classification.risk = Risk::HighWrite;
        classification.catastrophic = true;
        classification.reason = reason.into_owned();
    }
    classification
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RewriteCheck {
    /// Keep a suggested rewrite only if it is itself bounded (and read-only
    /// when the line is).
    Verify,
    /// Classifying a rewrite: do not recurse again.
    Skip,
}

fn classify_line(command: &str, rewrite_check: RewriteCheck) -> Classification {
    let mut acc = Acc::default();
    // Walked where it lies: the trees are large and not moved.
    let bash = parse_as(command, Dialect::Bash);
    let bash = match &bash {
        Ok(parsed) => parsed,
        Err(error) => {
            acc.unknown(|| format!("cannot be parsed safely: {error}"));
            // Scan it anyway: what cannot be parsed may still wipe a disk.
            if let Some(reason) = catastrophic::scan_unparsed(command) {
                acc.catastrophic(|| reason.into_owned());
            }
            return acc.finish();
        }
    };
    Walker::new(command, &mut acc).line(bash);
    if sh_may_differ(command) {
        match &parse_as(command, Dialect::Posix) {
            // The same tree walks the same way: only a different one adds.
            Ok(posix) if posix == bash => {}
            Ok(posix) => Walker::new(command, &mut acc).line(posix),
            // sh refuses a line it cannot parse before running any of it;
            // a later line would run after the earlier ones, though.
            Err(error) if command.contains('\n') => {
                acc.unknown(|| format!("`/bin/sh` reads it differently: {error}"))
            }
            Err(_) => {}
        }
    }
    let mut classification = acc.finish();
    if rewrite_check == RewriteCheck::Verify
        && let Some(interactive) = &mut classification.interactive
    {
        let read_only = classification.intent.is_read_only();
        let keep = interactive.rewrite.as_deref().is_some_and(|r| {
            let c = classify_line(r, RewriteCheck::Skip);
            c.interactive.is_none() && !c.catastrophic && (c.intent.is_read_only() || !read_only)
        });
        if !keep {
            interactive.rewrite = None;
        }
    }
    classification
}

/// Could bash and `/bin/sh` read this line differently? Only then is it
/// parsed a second time, the POSIX way.
fn sh_may_differ(command: &str) -> bool {
    /// The bytes that start a construct the shells may read differently.
    const INTERESTING: [bool; 256] = {
        let mut table = [false; 256];
        let bytes = b"[($&|<>{,.";
        let mut i = 0;
        while i < bytes.len() {
            table[bytes[i] as usize] = true;
            i += 1;
        }
        table
    };
    let bytes = command.as_bytes();
    let mut brace = false;
    let mut comma_or_dots = false;
    for (i, &b) in bytes.iter().enumerate() {
        if !INTERESTING[usize::from(b)] {
            continue;
        }
        let next = bytes.get(i + 1).copied().unwrap_or(0);
        match b {
            b'[' if next == b'[' => return true,
            b'(' if next == b'(' => return true,
            b'$' if matches!(next, b'\'' | b'"') => return true,
            b'&' if next == b'>' => return true,
            b'|' if next == b'&' => return true,
            b'<' | b'>' if next == b'(' => return true,
            b'{' => brace = true,
            b',' => comma_or_dots = true,
            b'.' if next == b'.' => comma_or_dots = true,
            _ => {}
        }
    }
    brace && comma_or_dots
}
