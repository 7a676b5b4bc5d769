//! argocd: `argocd GROUP ACTION …` against an Argo CD server.

use super::{Flags, action, given, switch, unknown_option, value_of};
use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Tok, walk_sets};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

const GLOBALS: Flags = Flags {
    short_values: "H",
    short_flags: "h",
    long_values: &[
        "--server",
        "--auth-token",
        "--config",
        "--argocd-context",
        "--grpc-web-root-path",
        "--header",
        "--http-retry-max",
        "--kube-context",
        "--logformat",
        "--loglevel",
        "--port-forward-namespace",
        "--client-crt",
        "--client-crt-key",
        "--server-crt",
        "--server-name",
        "--repo-server-name",
        "--controller-name",
        "--redis-name",
        "--redis-haproxy-name",
        "--redis-compress",
    ],
    long_flags: &[
        "--grpc-web",
        "--insecure",
        "--plaintext",
        "--port-forward",
        "--core",
        "--help",
        "--prompts-enabled",
    ],
    ..Options::GO
};

/// Options of the read-only actions (list, get, diff, logs, wait, …).
const READ: Flags = Flags {
    short_values: "oclrNn",
    short_flags: "fmqp",
    long_values: &[
        "--output",
        "--project",
        "--selector",
        "--cluster",
        "--repo",
        "--app-namespace",
        "--revision",
        "--revisions",
        "--source",
        "--source-name",
        "--source-names",
        "--source-position",
        "--source-positions",
        "--tail",
        "--filter",
        "--container",
        "--group",
        "--kind",
        "--name",
        "--namespace",
        "--since-time",
        "--since-seconds",
        "--since",
        "--until-time",
        "--timeout",
        "--local",
        "--local-repo-root",
        "--local-include",
        "--resource",
        "--resource-name",
        "--account",
        "--exclude",
    ],
    long_flags: &[
        "--show-operation",
        "--show-params",
        "--exit-code",
        "--diff-exit-code",
        "--server-side-generate",
        "--follow",
        "--previous",
        "--match-case",
        "--timestamps",
        "--health",
        "--sync",
        "--suspended",
        "--degraded",
        "--operation",
        "--orphaned",
        "--client",
        "--short",
        "--help",
        "--refresh",
        "--hard-refresh",
    ],
    ..Options::GO
};

/// Read-only actions per group.
const READS: &[(&str, &[&str])] = &[
    (
        "app",
        &["list", "get", "resources", "diff", "history", "manifests"],
    ),
    ("cluster", &["list", "get"]),
    ("proj", &["list", "get"]),
    ("repo", &["list", "get"]),
    ("repocreds", &["list"]),
    ("account", &["list", "get", "get-user-info", "can-i"]),
    ("appset", &["list", "get"]),
    ("cert", &["list"]),
    ("gpg", &["list", "get"]),
];

use Risk::{HighWrite, MediumWrite};

/// Known mutating actions: (group, actions, risk, effect).
const WRITES: &[(&str, &[&str], Risk, &str)] = &[
    (
        "app",
        &[
            "sync",
            "create",
            "rollback",
            "set",
            "unset",
            "patch",
            "edit",
            "terminate-op",
            "patch-resource",
            "add-source",
            "remove-source",
            "confirm-deletion",
            "actions",
        ],
        MediumWrite,
        "changes applications",
    ),
    (
        "app",
        &["delete", "delete-resource"],
        HighWrite,
        "deletes applications or their resources",
    ),
    (
        "cluster",
        &["add", "set", "rotate-auth"],
        MediumWrite,
        "changes clusters",
    ),
    ("cluster", &["rm"], HighWrite, "removes clusters"),
    (
        "proj",
        &[
            "create",
            "delete",
            "edit",
            "set",
            "add-source",
            "remove-source",
            "add-destination",
            "remove-destination",
            "add-role",
            "remove-role",
            "role",
            "windows",
            "add-orphaned-ignore",
            "remove-orphaned-ignore",
            "allow-cluster-resource",
            "deny-cluster-resource",
            "allow-namespace-resource",
            "deny-namespace-resource",
            "add-signature-key",
            "remove-signature-key",
        ],
        MediumWrite,
        "changes projects",
    ),
    ("repo", &["add", "rm"], MediumWrite, "changes repositories"),
    (
        "repocreds",
        &["add", "rm"],
        MediumWrite,
        "changes repository credentials",
    ),
    (
        "account",
        &[
            "generate-token",
            "delete-token",
            "update-password",
            "bcrypt",
        ],
        MediumWrite,
        "changes accounts",
    ),
    (
        "appset",
        &["create", "delete", "generate"],
        MediumWrite,
        "changes application sets",
    ),
    (
        "cert",
        &["add-tls", "add-ssh", "rm"],
        MediumWrite,
        "changes certificates",
    ),
    ("gpg", &["add", "rm"], MediumWrite, "changes GPG keys"),
];

pub(super) fn argocd(inv: &Invocation<'_, '_>) -> Verdict {
    let (gi, group) = match super::subcommand(inv, &[&GLOBALS]) {
        Ok(Some(found)) => found,
        Ok(None) if given(inv.args, &[&GLOBALS], "h", &["--help"]) => return Verdict::Read,
        Ok(None) => return Verdict::unknown("no subcommand"),
        Err(verdict) => return verdict,
    };
    let rest = inv.args.get(gi + 1..).unwrap_or(&[]);
    let sets = &[&GLOBALS, &READ];
    match group {
        "version" => return read(rest),
        "help" => return Verdict::Read,
        "context" | "ctx" => {
            return if walk_sets(sets, rest).any(|w| matches!(w, Tok::Operand { .. })) {
                Verdict::write(MediumWrite, "`context NAME` switches the current context")
            } else {
                read(rest)
            };
        }
        "login" | "logout" | "relogin" => {
            return Verdict::write(MediumWrite, format!("`{group}` changes stored credentials"));
        }
        _ => {}
    }
    let (ai, act) = match action(inv, gi, sets) {
        Ok(found) => found,
        Err(verdict) => return verdict,
    };
    let rest = inv.args.get(ai + 1..).unwrap_or(&[]);
    if rest.iter().any(|a| a.text == "--help") {
        return Verdict::Read;
    }
    match (group, act) {
        ("admin", "dashboard") => {
            return Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "`admin dashboard` serves until interrupted",
            );
        }
        ("app", "logs") => return logs(rest),
        ("app", "wait") => return wait(rest),
        ("app", "actions") => {
            return match action(inv, ai, sets) {
                Ok((li, "list")) => read(inv.args.get(li + 1..).unwrap_or(&[])),
                _ => Verdict::write(MediumWrite, "`app actions` runs resource actions"),
            };
        }
        ("proj", "role") => {
            return match action(inv, ai, sets) {
                Ok((li, "list" | "get")) => read(inv.args.get(li + 1..).unwrap_or(&[])),
                _ => Verdict::write(MediumWrite, "`proj role` changes project roles"),
            };
        }
        ("proj", "windows") => {
            return match action(inv, ai, sets) {
                Ok((li, "list")) => read(inv.args.get(li + 1..).unwrap_or(&[])),
                _ => Verdict::write(MediumWrite, "`proj windows` changes sync windows"),
            };
        }
        _ => {}
    }
    if READS
        .iter()
        .any(|(g, acts)| *g == group && acts.contains(&act))
    {
        // `--refresh` makes the server re-read the application: a write.
        if given(rest, sets, "", &["--refresh", "--hard-refresh"]) {
            return Verdict::write(
                Risk::LowWrite,
                "`--refresh` makes the server refresh the application",
            );
        }
        return read(rest);
    }
    match WRITES
        .iter()
        .find(|(g, acts, ..)| *g == group && acts.contains(&act))
    {
        Some((_, _, risk, effect)) => Verdict::write(*risk, format!("`{group} {act}` {effect}")),
        None => Verdict::unknown(format!("unknown subcommand `{group} {act}`")),
    }
}

fn read(rest: &[Arg<'_>]) -> Verdict {
    unknown_option(rest, &[&GLOBALS, &READ]).unwrap_or(Verdict::Read)
}

/// `app logs -f` streams until interrupted.
fn logs(rest: &[Arg<'_>]) -> Verdict {
    if let Some(verdict) = unknown_option(rest, &[&GLOBALS, &READ]) {
        return verdict;
    }
    if switch(rest, &[&GLOBALS, &READ], Some('f'), "--follow").on {
        return Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`--follow` streams the logs until interrupted",
        );
    }
    Verdict::Read
}

/// `app wait` waits forever unless given a positive `--timeout`.
fn wait(rest: &[Arg<'_>]) -> Verdict {
    if let Some(verdict) = unknown_option(rest, &[&GLOBALS, &READ]) {
        return verdict;
    }
    match value_of(rest, &[&GLOBALS, &READ], None, "--timeout") {
        Some(Some(value))
            if value
                .trim_end_matches('s')
                .parse::<u64>()
                .is_ok_and(|n| n > 0) =>
        {
            Verdict::Read
        }
        _ => Verdict::interactive(
            InteractiveCategory::UnboundedStream,
            "`app wait` without `--timeout` can wait forever",
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};

    #[test]
    fn reads() {
        for line in [
            "argocd version",
            "argocd version --client",
            "argocd version --help",
            "argocd context",
            "argocd app list",
            "argocd app list -o wide",
            "argocd app list --project myproject --selector app=web",
            "argocd app list --server argocd.example.com --grpc-web",
            "argocd --server argocd.example.com --insecure app list",
            "argocd app get myapp",
            "argocd app get myapp --output json",
            "argocd app get myapp --show-params --show-operation",
            "argocd app resources myapp",
            "argocd app diff myapp",
            "argocd app diff myapp --revision HEAD",
            "argocd app history myapp",
            "argocd app manifests myapp --source live",
            "argocd app logs myapp",
            "argocd app logs myapp --tail 100 --filter error --container web",
            "argocd app logs myapp --group apps --kind Deployment --name myapp",
            "argocd app wait myapp --timeout 300",
            "argocd app actions list myapp",
            "argocd cluster list",
            "argocd cluster get https://kubernetes.default.svc",
            "argocd proj list",
            "argocd proj get default",
            "argocd proj role list default",
            "argocd repo list",
            "argocd repo get https://github.com/myorg/myrepo",
            "argocd account list",
            "argocd account get",
            "argocd account get-user-info",
            "argocd account can-i create applications",
            "argocd appset list",
            "argocd appset get x",
            "argocd cert list",
            "argocd gpg list",
            "argocd app list --config /path/to/config",
        ] {
            assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn writes() {
        for line in [
            "argocd",
            "argocd login argocd.example.com",
            "argocd logout",
            "argocd relogin",
            "argocd context prod",
            "argocd app create myapp",
            "argocd app delete myapp",
            "argocd app sync myapp",
            "argocd app rollback myapp",
            "argocd app edit myapp",
            "argocd app set myapp",
            "argocd app unset myapp",
            "argocd app patch myapp",
            "argocd app delete-resource myapp",
            "argocd app terminate-op myapp",
            "argocd app actions myapp",
            "argocd app actions run myapp restart",
            "argocd app get myapp --refresh",
            "argocd app get myapp --hard-refresh",
            "argocd account generate-token",
            "argocd account delete-token t",
            "argocd account update-password",
            "argocd account bcrypt pw",
            "argocd cluster add c",
            "argocd cluster rm c",
            "argocd cluster set c",
            "argocd cluster rotate-auth c",
            "argocd proj create p",
            "argocd proj add-source p x",
            "argocd repo add https://x",
            "argocd repo rm https://x",
            "argocd cert add-tls s",
            "argocd gpg add k",
            "argocd appset create x",
            "argocd notifications template list",
            "argocd nonexistent",
            "argocd app invalid-operation",
            "argocd cluster invalid-subcommand",
            "argocd APP list",
            "argocd app LIST",
            "argocd app list --evil",
            "argocd admin settings",
        ] {
            assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn interactive() {
        for line in [
            "argocd app logs myapp -f",
            "argocd app logs myapp -p -f",
            "argocd app logs myapp --follow",
            "argocd app wait myapp",
            "argocd app wait myapp --health",
            "argocd admin dashboard --port 8080",
        ] {
            assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
        }
    }
}
