//! Per-command knowledge: which programs, subcommands and flags are read-only.
//!
//! Each family file exports `RULES`, a table of `(command name, rule)`. A rule
//! looks at one simple command (name and arguments after quote removal) and
//! returns a [`Verdict`]. Commands not in any table are unknown, hence writes.
//! Reasons are phrased without the command name; the engine prefixes it.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::invocation::Invocation;
use crate::verdict::Verdict;

mod baseline;
mod builtins;
pub(crate) mod common;
mod containers;
mod files;
mod follow;
mod git;
mod guards;
mod net;
mod proxmox;
mod shells;
mod storage;
mod system;
mod text;
mod wrappers;

/// A per-command rule.
pub type Rule = fn(&Invocation<'_, '_>) -> Verdict;

static REGISTRY: LazyLock<HashMap<&'static str, Rule>> = LazyLock::new(|| {
    // Later tables override earlier ones: the baseline first, the families
    // refine it, and shells and wrappers come last so the guards always win.
    let family_tables: [&[(&'static str, Rule)]; 12] = [
        files::RULES,
        text::RULES,
        system::RULES,
        net::RULES,
        containers::RULES,
        proxmox::RULES,
        storage::RULES,
        git::RULES,
        shells::RULES,
        wrappers::RULES,
        guards::RULES,
        builtins::RULES,
    ];
    let mut map = HashMap::with_capacity(1024);
    for table in baseline::TABLES.into_iter().chain(family_tables) {
        for &(name, rule) in table {
            map.insert(name, rule);
        }
    }
    map
});

/// The rule for a command name, if Warden knows the command.
pub fn lookup(name: &str) -> Option<Rule> {
    REGISTRY.get(name).copied()
}

/// Every command name with a rule (for reports and docs).
pub fn known_commands() -> impl Iterator<Item = &'static str> {
    REGISTRY.keys().copied()
}

#[cfg(test)]
pub(crate) mod testing {
    //! Unit-test helpers for rule tables: run one rule on a whitespace-split line.
    use super::*;
    use crate::invocation::Arg;

    /// Split `line` on whitespace (no shell parsing) and apply the rule for
    /// its first word. Panics if the command has no rule.
    pub(crate) fn rule_verdict(line: &'static str) -> Verdict {
        let mut words = line.split_whitespace();
        let name = words.next().expect("empty line");
        let args: Vec<Arg<'static>> = words.map(Arg::literal).collect();
        let rule = lookup(name).unwrap_or_else(|| panic!("no rule for {name}"));
        rule(&Invocation::new(name, &args))
    }

    pub(crate) fn is_read(line: &'static str) -> bool {
        matches!(rule_verdict(line), Verdict::Read | Verdict::Conditional(_))
    }

    pub(crate) fn is_write(line: &'static str) -> bool {
        matches!(rule_verdict(line), Verdict::Write(..) | Verdict::Unknown(_))
    }

    pub(crate) fn is_interactive(line: &'static str) -> bool {
        matches!(rule_verdict(line), Verdict::Interactive(_))
    }
}
