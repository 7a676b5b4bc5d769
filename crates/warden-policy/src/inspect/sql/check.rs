//! Whether SQL only reads: every statement starts like a read (SELECT,
//! WITH, VALUES, SHOW, EXPLAIN, DESCRIBE, read PRAGMAs, client
//! meta-commands that print), contains no keyword that writes or locks, and
//! calls only functions known to have no side effects (a function called
//! inside a SELECT can terminate backends, write files or load code, and a
//! user-defined one can do anything).

use super::Dialect;
use super::functions::is_pure;
use super::lexer::{Token, lex};

/// Why `sql` is not provably read-only, or `None` when it is.
pub fn sql_write_reason(sql: &str, dialect: Dialect) -> Option<String> {
    let tokens = match lex(sql, dialect) {
        Ok(tokens) => tokens,
        Err(reason) => return Some(reason.to_string()),
    };
    let statements: Vec<&[Token]> = tokens
        .split(|t| *t == Token::End)
        .filter(|s| !s.is_empty())
        .collect();
    if statements.is_empty() {
        return Some("no SQL statement".to_string());
    }
    statements
        .into_iter()
        .find_map(|statement| statement_reason(statement, dialect))
}

/// Keywords that write, lock, change the session or run code.
const WRITES: &[&str] = &[
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
    "UNLISTEN",
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
    "SET",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "RELEASE",
    "START",
    "DISCARD",
    "CHECKPOINT",
    "REASSIGN",
    "OPTIMIZE",
    "REPAIR",
    "CHECKSUM",
    "CACHE",
    "BINLOG",
    "DELIMITER",
    "SYSTEM",
    "SOURCE",
    "TEE",
    "PAGER",
    "EDIT",
];

/// Words that may stand before `(` without being a function call.
const NOT_CALLS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "EXISTS",
    "ON",
    "USING",
    "JOIN",
    "AS",
    "VALUES",
    "OVER",
    "FILTER",
    "BY",
    "HAVING",
    "GROUP",
    "ORDER",
    "PARTITION",
    "ROWS",
    "RANGE",
    "GROUPS",
    "BETWEEN",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "IS",
    "LIKE",
    "ILIKE",
    "SIMILAR",
    "ANY",
    "ALL",
    "SOME",
    "ARRAY",
    "ROW",
    "LATERAL",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "DISTINCT",
    "LIMIT",
    "OFFSET",
    "RETURNING",
    "WITH",
    "RECURSIVE",
    "CAST",
    "EXTRACT",
    "SUBSTRING",
    "POSITION",
    "TRIM",
    "OVERLAY",
    "INTERVAL",
    "COLLATE",
    "ESCAPE",
    "WITHIN",
    "TABLESAMPLE",
    "MATCH",
    "AGAINST",
    "GLOB",
    "REGEXP",
    "RLIKE",
    "DIV",
    "MOD",
    "XOR",
    "EXPLAIN",
    "ANALYZE",
    "VERBOSE",
    "FORMAT",
    "TABLE",
    "INNER",
    "LEFT",
    "RIGHT",
    "FULL",
    "OUTER",
    "CROSS",
    "NATURAL",
    "WINDOW",
    "FETCH",
    "FIRST",
    "NEXT",
    "ONLY",
    "NULLS",
    "LAST",
    "ASC",
    "DESC",
    "MATERIALIZED",
    "COALESCE",
    "NULLIF",
    "GREATEST",
    "LEAST",
    "EXISTS",
    "UNNEST",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "CHAR",
    "VARCHAR",
    "NUMERIC",
    "DECIMAL",
    "FLOAT",
    "DOUBLE",
    "PRECISION",
    "SIGNED",
    "UNSIGNED",
    "CONVERT",
    "IF",
    "IIF",
    "INFO",
    "TO",
    "KEY",
    "INDEX",
    "FOR",
    "LOG",
];

fn statement_reason(tokens: &[Token], dialect: Dialect) -> Option<String> {
    if let Some(Token::Meta(_)) = tokens.first() {
        // `\cmd args \\ SQL`: each meta-command, and the SQL after a `\\`.
        let mut rest = tokens;
        while let Some((Token::Meta(name), after)) = rest.split_first() {
            let next = after
                .iter()
                .position(|t| matches!(t, Token::Meta(_)))
                .unwrap_or(after.len());
            if name == "\\" {
                if let Some(reason) = statement_reason(&after[..next], dialect) {
                    return Some(reason);
                }
            } else if let Some(reason) = meta_reason(name, dialect) {
                return Some(reason);
            }
            rest = &after[next..];
        }
        return None;
    }
    let words = || {
        tokens.iter().filter_map(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            _ => None,
        })
    };
    let first = match tokens.first() {
        Some(Token::Word(w)) => w.as_str(),
        Some(Token::Punct('(')) => "(",
        _ => return Some("does not start with a statement".to_string()),
    };
    let read_start = match first {
        "SELECT" | "WITH" | "VALUES" | "(" => true,
        "TABLE" => dialect == Dialect::Postgres,
        "EXPLAIN" => true,
        "SHOW" => dialect != Dialect::Sqlite,
        "DESCRIBE" | "DESC" | "HELP" => dialect == Dialect::Mysql,
        "USE" => dialect == Dialect::Mysql && tokens.len() == 2,
        "PRAGMA" if dialect == Dialect::Sqlite => return pragma_reason(tokens),
        _ => false,
    };
    if !read_start {
        return Some(format!("`{first}` is not a read statement"));
    }
    if let Some(write) = words().find(|w| WRITES.contains(w)) {
        // `SHOW … STATUS LIKE`, `EXPLAIN ANALYZE SELECT` only read.
        let explains = first == "EXPLAIN" && write == "ANALYZE";
        if !explains {
            return Some(format!("contains `{write}`"));
        }
    }
    let all: Vec<&str> = words().collect();
    if all.windows(2).any(|w| {
        matches!(
            w,
            ["FOR", "UPDATE" | "SHARE" | "NO"] | ["SHARE", "MODE"] | ["KEY", "SHARE"]
        )
    }) {
        return Some("takes row locks".to_string());
    }
    if let Some(meta) = tokens.iter().find_map(|t| match t {
        Token::Meta(m) => Some(m),
        _ => None,
    }) {
        return meta_reason(meta, dialect);
    }
    call_reason(tokens)
}

/// The first function called that is not known to be pure.
fn call_reason(tokens: &[Token]) -> Option<String> {
    for (i, token) in tokens.iter().enumerate() {
        if tokens.get(i + 1) != Some(&Token::Punct('(')) {
            continue;
        }
        let name = match token {
            Token::Word(w) if NOT_CALLS.contains(&w.as_str()) => continue,
            Token::Word(w) => w.to_lowercase(),
            Token::Quoted(q) => q.clone(),
            _ => continue,
        };
        // `schema.func(`: the schema does not make a function safe.
        if !is_pure(&name) {
            return Some(format!(
                "calls `{name}()`, which is not known to be free of side effects"
            ));
        }
    }
    None
}

/// SQLite PRAGMAs that only report; the ones that can also set refuse a
/// value (`= x` or `(x)`).
const REPORT_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
];
const SETTING_PRAGMAS: &[&str] = &[
    "database_list",
    "compile_options",
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

fn pragma_reason(tokens: &[Token]) -> Option<String> {
    // PRAGMA [schema.]name [= value | (value)]
    let mut rest = &tokens[1..];
    if matches!(
        rest,
        [Token::Word(_) | Token::Quoted(_), Token::Punct('.'), ..]
    ) {
        rest = &rest[2..];
    }
    let name = match rest.first() {
        Some(Token::Word(w)) => w.to_lowercase(),
        Some(Token::Quoted(q)) => q.clone(),
        _ => return Some("unknown PRAGMA".to_string()),
    };
    let has_value = rest.len() > 1;
    if REPORT_PRAGMAS.contains(&name.as_str()) && !rest.contains(&Token::Punct('=')) {
        return None;
    }
    if SETTING_PRAGMAS.contains(&name.as_str()) && !has_value {
        return None;
    }
    Some(format!("`PRAGMA {name}` is not a read-only pragma"))
}

/// Client meta-commands (psql `\d`, mysql `\G`): only the ones that print.
fn meta_reason(name: &str, dialect: Dialect) -> Option<String> {
    let read = match dialect {
        Dialect::Postgres => {
            let base = name.trim_end_matches(['+', 'S', 'x']);
            base.starts_with('d')
                || matches!(
                    base,
                    "l" | "list"
                        | "conninfo"
                        | "x"
                        | "timing"
                        | "encoding"
                        | "z"
                        | "sf"
                        | "sv"
                        | "echo"
                        | "qecho"
                        | "warn"
                        | "pset"
                        | "a"
                        | "t"
                        | "H"
                        | "?"
                        | "h"
                        | "help"
                        | "copyright"
                        | "errverbose"
                        | "lo_list"
                        | "gdesc"
                        | "crosstabview"
                        | "\\"
                )
        }
        Dialect::Mysql => matches!(
            name,
            "G" | "g" | "c" | "s" | "h" | "?" | "q" | "W" | "w" | "u"
        ),
        Dialect::Sqlite => false,
    };
    (!read).then(|| format!("meta-command `\\{name}` is not read-only"))
}
