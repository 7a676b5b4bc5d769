//! What a program's own rule cannot see, raised for every program the walk
//! meets: a read whose arguments or input could carry local data away is a
//! write, and a destructive write is high risk whichever rule found it.

use super::acc::Acc;
use super::args::Stdin;
use crate::commands;
use crate::invocation::Arg;
use crate::verdict::{Intent, Risk, Verdict};

pub(super) fn raise(
    acc: &mut Acc,
    program: &str,
    args: &[Arg<'_>],
    stdin: Stdin,
    verdict: &Verdict,
) {
    let fed = matches!(stdin, Stdin::Data | Stdin::Paths);
    if let Some(reason) = commands::net::exfil::carries_data(program, args, fed) {
        acc.write(Risk::MediumWrite, || reason);
    }
    let writes = match verdict {
        Verdict::Write(..) | Verdict::Unknown(_) | Verdict::Guarded(..) => true,
        Verdict::Interactive(iv) => iv.intent == Intent::WriteOrUnknown,
        Verdict::Read | Verdict::Conditional(_) | Verdict::Wrap(_) => false,
    };
    if writes && let Some(what) = commands::destroys::destroys(program, args) {
        acc.write(Risk::HighWrite, || format!("{program}: {what}"));
    }
}
