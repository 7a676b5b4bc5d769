//! Name lookups: the query is named on the command line. A file of queries
//! (`dig -f`) or queries on standard input would send local data to a name
//! server; computed names are refused for every network program (see
//! [`super::exfil`]).

use crate::invocation::Invocation;
use crate::verdict::{InteractiveCategory, Verdict};

/// `dig`, `kdig`, `drill`: a query named on the command line; `-f` reads
/// queries (or a packet) from a file and sends its contents.
pub(super) fn dig(inv: &Invocation<'_, '_>) -> Verdict {
    if inv
        .args
        .iter()
        .any(|a| a.as_str().starts_with("-f") && !a.as_str().starts_with("--"))
    {
        return Verdict::unknown(
            "`-f` reads queries from a file: its contents would be sent to a name server",
        );
    }
    Verdict::Read
}

pub(super) fn nslookup(inv: &Invocation<'_, '_>) -> Verdict {
    match inv
        .args
        .iter()
        .map(|a| a.as_str())
        .find(|a| *a == "-" || !a.starts_with('-'))
    {
        Some(name) if name != "-" => Verdict::Read,
        // What it is fed becomes queries sent to a name server.
        _ => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "waits for queries on standard input; give a name to look up",
        ),
    }
}
