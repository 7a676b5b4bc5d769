//! Database server tools besides the SQL and Redis clients (those are in
//! `inspect/`): status and health checks read; dumps read unless they
//! write a file; everything that starts, stops or changes a server writes.

use super::Rule;
use crate::invocation::Invocation;
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("pg_isready", pg_isready),
    ("pg_lsclusters", pg_lsclusters),
    ("pg_ctlcluster", pg_ctlcluster),
    ("pg_dump", pg_dump),
    ("pg_dumpall", pg_dump),
    ("mysqladmin", mysqladmin),
    ("mariadb-admin", mysqladmin),
    ("etcdctl", etcdctl),
];

// Cold path: the error is the rule's final verdict.
#[allow(clippy::result_large_err)]
fn literal_words<'i>(inv: &Invocation<'i, '_>) -> Result<Vec<&'i str>, Verdict> {
    match inv.args.iter().find(|a| !a.is_literal()) {
        Some(a) => Err(Verdict::unknown(format!(
            "`{}` comes from an expansion",
            a.raw
        ))),
        None => Ok(inv.args.iter().map(|a| &*a.text).collect()),
    }
}

fn pg_isready(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::Read
}

fn pg_lsclusters(inv: &Invocation<'_, '_>) -> Verdict {
    match literal_words(inv) {
        Ok(words)
            if words.iter().all(|w| {
                matches!(
                    *w,
                    "-h" | "--no-header" | "-j" | "--json" | "-s" | "--start-conf"
                ) || !w.starts_with('-')
            }) =>
        {
            Verdict::Read
        }
        Ok(_) => Verdict::unknown("unknown option"),
        Err(v) => v,
    }
}

/// `pg_ctlcluster VERSION NAME status` reads; start, stop, restart, reload
/// and promote change the server.
fn pg_ctlcluster(inv: &Invocation<'_, '_>) -> Verdict {
    match literal_words(inv) {
        Ok(words) if words.contains(&"status") => Verdict::Read,
        Ok(_) => Verdict::write(Risk::HighWrite, "starts, stops or changes a cluster"),
        Err(v) => v,
    }
}

/// `pg_dump` prints a dump; `-f FILE` (or a directory format) writes it.
fn pg_dump(inv: &Invocation<'_, '_>) -> Verdict {
    let words = match literal_words(inv) {
        Ok(words) => words,
        Err(v) => return v,
    };
    let writes = words.iter().any(|w| {
        *w == "-f"
            || w.starts_with("--file")
            || (w.starts_with("-f") && w.len() > 2)
            || *w == "-Fd"
            || w.starts_with("--format=d")
    });
    if writes {
        Verdict::write(Risk::LowWrite, "writes the dump to a file")
    } else {
        Verdict::Read
    }
}

/// mysqladmin: reports read; kill, flush, create, drop, shutdown, password
/// and the rest change the server.
fn mysqladmin(inv: &Invocation<'_, '_>) -> Verdict {
    const READS: &[&str] = &[
        "status",
        "extended-status",
        "processlist",
        "variables",
        "ping",
        "version",
    ];
    let words = match literal_words(inv) {
        Ok(words) => words,
        Err(v) => return v,
    };
    if words.iter().any(|w| {
        w.starts_with("--defaults")
            || w.starts_with("--plugin-dir")
            || w.starts_with("--default-auth")
    }) {
        return Verdict::unknown("reads settings or loads plugins");
    }
    let mut commands = words.iter().filter(|w| !w.starts_with('-')).peekable();
    if commands.peek().is_none() {
        return Verdict::unknown("no command");
    }
    match commands.find(|c| !READS.contains(c)) {
        Some(c) => Verdict::write(Risk::MediumWrite, format!("`{c}` changes the server")),
        None if words
            .iter()
            .any(|w| matches!(*w, "-i" | "--sleep") || w.starts_with("--sleep="))
            && !words
                .iter()
                .any(|w| matches!(*w, "-c" | "--count") || w.starts_with("--count=")) =>
        {
            Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "`--sleep` repeats until interrupted",
            )
        }
        None => Verdict::Read,
    }
}

/// etcdctl: get, member list, endpoint health/status, version, alarm list
/// read; watch streams; the rest writes.
fn etcdctl(inv: &Invocation<'_, '_>) -> Verdict {
    let words = match literal_words(inv) {
        Ok(words) => words,
        Err(v) => return v,
    };
    let commands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    match commands.as_slice() {
        ["get", ..]
        | ["version"]
        | ["member", "list", ..]
        | ["endpoint", "health" | "status" | "hashkv", ..]
        | ["alarm", "list"]
        | ["user", "list" | "get", ..]
        | ["role", "list" | "get", ..]
        | ["auth", "status"]
        | [] => Verdict::Read,
        ["watch", ..] => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`watch` streams changes",
        ),
        ["snapshot", "status", ..] => Verdict::Read,
        [other, ..] => Verdict::write(Risk::MediumWrite, format!("`{other}` changes the cluster")),
    }
}
