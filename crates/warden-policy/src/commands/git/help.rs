//! `git help`, `git --help X` and `git X --help`: lists of commands and
//! guides are read; a manual page opens a pager or a browser, rewritten
//! to the subcommand's `-h` usage where there is one.

use super::{Opt, scan};
use crate::invocation::Invocation;
use crate::options::Options;
use crate::verdict::{InteractiveCategory, Verdict};

/// `git help`: lists are read; a manual page goes to a pager or browser.
pub(super) fn help(rest: &Invocation<'_, '_>) -> Verdict {
    let mut page = false;
    let v = scan(rest.args, Options::GNU, |o| match o {
        Opt::Short('a' | 'g' | 'c' | 'v')
        | Opt::Long(
            "all"
            | "guides"
            | "config"
            | "verbose"
            | "no-verbose"
            | "no-external-commands"
            | "no-aliases"
            | "user-interfaces"
            | "developer-interfaces",
        ) => None,
        Opt::Short('m' | 'w' | 'i') | Opt::Long("man" | "web" | "info") => {
            page = true;
            None
        }
        Opt::Pos(..) => {
            page = true;
            None
        }
        _ => Some(Verdict::unknown("unknown option")),
    });
    if let Some(v) = v {
        return v;
    }
    if page {
        // The first word that is not an option names the page.
        let topic = rest
            .args
            .iter()
            .find(|a| a.is_literal() && !a.as_str().starts_with('-'))
            .map(|a| a.as_str());
        return match topic {
            Some(topic) => manual_page(topic),
            None => Verdict::interactive(InteractiveCategory::Pager, "opens a manual page"),
        };
    }
    Verdict::Read
}

/// `git help X` and `git X --help` open X's manual page in a pager or a
/// browser; `git X -h` prints its usage instead.
pub(super) fn manual_page(subcommand: &str) -> Verdict {
    let plain = !subcommand.is_empty()
        && subcommand
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if plain {
        return Verdict::pager_with_rewrite(
            format!("{subcommand} -h"),
            "opens a manual page in a pager or a browser",
        );
    }
    Verdict::interactive(
        InteractiveCategory::Pager,
        "opens a manual page in a pager or a browser",
    )
}
