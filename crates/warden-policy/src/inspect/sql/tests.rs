use super::*;

fn read(sql: &str, dialect: Dialect) -> bool {
    sql_write_reason(sql, dialect).is_none()
}

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
        "SELECT pg_size_pretty(pg_database_size(current_database()))",
        "SELECT now() - pg_postmaster_start_time()",
        "SELECT $$ DROP TABLE x $$",
        "SELECT * FROM pg_stat_activity WHERE state = 'active'",
        "SELECT datname, numbackends FROM pg_stat_database",
        "SELECT * FROM (SELECT 1) AS t",
        "SHOW max_connections",
        "\\dt",
        "\\d+ users",
        "\\l",
        // PostgreSQL comments nest: all of this is one comment.
        "SELECT 1 /* /* */ ; DROP TABLE t; */",
    ] {
        assert!(
            read(ok, Dialect::Postgres),
            "{ok}: {:?}",
            sql_write_reason(ok, Dialect::Postgres)
        );
    }
    for bad in [
        "DELETE FROM t",
        "SELECT 1; DROP TABLE t",
        "BEGIN; SELECT 1; COMMIT;",
        "SELECT * INTO OUTFILE '/tmp/x' FROM t",
        "SELECT * FROM t FOR UPDATE",
        "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
        "SELECT pg_terminate_backend(42)",
        "SELECT \"pg_terminate_backend\"(42)",
        "SELECT pg_catalog.pg_terminate_backend(42)",
        "SELECT PG_TERMINATE_BACKEND (42)",
        "SELECT/**/pg_cancel_backend(1)",
        "SELECT set_config('log_statement', 'all', false)",
        "SELECT nextval('s')",
        "SELECT lo_export(1, '/tmp/x')",
        "SELECT my_function()",
        "SELECT 1 /* unterminated",
        "SELECT ';",
        "VACUUM",
        "EXPLAIN ANALYZE DELETE FROM t",
        "SELECT $a$ ' $a$; DROP TABLE t; --'",
        "SELECT U&\"\\0070g_sleep\"(1)",
        "SELECT 'a\\'; DROP TABLE t; --'",
        "\\! rm -rf /",
        "\\o /tmp/x",
        "\\copy t to '/tmp/x'",
        "SELECT 'DROP TABLE t' \\gexec",
        "\\dt \\\\ DROP TABLE t",
        "\\watch 1",
        "SELECT 1 \\g /tmp/out",
    ] {
        assert!(!read(bad, Dialect::Postgres), "{bad}");
    }
}

#[test]
fn dialects() {
    // SQLite has no backslash escapes: the string ends at `\'`.
    assert!(!read("SELECT 'a\\'; DROP TABLE t; --'", Dialect::Sqlite));
    assert!(read("SELECT 'a\\b' AS x", Dialect::Sqlite));
    // SQLite comments do not nest.
    assert!(!read(
        "SELECT 1 /* /* */ ; DROP TABLE t; /* */",
        Dialect::Sqlite
    ));
    assert!(!read("SELECT load_extension('x')", Dialect::Sqlite));
    assert!(!read("SELECT writefile('/tmp/x', 'y')", Dialect::Sqlite));
    assert!(read(
        "SELECT * FROM pragma_table_info('t')",
        Dialect::Sqlite
    ));
    assert!(read("PRAGMA table_info(users)", Dialect::Sqlite));
    assert!(!read("PRAGMA journal_mode=WAL", Dialect::Sqlite));
    assert!(!read("PRAGMA user_version(5)", Dialect::Sqlite));
    assert!(read("PRAGMA user_version", Dialect::Sqlite));
    // MySQL runs `/*! … */`, takes `--x` for minus-minus, `#` for a comment.
    assert!(!read("SELECT 1 /*! ; DROP TABLE t */", Dialect::Mysql));
    assert!(!read("SELECT 1 --x; DROP TABLE t", Dialect::Mysql));
    assert!(read("SELECT 1 -- ; DROP TABLE t", Dialect::Mysql));
    assert!(read("SELECT 1 # ; DROP TABLE t", Dialect::Mysql));
    assert!(!read("SELECT sleep(10)", Dialect::Mysql));
    assert!(!read("SELECT `sleep`(10)", Dialect::Mysql));
    assert!(!read("SELECT get_lock('x', 1)", Dialect::Mysql));
    assert!(!read("SELECT load_file('/etc/passwd')", Dialect::Mysql));
    assert!(!read("SELECT 1; \\! id", Dialect::Mysql));
    assert!(!read("system id", Dialect::Mysql));
    assert!(!read("SELECT \"a\\\"; DROP TABLE t; --\"", Dialect::Mysql));
    assert!(read("SHOW TABLES", Dialect::Mysql));
    assert!(read("SHOW FULL PROCESSLIST", Dialect::Mysql));
    assert!(read(
        "SELECT table_schema, SUM(data_length) FROM information_schema.tables GROUP BY table_schema",
        Dialect::Mysql
    ));
    assert!(read("DESCRIBE users", Dialect::Mysql));
}
