//! Content inspectors for dual-use CLIs: programs that read or write depending
//! on the text they are given (SQL for database clients, commands for
//! `redis-cli`). An inspector proves a command read-only by reading that text;
//! text it cannot see (stdin, a file, an expansion) is write_or_unknown.
//!
//! To add one: implement [`ContentInspector`] and list it in [`INSPECTORS`].

use crate::commands::Rule;
use crate::invocation::Invocation;
use crate::verdict::Verdict;

mod redis;
pub mod sql;

/// Decides a dual-use command by inspecting the content it will execute.
pub trait ContentInspector: Sync {
    /// Names this inspector in reasons ("SQL", "Redis").
    fn language(&self) -> &'static str;
    /// The command names it handles (`sqlite3`, `psql`, …).
    fn commands(&self) -> &'static [&'static str];
    /// The verdict: `Conditional` when every statement is proven read-only,
    /// `Interactive` when no content is given (a REPL), otherwise a write or unknown.
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict;
}

/// Every inspector Warden knows.
pub static INSPECTORS: &[&dyn ContentInspector] = &[
    &sql::SqliteInspector,
    &sql::MysqlInspector,
    &sql::PsqlInspector,
    &redis::RedisInspector,
];

/// The registry entries of the inspected commands (see `commands::FAMILIES`).
pub(crate) const RULES: &[(&str, Rule)] = &[
    ("sqlite3", |inv| sql::SqliteInspector.inspect(inv)),
    ("mysql", |inv| sql::MysqlInspector.inspect(inv)),
    ("mariadb", |inv| sql::MysqlInspector.inspect(inv)),
    ("psql", |inv| sql::PsqlInspector.inspect(inv)),
    ("redis-cli", |inv| redis::RedisInspector.inspect(inv)),
];

/// The inspector responsible for a command name.
pub fn inspector_for(name: &str) -> Option<&'static dyn ContentInspector> {
    INSPECTORS
        .iter()
        .copied()
        .find(|i| i.commands().contains(&name))
}
