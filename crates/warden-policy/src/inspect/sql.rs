//! SQL inspection for `sqlite3`, `mysql`/`mariadb` and `psql`: every
//! statement must be a read (SELECT, SHOW, EXPLAIN, DESCRIBE, read PRAGMAs).
//! SQL that arrives on stdin or from a file cannot be inspected.

use super::ContentInspector;
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

pub struct SqliteInspector;
pub struct MysqlInspector;
pub struct PsqlInspector;

/// Functions that write, load code, or change server state when selected.
const WRITING_FUNCTIONS: &[&str] = &[
    "load_extension",
    "writefile",
    "edit",
    "fts3_tokenizer",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "lo_import",
    "lo_export",
    "lo_unlink",
    "pg_write_file",
    "pg_file_write",
    "pg_file_unlink",
    "pg_file_rename",
    "set_config",
    "nextval",
    "setval",
    "dblink_exec",
    "dblink",
    "pg_advisory_lock",
    "pg_advisory_xact_lock",
    "pg_try_advisory_lock",
    "txid_current",
    "pg_switch_wal",
    "pg_create_restore_point",
    "pg_promote",
    "pg_create_logical_replication_slot",
    "pg_drop_replication_slot",
    "pg_stat_reset",
    "pg_read_file",
    "pg_read_binary_file",
    "sys_exec",
    "sys_eval",
    "get_lock",
    "release_lock",
    "query_to_xml",
];

/// PRAGMAs that only report (without `=`).
const READ_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "database_list",
    "compile_options",
    "integrity_check",
    "quick_check",
    "user_version",
    "page_count",
    "page_size",
    "freelist_count",
    "journal_mode",
    "schema_version",
    "encoding",
    "collation_list",
    "function_list",
    "module_list",
    "pragma_list",
    "table_list",
    "application_id",
    "auto_vacuum",
    "cache_size",
    "data_version",
    "max_page_count",
    "synchronous",
    "foreign_keys",
    "busy_timeout",
];

/// SQLite shell dot-commands that only print.
const READ_DOT_COMMANDS: &[&str] = &[
    ".tables",
    ".schema",
    ".indexes",
    ".indices",
    ".databases",
    ".show",
    ".dbinfo",
    ".fullschema",
    ".headers",
    ".header",
    ".mode",
    ".width",
    ".timer",
    ".help",
    ".version",
    ".stats",
    ".dump",
    ".separator",
    ".nullvalue",
    ".print",
    ".eqp",
    ".explain",
    ".changes",
    ".lint",
    ".dbconfig",
];

/// Why a piece of SQL is not provably read-only, or `None` if it is.
pub fn sql_write_reason(sql: &str, dialect: Dialect) -> Option<String> {
    let Some(statements) = split_statements(sql) else {
        return Some("has an unterminated quote or comment".to_string());
    };
    if statements.is_empty() {
        return Some("no SQL statement".to_string());
    }
    for statement in statements {
        if let Some(reason) = statement_write_reason(&statement, dialect) {
            return Some(reason);
        }
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Mysql,
    Postgres,
}

/// Statements with comments removed and string contents blanked (so
/// keywords inside strings do not count), or `None` for unterminated input.
fn split_statements(sql: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                current.push(c);
                let mut closed = false;
                while let Some(d) = chars.next() {
                    if d == c {
                        if chars.peek() == Some(&c) {
                            chars.next();
                            current.push('_');
                            continue;
                        }
                        closed = true;
                        break;
                    }
                    if d == '\\' && c != '"' {
                        chars.next();
                    }
                    current.push('_');
                }
                if !closed {
                    return None;
                }
                current.push(c);
            }
            '[' => {
                // SQLite's [quoted identifier].
                current.push('"');
                let mut closed = false;
                for d in chars.by_ref() {
                    if d == ']' {
                        closed = true;
                        break;
                    }
                    current.push('_');
                }
                if !closed {
                    return None;
                }
                current.push('"');
            }
            '-' if chars.peek() == Some(&'-') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                current.push(' ');
            }
            '#' => {
                // MySQL comment; harmless to treat as one elsewhere (refuses nothing).
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                current.push(' ');
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                let mut closed = false;
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        closed = true;
                        break;
                    }
                    prev = d;
                }
                if !closed {
                    return None;
                }
                current.push(' ');
            }
            ';' => {
                if !current.trim().is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                current.clear();
            }
            _ => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    Some(out)
}

fn words_upper(statement: &str) -> Vec<String> {
    statement
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '\\'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_uppercase)
        .collect()
}

fn statement_write_reason(statement: &str, dialect: Dialect) -> Option<String> {
    let trimmed = statement.trim();
    if dialect == Dialect::Sqlite && trimmed.starts_with('.') {
        let command = trimmed.split_whitespace().next().unwrap_or_default();
        return (!READ_DOT_COMMANDS.contains(&command))
            .then(|| format!("dot-command `{command}` is not read-only"));
    }
    if trimmed.starts_with('\\') {
        return meta_command_reason(trimmed, dialect);
    }
    let words = words_upper(trimmed);
    let first = words.first().map(String::as_str).unwrap_or_default();
    let lower = trimmed.to_ascii_lowercase();
    for function in WRITING_FUNCTIONS {
        if let Some(at) = lower.find(function) {
            let after = lower[at + function.len()..].trim_start();
            let before_ok = at == 0
                || !lower.as_bytes()[at - 1].is_ascii_alphanumeric()
                    && lower.as_bytes()[at - 1] != b'_';
            if before_ok && after.starts_with('(') {
                return Some(format!("calls `{function}()`, which changes state"));
            }
        }
    }
    let has = |w: &str| words.iter().any(|x| x == w);
    let has_seq = |a: &str, b: &str| words.windows(2).any(|p| p[0] == a && p[1] == b);
    const DML: &[&str] = &[
        "INSERT",
        "UPDATE",
        "DELETE",
        "REPLACE",
        "MERGE",
        "UPSERT",
        "CREATE",
        "DROP",
        "ALTER",
        "TRUNCATE",
        "GRANT",
        "REVOKE",
        "ATTACH",
        "DETACH",
        "VACUUM",
        "REINDEX",
        "ANALYZE",
        "COPY",
        "CALL",
        "DO",
        "LOAD",
        "HANDLER",
        "RENAME",
        "LOCK",
        "UNLOCK",
        "INTO",
        "OUTFILE",
        "DUMPFILE",
        "NOTIFY",
        "LISTEN",
        "CLUSTER",
        "REFRESH",
        "SECURITY",
        "COMMENT",
        "IMPORT",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE",
        "FLUSH",
        "KILL",
        "PURGE",
        "RESET",
        "SHUTDOWN",
        "INSTALL",
        "UNINSTALL",
    ];
    let read_start = match first {
        "SELECT" | "WITH" | "VALUES" | "TABLE" => true,
        "EXPLAIN" => !has("ANALYZE") || !DML.iter().any(|d| has(d)),
        "SHOW" if dialect != Dialect::Sqlite => true,
        "DESCRIBE" | "DESC" if dialect == Dialect::Mysql => true,
        "USE" if dialect == Dialect::Mysql => words.len() == 2,
        "HELP" if dialect == Dialect::Mysql => true,
        "PRAGMA" if dialect == Dialect::Sqlite => {
            let name = words
                .get(1)
                .map(|w| w.to_ascii_lowercase())
                .unwrap_or_default();
            let name = name.rsplit('.').next().unwrap_or_default().to_string();
            return (trimmed.contains('=') || !READ_PRAGMAS.contains(&name.as_str()))
                .then(|| format!("`PRAGMA {name}` is not a read-only pragma"));
        }
        _ => false,
    };
    if !read_start {
        return Some(format!(
            "`{}` is not a read statement",
            if first.is_empty() { "?" } else { first }
        ));
    }
    if let Some(dml) = DML.iter().find(|d| has(d))
        && !(first == "EXPLAIN" && *dml == "ANALYZE")
    {
        return Some(format!("contains `{dml}`"));
    }
    if has_seq("FOR", "UPDATE")
        || has_seq("FOR", "SHARE")
        || has_seq("SHARE", "MODE")
        || has_seq("NO", "KEY")
    {
        return Some("takes row locks".to_string());
    }
    if has("SET") && first != "SELECT" {
        return Some("contains `SET`".to_string());
    }
    None
}

fn meta_command_reason(meta: &str, dialect: Dialect) -> Option<String> {
    let command = meta.split_whitespace().next().unwrap_or_default();
    let read = match dialect {
        Dialect::Postgres => {
            let name = &command[1..];
            name.starts_with('d') && !name.starts_with("do")
                || matches!(
                    name,
                    "l" | "l+"
                        | "list"
                        | "conninfo"
                        | "x"
                        | "timing"
                        | "encoding"
                        | "z"
                        | "sf"
                        | "sv"
                        | "echo"
                        | "pset"
                        | "a"
                        | "t"
                        | "H"
                        | "?"
                )
        }
        Dialect::Mysql => matches!(
            command,
            "\\s" | "\\G" | "\\g" | "\\c" | "\\h" | "\\?" | "\\q"
        ),
        Dialect::Sqlite => false,
    };
    (!read).then(|| format!("meta-command `{command}` is not read-only"))
}

fn verdict_for(sql: &str, dialect: Dialect) -> Verdict {
    match sql_write_reason(sql, dialect) {
        None => Verdict::conditional("every SQL statement only reads"),
        Some(reason) => Verdict::write(Risk::MediumWrite, format!("SQL {reason}")),
    }
}

fn repl() -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "opens an interactive SQL session",
    )
}

impl ContentInspector for SqliteInspector {
    fn language(&self) -> &'static str {
        "SQL"
    }
    fn commands(&self) -> &'static [&'static str] {
        &["sqlite3"]
    }
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict {
        let mut index = 0;
        let mut extra_sql: Vec<&str> = Vec::new();
        let mut positionals: Vec<&crate::invocation::Arg<'_>> = Vec::new();
        while let Some(arg) = inv.args.get(index) {
            let text = arg.as_str();
            let option = text.trim_start_matches('-');
            if text.starts_with('-') && positionals.is_empty() {
                match option {
                    "version" | "help" => return Verdict::Read,
                    "init" => {
                        return Verdict::unknown(
                            "`-init` runs a script file that cannot be inspected",
                        );
                    }
                    "cmd" => {
                        let Some(cmd) = inv.args.get(index + 1) else {
                            return Verdict::unknown("`-cmd` without a command");
                        };
                        if cmd.is_variable() {
                            return Verdict::unknown("SQL comes from an expansion");
                        }
                        extra_sql.push(cmd.as_str());
                        index += 2;
                        continue;
                    }
                    "separator" | "nullvalue" | "newline" | "maxsize" | "vfs" | "lookaside"
                    | "pagecache" | "mmap" | "heap" => {
                        index += 2;
                        continue;
                    }
                    _ => {
                        index += 1;
                        continue;
                    }
                }
            }
            positionals.push(arg);
            index += 1;
        }
        let Some(_db) = positionals.first() else {
            return repl();
        };
        let sql_args = &positionals[1..];
        if sql_args.is_empty() && extra_sql.is_empty() {
            return repl();
        }
        if sql_args.iter().any(|a| a.is_variable()) {
            return Verdict::unknown("SQL comes from an expansion");
        }
        for sql in extra_sql
            .into_iter()
            .chain(sql_args.iter().map(|a| a.as_str()))
        {
            if let Some(reason) = sql_write_reason(sql, Dialect::Sqlite) {
                return Verdict::write(Risk::MediumWrite, format!("SQL {reason}"));
            }
        }
        Verdict::conditional("every SQL statement only reads")
    }
}

impl ContentInspector for MysqlInspector {
    fn language(&self) -> &'static str {
        "SQL"
    }
    fn commands(&self) -> &'static [&'static str] {
        &["mysql", "mariadb"]
    }
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict {
        if inv.has_word(&["--version", "-V", "--help"]) {
            return Verdict::Read;
        }
        if inv
            .args
            .iter()
            .any(|a| a.as_str() == "-p" || a.as_str() == "--password")
        {
            return Verdict::interactive(
                InteractiveCategory::TtyFlag,
                "`-p` prompts for a password",
            );
        }
        let mut sql: Vec<&crate::invocation::Arg<'_>> = Vec::new();
        for (i, arg) in inv.args.iter().enumerate() {
            let text = arg.as_str();
            if text == "-e" || text == "--execute" || text == "--init-command" {
                match inv.args.get(i + 1) {
                    Some(next) => sql.push(next),
                    None => return Verdict::unknown("`-e` without SQL"),
                }
            } else if (text.starts_with("-e") && text.len() > 2 && !text.starts_with("--"))
                || text.starts_with("--execute=")
                || text.starts_with("--init-command=")
            {
                sql.push(arg);
            }
        }
        if sql.is_empty() {
            return repl();
        }
        if sql.iter().any(|a| a.is_variable()) {
            return Verdict::unknown("SQL comes from an expansion");
        }
        for arg in sql {
            let text = arg.as_str();
            let text = text
                .strip_prefix("--execute=")
                .or_else(|| text.strip_prefix("--init-command="))
                .or_else(|| text.strip_prefix("-e"))
                .unwrap_or(text);
            if let Some(reason) = sql_write_reason(text, Dialect::Mysql) {
                return Verdict::write(Risk::MediumWrite, format!("SQL {reason}"));
            }
        }
        Verdict::conditional("every SQL statement only reads")
    }
}

impl ContentInspector for PsqlInspector {
    fn language(&self) -> &'static str {
        "SQL"
    }
    fn commands(&self) -> &'static [&'static str] {
        &["psql"]
    }
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict {
        if inv.has_word(&["--version", "-V", "--help"]) {
            return Verdict::Read;
        }
        if inv.has_short('f') || inv.has_long("--file") {
            return Verdict::unknown("`-f` runs SQL from a file that cannot be inspected");
        }
        if inv.has_short('o')
            || inv.has_long("--output")
            || inv.has_short('L')
            || inv.has_long("--log-file")
        {
            return Verdict::write(Risk::LowWrite, "writes query output to a file");
        }
        let spec = OptSpec {
            short_with_value: "cdhpUvPFRTLo",
            long_with_value: &[
                "--command",
                "--dbname",
                "--host",
                "--port",
                "--username",
                "--set",
                "--variable",
                "--pset",
            ],
        };
        let _ = spec;
        let mut sql: Vec<&crate::invocation::Arg<'_>> = Vec::new();
        for (i, arg) in inv.args.iter().enumerate() {
            let text = arg.as_str();
            if text == "-c" || text == "--command" {
                match inv.args.get(i + 1) {
                    Some(next) => sql.push(next),
                    None => return Verdict::unknown("`-c` without SQL"),
                }
            } else if (text.starts_with("-c") && text.len() > 2) || text.starts_with("--command=") {
                sql.push(arg);
            }
        }
        if sql.is_empty() {
            if inv.has_short('l') || inv.has_long("--list") {
                return Verdict::Read;
            }
            return repl();
        }
        if sql.iter().any(|a| a.is_variable()) {
            return Verdict::unknown("SQL comes from an expansion");
        }
        for arg in sql {
            let text = arg.as_str();
            let text = text
                .strip_prefix("--command=")
                .or_else(|| text.strip_prefix("-c"))
                .unwrap_or(text);
            if text.is_empty() {
                continue;
            }
            let verdict = verdict_for(text, Dialect::Postgres);
            if !matches!(verdict, Verdict::Conditional(_)) {
                return verdict;
            }
        }
        Verdict::conditional("every SQL statement only reads")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements() {
        for ok in [
            "SELECT 1",
            "select count(*) from users;",
            "SELECT name FROM t WHERE note = 'DROP TABLE x; --'",
            "WITH x AS (SELECT 1) SELECT * FROM x",
            "EXPLAIN SELECT * FROM orders",
            "SELECT updated_at, deleted, insert_time FROM users",
            "-- comment\nSELECT 1",
        ] {
            assert_eq!(sql_write_reason(ok, Dialect::Postgres), None, "{ok}");
        }
        for bad in [
            "DELETE FROM t",
            "SELECT 1; DROP TABLE t",
            "BEGIN; SELECT 1; COMMIT;",
            "SELECT * INTO OUTFILE '/tmp/x' FROM t",
            "SELECT * FROM t FOR UPDATE",
            "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
            "SELECT pg_terminate_backend(42)",
            "SELECT nextval('s')",
            "SELECT 1 /* unterminated",
            "SELECT ';",
            "VACUUM",
            "EXPLAIN ANALYZE DELETE FROM t",
        ] {
            assert!(sql_write_reason(bad, Dialect::Postgres).is_some(), "{bad}");
        }
        assert_eq!(sql_write_reason(".tables", Dialect::Sqlite), None);
        assert!(sql_write_reason(".output /tmp/x", Dialect::Sqlite).is_some());
        assert_eq!(
            sql_write_reason("PRAGMA table_info(users)", Dialect::Sqlite),
            None
        );
        assert!(sql_write_reason("PRAGMA journal_mode=WAL;", Dialect::Sqlite).is_some());
        assert_eq!(sql_write_reason("SHOW TABLES", Dialect::Mysql), None);
    }
}
