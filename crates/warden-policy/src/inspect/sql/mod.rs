//! SQL inspection for `sqlite3`, `mysql`/`mariadb` and `psql`: every
//! statement must be a read, in the client's dialect (see [`check`]), and
//! the client's own options must not write files (`--tee`, `-o`, `-L`),
//! run programs (`--pager`), load code (`--plugin-dir`, `-init`) or read
//! SQL or settings from files (`-f`, `--defaults-file`). SQL that arrives on
//! stdin or from a file cannot be inspected.

mod check;
mod functions;
mod lexer;

pub use check::sql_write_reason;

use super::ContentInspector;
use crate::commands::common::bad;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

pub struct SqliteInspector;
pub struct MysqlInspector;
pub struct PsqlInspector;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Mysql,
    Postgres,
}

fn repl() -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "opens an interactive SQL session",
    )
}

/// A piece of SQL from the command line: its text, and whether that text
/// is exactly what the client gets (not an expansion).
type Sql<'i> = (&'i str, bool);

/// The word an option's value came from: the option's own word when glued
/// (`-eSQL`, `--execute=SQL`), else the next one.
fn value_word<'i>(inv: &Invocation<'i, '_>, index: usize, value: &str) -> Sql<'i> {
    let own = inv.args.get(index);
    let glued = own.is_some_and(|a| a.as_str() != value && a.as_str().ends_with(value));
    let arg = if glued { own } else { inv.args.get(index + 1) };
    match arg {
        Some(a) => (&a.text, a.is_literal()),
        None => ("", false),
    }
}

/// The verdict on every piece of SQL given on the command line.
fn verdict_for<'i>(sql: impl IntoIterator<Item = Sql<'i>>, dialect: Dialect) -> Verdict {
    let mut any = false;
    for (text, literal) in sql {
        if !literal {
            return Verdict::unknown("SQL comes from an expansion");
        }
        any = true;
        let reason = if dialect == Dialect::Sqlite && text.trim_start().starts_with('.') {
            dot_command_reason(text)
        } else {
            sql_write_reason(text, dialect)
        };
        if let Some(reason) = reason {
            return Verdict::write(Risk::MediumWrite, format!("SQL {reason}"));
        }
    }
    if any {
        Verdict::conditional("every SQL statement only reads")
    } else {
        repl()
    }
}

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

fn dot_command_reason(text: &str) -> Option<String> {
    let text = text.trim();
    if text.contains(['\n', ';']) {
        return Some("a dot-command line with more on it".to_string());
    }
    let command = text.split_whitespace().next().unwrap_or_default();
    // `.dbconfig NAME on` sets; only the bare form reads.
    let bare_only = matches!(
        command,
        ".dbconfig" | ".eqp" | ".explain" | ".timer" | ".stats" | ".changes"
    );
    let ok = READ_DOT_COMMANDS.contains(&command)
        && !(bare_only && text.split_whitespace().count() > 1 && command == ".dbconfig");
    (!ok).then(|| format!("dot-command `{command}` is not read-only"))
}

/// sqlite3's options (one dash or two).
const SQLITE_FLAGS: &[&str] = &[
    "append",
    "ascii",
    "bail",
    "batch",
    "box",
    "column",
    "csv",
    "echo",
    "header",
    "noheader",
    "html",
    "json",
    "line",
    "list",
    "markdown",
    "memtrace",
    "nofollow",
    "no-rowid-in-view",
    "quote",
    "readonly",
    "safe",
    "stats",
    "table",
    "tabs",
    "version",
    "help",
    "zip",
    "deserialize",
];
const SQLITE_VALUES: &[&str] = &[
    "cmd",
    "lookaside",
    "maxsize",
    "mmap",
    "newline",
    "nonce",
    "nullvalue",
    "pagecache",
    "separator",
    "vfs",
    "heap",
];

impl ContentInspector for SqliteInspector {
    fn language(&self) -> &'static str {
        "SQL"
    }
    fn commands(&self) -> &'static [&'static str] {
        &["sqlite3"]
    }
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict {
        let mut sql: Vec<Sql<'_>> = Vec::new();
        let mut db = None;
        let mut readonly = false;
        let mut i = 0;
        while let Some(arg) = inv.args.get(i) {
            let text = arg.as_str();
            if db.is_none() && text.starts_with('-') {
                if arg.may_be_option() {
                    return bad(arg.raw);
                }
                let name = text.trim_start_matches('-');
                if matches!(name, "version" | "help") {
                    return Verdict::Read;
                }
                if name == "cmd" {
                    match inv.args.get(i + 1) {
                        Some(cmd) => sql.push((&cmd.text, cmd.is_literal())),
                        None => return Verdict::unknown("`-cmd` without a command"),
                    }
                    i += 2;
                    continue;
                }
                if SQLITE_VALUES.contains(&name) {
                    // lookaside and pagecache take two values.
                    i += if matches!(name, "lookaside" | "pagecache") {
                        3
                    } else {
                        2
                    };
                    continue;
                }
                readonly |= name == "readonly";
                if !SQLITE_FLAGS.contains(&name) {
                    return Verdict::unknown(format!(
                        "`{text}` is not a known sqlite3 option (`-init`, `-A` and `-interactive` run or prompt)"
                    ));
                }
                i += 1;
                continue;
            }
            if db.is_none() {
                db = Some(arg);
            } else {
                sql.push((&arg.text, arg.is_literal()));
            }
            i += 1;
        }
        let Some(db) = db else {
            return repl();
        };
        let verdict = verdict_for(sql, Dialect::Sqlite);
        // Opening a database file that does not exist creates it.
        let in_memory = db.is_literal() && db.as_str() == ":memory:";
        let creates = !(readonly || in_memory);
        match verdict {
            Verdict::Read | Verdict::Conditional(_) if creates => Verdict::write(
                Risk::LowWrite,
                "without `-readonly`, sqlite3 creates the database file when it is missing",
            ),
            verdict => verdict,
        }
    }
}

const MYSQL: Options = Options {
    short_flags: "BNsrtvEHXAfnqcCVIg",
    short_values: "eDhPuSWO",
    short_optional: "p",
    long_flags: &[
        "--batch",
        "--skip-column-names",
        "--column-names",
        "--silent",
        "--raw",
        "--table",
        "--verbose",
        "--vertical",
        "--html",
        "--xml",
        "--no-auto-rehash",
        "--auto-rehash",
        "--force",
        "--unbuffered",
        "--quick",
        "--compress",
        "--comments",
        "--skip-comments",
        "--no-defaults",
        "--print-defaults",
        "--skip-ssl",
        "--ssl",
        "--ssl-verify-server-cert",
        "--safe-updates",
        "--i-am-a-dummy",
        "--line-numbers",
        "--skip-line-numbers",
        "--show-warnings",
        "--sigint-ignore",
        "--skip-pager",
        "--no-beep",
        "--protocol-compression",
        "--help",
        "--version",
    ],
    long_values: &[
        "--execute",
        "--database",
        "--host",
        "--port",
        "--user",
        "--socket",
        "--protocol",
        "--default-character-set",
        "--character-sets-dir",
        "--connect-timeout",
        "--max-allowed-packet",
        "--net-buffer-length",
        "--ssl-mode",
        "--ssl-ca",
        "--ssl-capath",
        "--ssl-cert",
        "--ssl-key",
        "--ssl-cipher",
        "--tls-version",
        "--delimiter",
        "--init-command",
        "--tee",
        "--pager",
        "--plugin-dir",
        "--default-auth",
        "--load-data-local-dir",
        "--defaults-file",
        "--defaults-extra-file",
        "--defaults-group-suffix",
        "--login-path",
        "--histignore",
        "--local-infile",
    ],
    long_optional: &["--password"],
    ..Options::GNU
};

impl ContentInspector for MysqlInspector {
    fn language(&self) -> &'static str {
        "SQL"
    }
    fn commands(&self) -> &'static [&'static str] {
        &["mysql", "mariadb"]
    }
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict {
        let mut sql: Vec<Sql<'_>> = Vec::new();
        let mut prompts = false;
        for tok in MYSQL.walk(inv.args) {
            match tok {
                Tok::Short {
                    flag: 'e',
                    index,
                    value,
                }
                | Tok::Long {
                    name: "--execute" | "--init-command",
                    index,
                    value,
                } => match value {
                    Some(v) => sql.push(value_word(inv, index, v)),
                    None => return Verdict::unknown("`-e` without SQL"),
                },
                Tok::Short {
                    flag: 'p',
                    value: None,
                    ..
                }
                | Tok::Long {
                    name: "--password",
                    value: None,
                    ..
                } => {
                    prompts = true;
                }
                Tok::Short {
                    flag: 'V' | '?', ..
                }
                | Tok::Long {
                    name: "--version" | "--help",
                    ..
                } => {
                    return Verdict::Read;
                }
                Tok::Long {
                    name:
                        name @ ("--tee"
                        | "--pager"
                        | "--plugin-dir"
                        | "--default-auth"
                        | "--load-data-local-dir"
                        | "--local-infile"
                        | "--defaults-file"
                        | "--defaults-extra-file"
                        | "--login-path"
                        | "--delimiter"
                        | "--histignore"),
                    ..
                } => {
                    return Verdict::unknown(format!(
                        "`{name}` writes a file, runs a program, loads code or reads settings"
                    ));
                }
                Tok::Short {
                    flag: 'T' | 'O', ..
                } => return Verdict::unknown("sets client variables or debug output"),
                Tok::Unknown { text, .. } => return bad(text),
                Tok::Dynamic { index } => {
                    return bad(inv.args.get(index).map_or("$…", |a| a.raw));
                }
                Tok::Short { .. } | Tok::Long { .. } | Tok::Operand { .. } => {}
            }
        }
        if prompts {
            return Verdict::interactive(
                InteractiveCategory::TtyFlag,
                "`-p` prompts for a password",
            );
        }
        verdict_for(sql, Dialect::Mysql)
    }
}

const PSQL: Options = Options {
    short_flags: "wWXAtqxHlzaeEnsS10b",
    short_values: "cdhpUPFRTvfoL",
    long_flags: &[
        "--no-password",
        "--password",
        "--no-psqlrc",
        "--no-align",
        "--tuples-only",
        "--quiet",
        "--expanded",
        "--html",
        "--list",
        "--field-separator-zero",
        "--record-separator-zero",
        "--echo-all",
        "--echo-errors",
        "--echo-queries",
        "--echo-hidden",
        "--no-readline",
        "--single-step",
        "--single-line",
        "--single-transaction",
        "--csv",
        "--help",
        "--version",
    ],
    long_values: &[
        "--command",
        "--dbname",
        "--host",
        "--port",
        "--username",
        "--pset",
        "--field-separator",
        "--record-separator",
        "--table-attr",
        "--set",
        "--variable",
        "--file",
        "--output",
        "--log-file",
    ],
    ..Options::GNU
};

/// psql variables that only tune the client.
const PSQL_VARIABLES: &[&str] = &[
    "ON_ERROR_STOP",
    "VERBOSITY",
    "QUIET",
    "FETCH_COUNT",
    "ECHO",
    "ECHO_HIDDEN",
    "SHOW_CONTEXT",
    "AUTOCOMMIT",
];

impl ContentInspector for PsqlInspector {
    fn language(&self) -> &'static str {
        "SQL"
    }
    fn commands(&self) -> &'static [&'static str] {
        &["psql"]
    }
    fn inspect(&self, inv: &Invocation<'_, '_>) -> Verdict {
        let mut sql: Vec<Sql<'_>> = Vec::new();
        let mut lists = false;
        for tok in PSQL.walk(inv.args) {
            match tok {
                Tok::Short {
                    flag: 'c',
                    index,
                    value,
                }
                | Tok::Long {
                    name: "--command",
                    index,
                    value,
                } => match value {
                    Some(v) => sql.push(value_word(inv, index, v)),
                    None => return Verdict::unknown("`-c` without SQL"),
                },
                Tok::Short { flag: 'f', .. } | Tok::Long { name: "--file", .. } => {
                    return Verdict::unknown("`-f` runs SQL from a file that cannot be inspected");
                }
                Tok::Short {
                    flag: 'o' | 'L', ..
                }
                | Tok::Long {
                    name: "--output" | "--log-file",
                    ..
                } => {
                    return Verdict::write(Risk::LowWrite, "writes query output to a file");
                }
                Tok::Short { flag: 'W', .. }
                | Tok::Long {
                    name: "--password", ..
                } => {
                    return Verdict::interactive(
                        InteractiveCategory::TtyFlag,
                        "`-W` prompts for a password",
                    );
                }
                Tok::Short { flag: 's', .. }
                | Tok::Long {
                    name: "--single-step",
                    ..
                } => {
                    return Verdict::interactive(
                        InteractiveCategory::TtyFlag,
                        "`-s` asks before each command",
                    );
                }
                Tok::Short {
                    flag: 'v', value, ..
                }
                | Tok::Long {
                    name: "--set" | "--variable",
                    value,
                    ..
                } => {
                    let name = value
                        .unwrap_or_default()
                        .split('=')
                        .next()
                        .unwrap_or_default();
                    if !PSQL_VARIABLES.contains(&name) {
                        return Verdict::unknown(format!(
                            "`-v {name}` sets a variable that SQL could use"
                        ));
                    }
                }
                Tok::Short { flag: 'l', .. } | Tok::Long { name: "--list", .. } => lists = true,
                Tok::Short {
                    flag: 'V' | '?', ..
                }
                | Tok::Long {
                    name: "--version" | "--help",
                    ..
                } => {
                    return Verdict::Read;
                }
                Tok::Unknown { text, .. } => return bad(text),
                Tok::Dynamic { index } => {
                    return bad(inv.args.get(index).map_or("$…", |a| a.raw));
                }
                Tok::Short { .. } | Tok::Long { .. } | Tok::Operand { .. } => {}
            }
        }
        if sql.is_empty() && lists {
            return Verdict::Read;
        }
        verdict_for(sql, Dialect::Postgres)
    }
}

#[cfg(test)]
mod tests;
