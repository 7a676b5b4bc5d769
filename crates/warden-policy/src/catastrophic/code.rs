//! Catastrophic commands inside code given to an interpreter (`python3 -c
//! 'os.system("rm -rf /")'`) or a script a shell reads from a process
//! substitution (`bash <(echo rm -rf /)`). The classifier cannot inspect such
//! code (the command is a write), but a shell command spelled out in it is
//! still found.

use super::scan::scan_unparsed;
use crate::invocation::Invocation;
use crate::verdict::Reason;

/// Interpreters whose arguments may be code.
pub(super) fn is_interpreter(name: &str) -> bool {
    matches!(
        name,
        "perl" | "ruby" | "node" | "nodejs" | "php" | "lua" | "tclsh" | "Rscript" | "awk" | "gawk"
    ) || name.starts_with("python")
}

/// A shell command in any argument of an interpreter. Lists and calls are
/// read as words: `["rm", "-rf", "/"]` is `rm -rf /`.
pub(super) fn interpreter(inv: &Invocation<'_, '_>) -> Option<Reason> {
    inv.args.iter().find_map(|arg| {
        let text: &str = &arg.text;
        // A copy only when there is a list or call to read as words.
        let reason = if text.contains([',', '[', ']']) {
            scan_unparsed(&text.replace([',', '[', ']'], " "))
        } else {
            scan_unparsed(text)
        };
        reason.map(|r| format!("`{}` code runs {r}", inv.name).into())
    })
}

/// `bash <(echo 'rm -rf /')`, `source <(printf …)`: the printed script.
pub(super) fn substituted_script(inv: &Invocation<'_, '_>) -> Option<Reason> {
    inv.args.iter().find_map(|arg| {
        let inner = arg.raw.strip_prefix("<(")?.strip_suffix(')')?;
        let printed = inner
            .trim_start()
            .strip_prefix("echo")
            .or_else(|| inner.trim_start().strip_prefix("printf"))
            .unwrap_or(inner)
            .replace("\\n", "\n");
        scan_unparsed(&printed)
    })
}
